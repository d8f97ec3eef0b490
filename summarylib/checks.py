"""The argument checks every layer shares, and the one shape of their errors:

    summarylib.<api>: tag '<tag>': argument '<arg>': expected ..., got ...

(without the tag part for an API that has none: `summarylib.create_file_writer:
argument 'max_queue': expected a positive int, got int 0`).

One definition each of what the writer, the ops, the compat layers and the integrations
all check at the call: counts (a positive int, an int of at least some bound), numbers
(a real number, a positive number of seconds), flags, a writer handed in, and the kinds
of view a watch is asked for. Raised on the caller's thread, so a bad argument never
fails later on the writer's.

This module sits beside `summarylib.format`, under everything that checks arguments; it
imports nothing of summarylib, so any layer may import it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

# Longest tag shown whole in an error message; longer ones are cut (a 100k-character tag
# would otherwise make a 100k-character message).
_SHOWN_TAG = 200


def input_error(kind: type[Exception], api: str, tag: object, argument: str, problem: str) -> Exception:
    """`kind` with the message of every summarylib input error:
    `summarylib.<api>: tag '<tag>': argument '<arg>': <problem>`, without the tag part
    for None (an API without tags). `summarylib.ops.errors.op_error` is this function."""
    if tag is None:
        where = ""
    elif isinstance(tag, str) and len(tag) > _SHOWN_TAG:
        where = f" tag {tag[:_SHOWN_TAG]!r}... ({len(tag)} characters):"
    else:
        where = f" tag {tag!r}:"
    return kind(f"summarylib.{api}:{where} argument {argument!r}: {problem}")


def is_int_at_least(value: Any, least: int) -> bool:
    """Whether `value` is an int (Python's or numpy's, not a bool) of at least `least`:
    the test itself, for checks whose argument may also be something else (a rule name,
    "batch") and whose message says so."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool) and bool(value >= least)


def _ints_from(least: int) -> str:
    return "a positive int" if least == 1 else f"an int >= {least}"


def int_at_least(api: str, tag: object, argument: str, value: Any, least: int = 1) -> int:
    """`value` as a Python int if it is an int of at least `least` (1: a positive int);
    else a ValueError naming api, tag and argument. A float, even 3.0, is no count."""
    if is_int_at_least(value, least):
        return int(value)
    raise input_error(
        ValueError,
        api,
        tag,
        argument,
        f"expected {_ints_from(least)}, got {type(value).__name__} {value!r:.80}",
    )


def optional_int_at_least(api: str, tag: object, argument: str, value: Any, least: int = 1) -> int | None:
    """None, or `value` as `int_at_least` takes it (its message says None is accepted)."""
    if value is None or is_int_at_least(value, least):
        return None if value is None else int(value)
    raise input_error(
        ValueError,
        api,
        tag,
        argument,
        f"expected None or {_ints_from(least)}, got {type(value).__name__} {value!r:.80}",
    )


def as_real(value: Any) -> float | None:
    """`value` as a float if it is a real number (int, float, numpy number; not a bool),
    an int past float's range as ±inf; None for anything else (for a check whose own
    message says what it expects)."""
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:  # an int past float's range
            return math.inf if value > 0 else -math.inf
    return None


def real_number(api: str, tag: object, argument: str, value: Any) -> float:
    """`value` as a float: an int, float or numpy number (not a bool), else a TypeError."""
    number = as_real(value)
    if number is not None:
        return number
    raise input_error(
        TypeError, api, tag, argument, f"expected a number, got {type(value).__name__} {value!r:.80}"
    )


def positive_seconds(api: str, tag: object, argument: str, value: Any) -> float:
    """`value` as a positive, finite number of seconds (a float); else a ValueError."""
    seconds = as_real(value)
    if seconds is not None and 0 < seconds < math.inf:
        return seconds
    raise input_error(
        ValueError, api, tag, argument, f"expected a positive number of seconds, got {value!r:.80}"
    )


def check_flag(api: str, tag: object, argument: str, flag: Any) -> bool:
    """A yes/no argument as a bool: a bool, numpy bool or int (an array's truth is
    ambiguous, and a string's is almost always a mistake); else a TypeError."""
    if isinstance(flag, (bool, int, np.bool_, np.integer)):
        return bool(flag)
    raise input_error(
        TypeError, api, tag, argument, f"expected a bool, got {type(flag).__name__} {flag!r:.80}"
    )


def check_writer(api: str, writer: Any) -> None:
    """`writer` is None or a summarylib writer (it has `submit`); else a TypeError."""
    if writer is not None and not callable(getattr(writer, "submit", None)):
        raise input_error(
            TypeError, api, None, "writer", f"expected a summarylib writer, got {type(writer).__name__}"
        )


def check_kinds(
    api: str,
    log: str | Sequence[str] | None,
    kinds: Sequence[str],
    unavailable: Mapping[str, str] | None = None,
) -> tuple[str, ...]:
    """The kinds of view a watch's `log` names, in the order of `kinds`: one of them,
    "all", a list of them, or None (no views). A kind in `unavailable` is a ValueError
    saying why (its value), any other name a ValueError listing `kinds` (a TypeError for
    what is neither a str nor an iterable)."""
    if log is None:
        return ()
    expected = f"expected 'all', one of {list(kinds)}, a list of them or None, got"
    if not isinstance(log, Iterable):
        raise input_error(TypeError, api, None, "log", f"{expected} {type(log).__name__} {log!r:.80}")
    names = tuple(kinds) if log == "all" else (log,) if isinstance(log, str) else tuple(log)
    for kind, reason in (unavailable or {}).items():
        if kind in names:
            raise input_error(ValueError, api, None, "log", reason)
    if any(name not in kinds for name in names):
        raise input_error(ValueError, api, None, "log", f"{expected} {log!r}")
    return tuple(kind for kind in kinds if kind in names)
