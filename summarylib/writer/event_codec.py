"""Serialize Event records around an already serialized Summary, without building protos.

The writer's queue holds event makers: `make_event(wall_time, step, *args)` returns a
serialized Event. Ops with a Summary use `event_of_summary`; the scalar op, the most
frequent, makes its whole event from cached bytes (summarylib.ops.scalar).

An event is written for every logged value, so this is the writer's hot path: the bytes
are laid out by hand in protobuf wire format, fields in number order as protobuf itself
writes them, so a parse and re-serialization gives the same bytes
(tests/test_event_codec.py proves it against the generated code).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from typing import Any

_WALL_TIME = struct.Struct("<Bd")  # field 1 (fixed64) key, then the double
_STEP_KEY = b"\x10"  # field 2, varint
_SUMMARY_KEY = b"\x2a"  # field 5, length-delimited
_U64 = (1 << 64) - 1


def varint(value: int) -> bytes:
    """Protobuf base-128 varint; negative int64 values take ten bytes, as in protobuf."""
    if 0 <= value < 0x80:
        return bytes((value,))
    if 0 < value < 0x4000:
        return bytes((value & 0x7F | 0x80, value >> 7))
    if 0 < value < 0x200000:
        return bytes((value & 0x7F | 0x80, (value >> 7) & 0x7F | 0x80, value >> 14))
    value &= _U64
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def length_delimited(field_key: bytes, payload: bytes) -> bytes:
    """A length-delimited field: key, varint length, payload."""
    return field_key + varint(len(payload)) + payload


# Summary field keys with their length, for the lengths summaries usually have.
_SUMMARY_HEADS = [_SUMMARY_KEY + varint(n) for n in range(1 << 12)]


def event_head(wall_time: float, step: int) -> bytes:
    """The wall_time and step fields of an Event; proto3 omits zero values (but writes
    -0.0, as protobuf does)."""
    if wall_time or math.copysign(1.0, wall_time) < 0:
        if step:
            return _WALL_TIME.pack(9, wall_time) + _STEP_KEY + varint(step)
        return _WALL_TIME.pack(9, wall_time)
    return _STEP_KEY + varint(step) if step else b""


def summary_event(wall_time: float, step: int, summary: bytes) -> bytes:
    """Serialized `Event{wall_time, step, summary}`."""
    size = len(summary)
    head = _SUMMARY_HEADS[size] if size < 4096 else _SUMMARY_KEY + varint(size)
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
