"""Protobuf's wire format as the hand-laid event bytes need it: varints, length-delimited
fields, the keys of the Event, Summary and Summary.Value fields, and int64's bounds.

The hot paths (scalar events, image and audio batches, graphs) write their bytes without
building protos, and the reader's byte-level scalar path reads them without parsing; both
share these facts, so each key is spelled once. A key is `field number << 3 | wire type`, one byte for the
fields here.
"""

from __future__ import annotations

import struct

# Event (event.proto)
WALL_TIME = struct.Struct("<Bd")  # Event.wall_time: its key (WALL_TIME_KEY), then the double
WALL_TIME_KEY = 0x09  # Event.wall_time: field 1, fixed64
EVENT_STEP = b"\x10"  # Event.step: field 2, varint
EVENT_GRAPH_DEF = b"\x22"  # Event.graph_def: field 4, length-delimited
EVENT_SUMMARY = b"\x2a"  # Event.summary: field 5, length-delimited

# Summary and Summary.Value (summary.proto)
SUMMARY_VALUE = b"\x0a"  # Summary.value: field 1, length-delimited
VALUE_TAG = b"\x0a"  # Summary.Value.tag: field 1, length-delimited
VALUE_SIMPLE_VALUE = b"\x15"  # Summary.Value.simple_value: field 2, fixed32
VALUE_TENSOR = b"\x42"  # Summary.Value.tensor: field 8, length-delimited
VALUE_METADATA = b"\x4a"  # Summary.Value.metadata: field 9, length-delimited

# Wire types: the low three bits of a key.
VARINT, FIXED64, LENGTH_DELIMITED, FIXED32 = 0, 1, 2, 5

# The range of an int64 field such as Event.step.
INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1

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


def read_varint(data: bytes, pos: int, end: int) -> tuple[int, int]:
    """The base-128 varint at `data[pos:end]`: (value, position after it); ValueError if
    it is cut short or longer than ten bytes."""
    result = shift = 0
    while pos < end and shift < 70:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
    raise ValueError("bad varint")
