"""The Keras callback's constructor arguments, checked at the call in the one error shape
(`summarylib.integrations.keras.TensorBoard: argument '<arg>': expected ..., got ...`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from summarylib.checks import int_at_least, is_int_at_least
from summarylib.ops.errors import check_text, op_error

API = "integrations.keras.TensorBoard"
NAME = f"summarylib.{API}"


def log_dir(log_dir: Any) -> str:
    """`log_dir` as a str path: a non-empty str or path-like, UTF-8 encodable, without NUL."""
    if not isinstance(log_dir, (str, os.PathLike)):
        raise op_error(
            TypeError,
            API,
            None,
            "log_dir",
            f"expected a str or path, got {type(log_dir).__name__} {log_dir!r:.80}",
        )
    path = os.fspath(log_dir)
    if isinstance(path, str):
        check_text(API, None, "log_dir", path)  # the runs' writers take UTF-8 paths only
    if not isinstance(path, str) or not path or "\0" in path:
        raise op_error(
            ValueError, API, None, "log_dir", f"expected a non-empty path without NUL, got {path!r:.80}"
        )
    return path


def frequency(argument: str, value: Any) -> int:
    """An epoch frequency (`histogram_freq`, `embeddings_freq`): an int of at least 0, 0
    meaning never; a bool as Keras takes it (True: every epoch)."""
    return int_at_least(API, None, argument, int(value) if isinstance(value, bool) else value, least=0)


def embeddings_metadata(value: Any) -> str | dict[str, str] | None:
    """None, one metadata file for every Embedding layer, or a dict of them by layer name."""
    names = [value] if isinstance(value, str) else list(value.values()) if isinstance(value, dict) else None
    if value is None or (names is not None and all(isinstance(name, str) and name for name in names)):
        if isinstance(value, dict) and not all(isinstance(key, str) for key in value):
            raise op_error(
                TypeError,
                API,
                None,
                "embeddings_metadata",
                f"expected layer names as keys, got {value!r:.80}",
            )
        return value
    raise op_error(
        TypeError,
        API,
        None,
        "embeddings_metadata",
        f"expected None, a file name or a dict of layer name to file name (non-empty), got {value!r:.80}",
    )


def update_freq(value: Any) -> str | int:
    """`update_freq` as Keras keeps it: "epoch", or an int >= 1 ("batch" is 1)."""
    if isinstance(value, str) and value in ("batch", "epoch"):
        return 1 if value == "batch" else value
    if not is_int_at_least(value, 1):
        raise ValueError(
            f"{NAME}: argument 'update_freq': expected 'batch', 'epoch' or an int >= 1, got {value!r}"
        )
    return int(value)


def profiles(profile_batch: Any) -> bool:
    """Whether Keras would profile with `profile_batch` (an int, "start,stop" or a pair)."""
    values: Sequence[Any]
    if isinstance(profile_batch, str):
        values = profile_batch.split(",")
    elif isinstance(profile_batch, (tuple, list)):
        values = profile_batch
    else:
        values = [profile_batch]
    try:
        return any(int(value) for value in values)
    except (TypeError, ValueError):
        raise ValueError(
            f"{NAME}: argument 'profile_batch': expected an int >= 0, 'start,stop' or a pair of ints, "
            f"got {profile_batch!r}"
        ) from None
