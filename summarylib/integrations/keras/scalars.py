"""The Keras callback's scalars: the values of Keras's logs at one step, under a tag made
once per log key and prefix (`batch_`, `epoch_`, `evaluation_..._vs_iterations`), not
formatted per value; a value that is no number raised after the others are written."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from summarylib.ops.convert import as_float
from summarylib.ops.errors import check_name
from summarylib.ops.scalar.encoding import V2_COLUMNS, scalar_event
from summarylib.writer.context import DefaultWriter, emit_pending_warnings, pending_warnings

MAX_CACHED_TAGS = 4096  # a cache holds at most this many log keys


def write_scalars(
    writer: DefaultWriter,
    tags: dict[str, str],
    tag_of: Callable[[str], str],
    logs: Mapping[str, Any],
    step: int,
) -> None:
    """What `summarylib.scalar(tags[name], value, step=step)` for each value of `logs`
    writes, to `writer` (the callback's run, where every call records); the value's tag
    made by `tag_of(name)` the first time only; `step` an int in int64 (the callback's
    counters). Keras hands its hooks plain floats: those go straight into the writer's
    scalar lane, with the writer's engine and the clock looked at once for the whole
    batch (a hook in `fit` runs with cold caches, where every call counts). A value that
    is no real number is the op's one-shape error, raised once every other value is
    written, so it takes no valid value with it."""
    engine = writer.scalar_engine
    lane = None if engine is None else engine.scalars
    now = time.time()
    error = None
    for name, value in logs.items():
        try:
            tag = tags.get(name) or cached_tag(tags, tag_of, name)
            if type(value) is not float:
                value = as_float("scalar", tag, "data", value)
        except (TypeError, ValueError) as problem:
            error = error or problem
            continue
        if lane is None:  # not open (after a fork), closed, or a no-op writer
            writer.submit(scalar_event, (tag, value, None), now, step)
        else:
            lane += (V2_COLUMNS, tag, value, now, step)
    if lane is not None and len(lane) >= engine.scalar_limit:
        engine.scalars_full()
    if pending_warnings:
        emit_pending_warnings()
    if error is not None:
        raise error


def cached_tag(tags: dict[str, str], tag_of: Callable[[str], str], name: str) -> str:
    """`tag_of(name)`, checked as the scalar op checks a tag and kept in `tags`; a cache
    that fills up (keys that change at every batch) starts again empty."""
    if len(tags) >= MAX_CACHED_TAGS:
        tags.clear()
    tag = tags[name] = check_name("scalar", tag_of(name))
    return tag


def batch_tag(name: str) -> str:
    return f"batch_{name}"


def epoch_tag(name: str) -> str:
    return f"epoch_{name}"


def evaluation_tag(name: str) -> str:
    return f"evaluation_{name}_vs_iterations"
