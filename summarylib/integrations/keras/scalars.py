"""The Keras callback's scalars: one `summarylib.scalar` a value of Keras's logs, under a
tag made once per log key and prefix (`batch_`, `epoch_`, `evaluation_..._vs_iterations`),
not formatted per value; a value that is no number raised after the others are written."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import summarylib

MAX_CACHED_TAGS = 4096  # a cache holds at most this many log keys


def write_scalars(
    tags: dict[str, str], tag_of: Callable[[str], str], logs: Mapping[str, Any], step: int
) -> None:
    """One `summarylib.scalar` a value of `logs`, at `step`, to the default writer; the
    value's tag `tags[name]`, made by `tag_of(name)` the first time only (no formatting
    per value). A value that is no real number is the op's one-shape error, raised once
    every other value is written, so it takes no valid value with it."""
    scalar = summarylib.scalar
    error = None
    for name, value in logs.items():
        tag = tags.get(name) or cached_tag(tags, tag_of, name)
        try:
            scalar(tag, value, step=step)
        except (TypeError, ValueError) as problem:
            error = error or problem
    if error is not None:
        raise error


def cached_tag(tags: dict[str, str], tag_of: Callable[[str], str], name: str) -> str:
    """`tag_of(name)`, kept in `tags`; a cache that fills up (keys that change at every
    batch) starts again empty."""
    if len(tags) >= MAX_CACHED_TAGS:
        tags.clear()
    tag = tags[name] = tag_of(name)
    return tag


def batch_tag(name: str) -> str:
    return f"batch_{name}"


def epoch_tag(name: str) -> str:
    return f"epoch_{name}"


def evaluation_tag(name: str) -> str:
    return f"evaluation_{name}_vs_iterations"
