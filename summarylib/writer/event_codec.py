"""Serialize Event records around an already serialized Summary, without building protos.

An event is written for every logged value, so this is the writer's hot path: the bytes
are laid out by hand in protobuf wire format, fields in number order as protobuf itself
writes them, so a parse and re-serialization gives the same bytes
(tests/test_event_codec.py proves it against the generated code).
"""

from __future__ import annotations

import math
import struct

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


def summary_event(wall_time: float, step: int, summary: bytes) -> bytes:
    """Serialized `Event{wall_time, step, summary}`; proto3 omits zero wall_time and step."""
    size = len(summary)
    head = _SUMMARY_HEADS[size] if size < 4096 else _SUMMARY_KEY + varint(size)
    if wall_time or math.copysign(1.0, wall_time) < 0:  # -0.0 is written, as protobuf does
        if step:
            return b"".join((_WALL_TIME.pack(9, wall_time), _STEP_KEY, varint(step), head, summary))
        return b"".join((_WALL_TIME.pack(9, wall_time), head, summary))
    if step:
        return b"".join((_STEP_KEY, varint(step), head, summary))
    return head + summary
