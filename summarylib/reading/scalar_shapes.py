"""Scalar shapes: the byte layout of one kind of scalar event, learnt from one parsed example.

The first half of the byte-level fast path. A protobuf message per event costs microseconds;
an event that is one float32/float64 scalar of a named tag, with nothing but a wall time and
a step besides, has a `ScalarShape`: which bytes are fixed and where the wall time, step and
value lie, so that records matching it (scalar_matching) are read with numpy all at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from google.protobuf.message import DecodeError

from summarylib.format.wire import FIXED32, FIXED64, LENGTH_DELIMITED, VARINT, read_varint
from summarylib.proto import event_pb2, summary_pb2, types_pb2
from summarylib.reading.plugins import plugin_claim


def _fields(data: bytes, start: int, end: int) -> dict[int, tuple[int, int, int]]:
    """{field number: (wire type, value start, value end)} of a message in `data[start:end]`;
    ValueError if it is malformed or repeats a field."""
    fields = {}
    pos = start
    while pos < end:
        key, pos = read_varint(data, pos, end)
        number, wire = key >> 3, key & 7
        if wire == VARINT:
            value_start, (_, pos) = pos, read_varint(data, pos, end)
        elif wire in (FIXED64, FIXED32):
            value_start, pos = pos, pos + (8 if wire == FIXED64 else 4)
        elif wire == LENGTH_DELIMITED:
            length, value_start = read_varint(data, pos, end)
            pos = value_start + length
        else:
            raise ValueError("unexpected wire type")
        if pos > end or number in fields:
            raise ValueError("field cut short or repeated")
        fields[number] = (wire, value_start, pos)
    return fields


def _only(fields: dict, allowed: dict[int, int]) -> bool:
    """Whether every field is one of `allowed` ({number: wire type}) with its wire type."""
    return all(allowed.get(number) == wire for number, (wire, _, _) in fields.items())


# Where a float32/float64 scalar TensorProto keeps its value: {dtype: {(field, wire type): size}}
# for tensor_content, packed float_val/double_val and unpacked float_val/double_val.
_SCALAR_VALUE_FIELDS: dict[int, dict[tuple[int, int], int]] = {
    types_pb2.DT_FLOAT: {(4, LENGTH_DELIMITED): 4, (5, LENGTH_DELIMITED): 4, (5, FIXED32): 4},
    types_pb2.DT_DOUBLE: {(4, LENGTH_DELIMITED): 8, (6, LENGTH_DELIMITED): 8, (6, FIXED64): 8},
}


def _tensor_value_column(payload: bytes, start: int, end: int) -> tuple[int, np.dtype] | None:
    """Where the one value of a float32/float64 TensorProto of shape [] lies, and its dtype;
    None for any other tensor."""
    fields = _fields(payload, start, end)
    if fields.get(1, (None,))[0] != VARINT or fields.get(2, (LENGTH_DELIMITED,))[0] != LENGTH_DELIMITED:
        return None
    dtype, _ = read_varint(payload, fields[1][1], fields[1][2])
    if dtype not in _SCALAR_VALUE_FIELDS or (2 in fields and fields[2][1] != fields[2][2]):
        return None  # another dtype, or a shape with dimensions
    content = {number: spec for number, spec in fields.items() if number not in (1, 2)}
    if len(content) != 1:
        return None
    ((number, (wire, value_start, value_end)),) = content.items()
    size = _SCALAR_VALUE_FIELDS[dtype].get((number, wire))
    if size is None or value_end - value_start != size:
        return None
    return value_start, np.dtype("<f4" if size == 4 else "<f8")


@dataclass(frozen=True)
class ScalarShape:
    """The layout of one kind of scalar event: `Event{wall_time, step, summary{value{tag,
    simple_value or scalar tensor, metadata}}}` with nothing else, for one tag and one set of
    field positions. Records with the same bytes outside `variable` have the same meaning."""

    tag: str
    claim: str | None  # the plugin its value claims for the tag (see `plugin_claim`)
    kind: str  # "simple_value" or "tensor"
    length: int
    wall: int  # byte column of wall_time, -1 when absent
    step: tuple[int, int]  # byte column and width of the step varint, (-1, 0) when absent
    value: int  # byte column of the value
    dtype: np.dtype  # of the value: <f4 or <f8
    mask: np.ndarray = field(repr=False, compare=False)  # uint64 words: 1 bits where bytes are fixed
    pattern: np.ndarray = field(repr=False, compare=False)  # the fixed bytes, as masked words

    @property
    def variable(self) -> tuple:
        """The byte ranges that differ between records of this layout."""
        return (self.wall, self.step, self.value, self.dtype.itemsize)

    def varints_end_at_width(self, rows: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """Per row at `positions`, whether its step varint is exactly `step` bytes wide."""
        column, width = self.step
        if width == 0:
            return np.ones(len(positions), bool)
        ok = _columns(rows, positions, column + width - 1, 1)[:, 0] < 0x80
        if width > 1:
            ok &= (_columns(rows, positions, column, width - 1) >= 0x80).all(axis=1)
        return ok

    def columns(self, rows: np.ndarray, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(step int64, wall_time float64, value float64) of the rows at `positions`."""
        count = len(positions)
        wall = (
            _columns(rows, positions, self.wall, 8).view("<f8").reshape(count)
            if self.wall >= 0
            else np.zeros(count)
        )
        column, width = self.step
        step = np.zeros(count, np.uint64)
        if width:
            varint = _columns(rows, positions, column, width)
            for k in range(width):
                step |= (varint[:, k] & 0x7F).astype(np.uint64) << np.uint64(7 * k)
        size = self.dtype.itemsize
        value = _columns(rows, positions, self.value, size).view(self.dtype).reshape(count)
        return step.view(np.int64), wall.astype(np.float64), value.astype(np.float64)


def _columns(rows: np.ndarray, positions: np.ndarray, start: int, width: int) -> np.ndarray:
    """A contiguous copy of byte columns `start:start + width` of the rows at `positions`."""
    if len(positions) == len(rows):  # every row, in order
        return np.ascontiguousarray(rows[:, start : start + width])
    return rows[positions, start : start + width]


def _event_layout(payload: bytes) -> tuple[int, tuple[int, int], int, int] | None:
    """(wall column, step column and width, value start, value end) of a single-value summary
    event with nothing but wall_time, step and summary; None for any other event."""
    event = _fields(payload, 0, len(payload))
    if 5 not in event or not _only(event, {1: FIXED64, 2: VARINT, 5: LENGTH_DELIMITED}):
        return None
    wall = event[1][1] if 1 in event else -1
    step = (event[2][1], event[2][2] - event[2][1]) if 2 in event else (-1, 0)
    summary = _fields(payload, event[5][1], event[5][2])
    if list(summary) != [1] or summary[1][0] != LENGTH_DELIMITED:
        return None
    return wall, step, summary[1][1], summary[1][2]


def scalar_shape(payload: bytes) -> ScalarShape | None:
    """The ScalarShape of an event that is one float32/float64 scalar of a named tag (as a
    simple_value or a tensor of shape []), or None for any other event."""
    try:
        layout = _event_layout(payload)
        if layout is None:
            return None
        wall, step, start, end = layout
        fields = _fields(payload, start, end)
        allowed = {1: LENGTH_DELIMITED, 2: FIXED32, 8: LENGTH_DELIMITED, 9: LENGTH_DELIMITED}
        if not _only(fields, allowed) or (2 in fields) == (8 in fields) or 1 not in fields:
            return None
        if 2 in fields:
            kind, column, dtype = "simple_value", fields[2][1], np.dtype("<f4")
        else:
            found = _tensor_value_column(payload, fields[8][1], fields[8][2])
            if found is None:
                return None
            kind, (column, dtype) = "tensor", found
        value = event_pb2.Event.FromString(payload).summary.value[0]
    except (ValueError, DecodeError):
        return None
    if not value.tag:
        return None
    return _make_shape(payload, value, kind, wall, step, column, dtype)


def _make_shape(
    payload: bytes,
    value: summary_pb2.Summary.Value,
    kind: str,
    wall: int,
    step: tuple[int, int],
    column: int,
    dtype: np.dtype,
) -> ScalarShape:
    """A ScalarShape whose fixed bytes are those of `payload`."""
    length = len(payload)
    width = (length + 7) // 8 * 8
    fixed = np.zeros(width, np.uint8)
    fixed[:length] = 0xFF
    for start, size in ((wall, 8 if wall >= 0 else 0), step, (column, dtype.itemsize)):
        fixed[start : start + size] = 0
    row = np.zeros(width, np.uint8)
    row[:length] = np.frombuffer(payload, np.uint8)
    mask = fixed.view("<u8")
    return ScalarShape(
        value.tag, plugin_claim(value), kind, length, wall, step, column, dtype, mask, row.view("<u8") & mask
    )
