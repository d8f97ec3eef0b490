"""The checks of `create_file_writer`'s arguments, at the call and in the one error shape
(`summarylib.create_file_writer: argument '<arg>': expected ..., got ...`): what a writer
accepts it can create, so a bad path or option never fails later on the writer's thread
or leaves a file outside the logdir."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from summarylib.checks import input_error, int_at_least, positive_seconds

API = "create_file_writer"


def _error(kind: type[Exception], argument: str, problem: str) -> Exception:
    return input_error(kind, API, None, argument, problem)


def _check_encodable(argument: str, text: str) -> None:
    """`text` can be written as UTF-8 (TensorBoard reads paths and names as UTF-8; a lone
    surrogate crashes its loaders) and holds no NUL (no file name can)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise _error(
            ValueError, argument, f"expected text that encodes as UTF-8, got {text!r} ({error.reason})"
        ) from None
    if "\0" in text:
        raise _error(ValueError, argument, f"expected no NUL character, got {text!r}")


def check_logdir(logdir: Any) -> str:
    """The logdir as a non-empty str path or URL."""
    if isinstance(logdir, os.PathLike):
        logdir = os.fspath(logdir)
    if not isinstance(logdir, str):
        raise _error(TypeError, "logdir", f"expected a str or os.PathLike, got {type(logdir).__name__}")
    if not logdir:
        raise _error(ValueError, "logdir", "expected a non-empty path, got ''")
    _check_encodable("logdir", logdir)
    return logdir


def check_suffix(suffix: Any) -> str | None:
    """None or the end of one file name: no separator, so the file stays in the logdir."""
    if suffix is None:
        return None
    if not isinstance(suffix, str):
        raise _error(TypeError, "filename_suffix", f"expected a str or None, got {type(suffix).__name__}")
    _check_encodable("filename_suffix", suffix)
    if "/" in suffix or os.sep in suffix or (os.altsep and os.altsep in suffix):
        raise _error(
            ValueError,
            "filename_suffix",
            f"expected the end of a file name, without a separator, got {suffix!r}",
        )
    return suffix


def check_name(name: Any) -> str | None:
    """None or the writer's name, shown in its messages."""
    if name is None:
        return None
    if not isinstance(name, str):
        raise _error(TypeError, "name", f"expected a str or None, got {type(name).__name__}")
    _check_encodable("name", name)
    return name


def check_storage_options(options: Any) -> dict[str, Any] | None:
    """None or the fsspec options, a mapping of str keys."""
    if options is None:
        return None
    if not isinstance(options, Mapping) or not all(isinstance(key, str) for key in options):
        raise _error(
            TypeError, "storage_options", f"expected a dict of str keys or None, got {type(options).__name__}"
        )
    return dict(options)


def positive_int_or_default(value: Any, argument: str, default: int) -> int:
    """A positive int (see summarylib.checks), or `default` for None."""
    return default if value is None else int_at_least(API, None, argument, value)


def optional_positive_seconds(value: Any, argument: str) -> float | None:
    """None or a positive, finite number of seconds (see summarylib.checks)."""
    return None if value is None else positive_seconds(API, None, argument, value)
