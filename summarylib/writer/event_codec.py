"""Serialize Event records around an already serialized Summary, without building protos.

The writer's queue holds event makers: `make_event(wall_time, step, *args)` returns a
serialized Event. Ops with a Summary use `event_of_summary`; the scalar op, the most
frequent, makes its whole event from cached bytes (summarylib.ops.scalar.encoding).

An event is written for every logged value, so this is the writer's hot path: the bytes
are laid out by hand in protobuf wire format, fields in number order as protobuf itself
writes them, so a parse and re-serialization gives the same bytes
(tests/test_event_codec.py proves it against the generated code).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from summarylib.format.wire import EVENT_STEP, EVENT_SUMMARY, WALL_TIME, WALL_TIME_KEY, varint

# Summary field keys with their length, for the lengths summaries usually have.
_SUMMARY_HEADS = [EVENT_SUMMARY + varint(n) for n in range(1 << 12)]


def event_head(wall_time: float, step: int) -> bytes:
    """The wall_time and step fields of an Event; proto3 omits zero values (but writes
    -0.0, as protobuf does)."""
    if wall_time or math.copysign(1.0, wall_time) < 0:
        if step:
            return WALL_TIME.pack(WALL_TIME_KEY, wall_time) + EVENT_STEP + varint(step)
        return WALL_TIME.pack(WALL_TIME_KEY, wall_time)
    return EVENT_STEP + varint(step) if step else b""


def summary_event(wall_time: float, step: int, summary: bytes) -> bytes:
    """Serialized `Event{wall_time, step, summary}`."""
    size = len(summary)
    head = _SUMMARY_HEADS[size] if size < 4096 else EVENT_SUMMARY + varint(size)
    return b"".join((event_head(wall_time, step), head, summary))


def event_of_summary(wall_time: float, step: int, make_summary: Callable[..., bytes], *args: Any) -> bytes:
    """The Event of the Summary `make_summary(*args)` makes: the event maker of most ops."""
    return summary_event(wall_time, step, make_summary(*args))


def raw_event(wall_time: float, step: int, event: bytes) -> bytes:
    """An already serialized Event, as it is: the event maker of write_event."""
    return event


# Event makers that can also make many events at once, vectorized: `encode_many(items)`
# takes `(wall_time, step, args, ...)` tuples (the queue's items, see writer/drain.py) in
# queue order and returns `(positions, rows)` pairs: uint8 arrays whose rows are the
# serialized events (of one length) of `items[positions]`. The writer's worker uses it
# for runs of queued items with one maker and writes the events back in queue order.
BATCH_MAKERS: dict[Callable[..., bytes], Callable[[list[tuple[float, int, tuple]]], list]] = {}
