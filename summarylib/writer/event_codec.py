"""Serialize Event records around an already serialized Summary, without building protos.

An event is written for every logged value, so this is the writer's hot path: the bytes
are laid out by hand in protobuf wire format, fields in number order as protobuf itself
writes them, so a parse and re-serialization gives the same bytes
(tests/test_event_codec.py proves it against the generated code).
"""

from __future__ import annotations

import math
import struct

_WALL_TIME = b"\x09"  # field 1, fixed64
_STEP = b"\x10"  # field 2, varint
_SUMMARY = b"\x2a"  # field 5, length-delimited
_DOUBLE = struct.Struct("<d")
_U64 = (1 << 64) - 1


def varint(value: int) -> bytes:
    """Protobuf base-128 varint; negative int64 values take ten bytes, as in protobuf."""
    value &= _U64
    if value < 0x80:
        return bytes((value,))
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def length_delimited(field_key: bytes, payload: bytes) -> bytes:
    """A length-delimited field: key, varint length, payload."""
    return field_key + varint(len(payload)) + payload


def summary_event(wall_time: float, step: int, summary: bytes) -> bytes:
    """Serialized `Event{wall_time, step, summary}`; proto3 omits zero wall_time and step."""
    parts = []
    if wall_time or math.copysign(1.0, wall_time) < 0:  # -0.0 is written, as protobuf does
        parts.append(_WALL_TIME + _DOUBLE.pack(wall_time))
    if step:
        parts.append(_STEP + varint(step))
    parts.append(_SUMMARY + varint(len(summary)) + summary)
    return b"".join(parts)
