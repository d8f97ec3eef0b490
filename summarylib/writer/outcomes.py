"""What became of a writer's events: the counters `stats()` reports, the error that
`flush()`/`close()` raise, and the description of an event dropped because it failed to
encode (which op, which tag), so the warning names what the user logged."""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from dataclasses import dataclass


class WriterError(RuntimeError):
    """Writing events failed in the background; raised by flush() and close()."""


class EventDropped(ValueError):
    """One event failed to encode on the writer's thread and was dropped alone."""


@dataclass
class WriterStats:
    """Counters of one writer, for monitoring a long run.

    Every event queued is, once the queue is drained, exactly one of: written
    (`events_written`), lost because writing it to the file failed (`events_lost`: a full
    disk, a deleted or unwritable logdir; the file keeps only whole records), or dropped
    because it failed to encode (`events_dropped`: each such event alone, its neighbours
    written).
    """

    events_queued: int
    events_written: int
    bytes_written: int
    queue_high_water_bytes: int
    errors: int
    last_error: str | None
    path: str
    events_lost: int = 0
    events_dropped: int = 0


def error_text(error: BaseException) -> str:
    """`error` for a message: its type and text, with the file name an OSError carries
    (its repr leaves the name out)."""
    return f"{type(error).__name__}: {error}"


_FUNCTIONS = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, functools.partial)


def describe(make_event: Callable[..., object], args: tuple) -> tuple[str, str | None]:
    """(op, tag) of a queued item, for messages: the innermost event or summary maker
    among `args` (wrappers such as `event_of_summary(make_summary, *args)` or a series
    event pass theirs on) names the op (the folder or module of `summarylib.ops.<op>`,
    else the maker's name), and the first string after it is the tag."""
    maker, rest = make_event, args
    while True:
        inner = next((i for i, arg in enumerate(rest) if isinstance(arg, _FUNCTIONS)), None)
        if inner is None:
            break
        maker, rest = rest[inner], rest[inner + 1 :]
        if len(rest) == 1 and isinstance(rest[0], tuple):  # a maker and its args, as one tuple
            rest = rest[0]
    module = getattr(maker, "__module__", None) or ""
    name = getattr(maker, "__name__", None) or type(maker).__name__
    op = module.split(".")[2] if module.startswith("summarylib.ops.") else name
    tag = next((arg for arg in rest if isinstance(arg, str)), None)
    return op, tag


def dropped(make_event: Callable[..., object], args: tuple, error: BaseException) -> EventDropped:
    """The error recorded for an event that failed to encode, naming its op and tag."""
    op, tag = describe(make_event, args)
    where = f"summarylib.{op}" if tag is None else f"summarylib.{op}: tag {tag!r}"
    dropped_error = EventDropped(f"{where}: the event failed to encode and was dropped: {error_text(error)}")
    dropped_error.__cause__ = error
    return dropped_error
