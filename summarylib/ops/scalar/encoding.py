"""The scalar op's encoding: a float32 tensor of shape [] for TensorBoard's scalars plugin.

Same bytes as TensorFlow 2's `tf.summary.scalar`: `DT_FLOAT`, an empty (present) shape,
the value in `tensor_content`, and metadata naming the `scalars` plugin with empty content.
Scalars are the most frequent event, so `scalar_event` writes the whole Event by hand
around per-tag bytes built once with the generated code.
"""

from __future__ import annotations

import functools
import itertools
import math
import struct
from collections.abc import Callable
from typing import Any

import numpy as np

from summarylib.format.wire import (
    EVENT_STEP,
    EVENT_SUMMARY,
    SUMMARY_VALUE,
    VALUE_METADATA,
    VALUE_TAG,
    WALL_TIME,
    WALL_TIME_KEY,
    length_delimited,
    varint,
)
from summarylib.proto import summary_pb2, tensor_pb2, types_pb2
from summarylib.writer.event_codec import BATCH_MAKERS, event_head

PLUGIN_NAME = "scalars"

_FLOAT32 = struct.Struct("<f")
# TensorProto{dtype: DT_FLOAT, tensor_shape: {}, tensor_content: <4 bytes>} up to its content.
_TENSOR_FIELD = b"\x42\x0a\x08\x01\x12\x00\x22\x04"


def create_metadata(description: str | None = None) -> summary_pb2.SummaryMetadata:
    """The scalars plugin's metadata, with the user's description if any."""
    metadata = summary_pb2.SummaryMetadata(summary_description=description or "")
    metadata.plugin_data.plugin_name = PLUGIN_NAME
    return metadata


def tensor(value: float) -> tensor_pb2.TensorProto:
    """The float32 scalar tensor of `value`."""
    return tensor_pb2.TensorProto(
        dtype=types_pb2.DT_FLOAT, tensor_shape={}, tensor_content=float32_bytes(value)
    )


def float32_bytes(value: float) -> bytes:
    """`value` as little-endian float32, overflowing to ±inf as a float32 cast does."""
    try:
        return _FLOAT32.pack(value)
    except OverflowError:  # raised only when the value rounds to infinity
        return _FLOAT32.pack(math.copysign(math.inf, value))


@functools.lru_cache(maxsize=4096)
def _around_value(tag: str, description: str | None) -> tuple[bytes, bytes]:
    """The bytes of a scalar event after its wall time and step and before its 4 value
    bytes, and the bytes after them: built once per tag."""
    tag_field = length_delimited(VALUE_TAG, tag.encode("utf-8"))
    metadata_field = length_delimited(VALUE_METADATA, create_metadata(description).SerializeToString())
    value_size = len(tag_field) + len(_TENSOR_FIELD) + 4 + len(metadata_field)
    summary_head = SUMMARY_VALUE + varint(value_size)
    summary_size = len(summary_head) + value_size
    return EVENT_SUMMARY + varint(summary_size) + summary_head + tag_field + _TENSOR_FIELD, metadata_field


def scalar_event(wall_time: float, step: int, tag: str, value: float, description: str | None) -> bytes:
    """The serialized Event of one scalar, identical to the generated code's; the event
    maker of the scalar op (see summarylib.writer.event_codec)."""
    before, after = _around_value(tag, description)
    try:
        packed = _FLOAT32.pack(value)
    except OverflowError:
        packed = float32_bytes(value)
    if wall_time > 0 and 0 < step < 0x200000:  # the usual case, without calls
        step_bytes = bytes((step,)) if step < 0x80 else varint(step)
        return b"".join(
            (WALL_TIME.pack(WALL_TIME_KEY, wall_time), EVENT_STEP, step_bytes, before, packed, after)
        )
    return b"".join((event_head(wall_time, step), before, packed, after))


def _varint_lengths(steps: np.ndarray) -> np.ndarray:
    """Bytes of each positive step's varint."""
    lengths = np.ones(steps.shape, np.int64)
    for shift in range(7, 63, 7):
        lengths += steps >= (1 << shift)
    return lengths


def _event_rows(
    walls: np.ndarray, steps: np.ndarray, values: np.ndarray, varint_length: int, before: bytes, after: bytes
) -> np.ndarray:
    """Scalar events of one tag whose steps' varints have one length, as uint8 rows: the
    bytes of scalar_event, laid out column by column."""
    count = len(walls)
    step_end = 10 + varint_length
    value_start = step_end + len(before)
    rows = np.empty((count, value_start + 4 + len(after)), np.uint8)
    rows[:, 0] = WALL_TIME_KEY
    rows[:, 1:9] = walls.astype("<f8").view(np.uint8).reshape(count, 8)
    rows[:, 9] = EVENT_STEP[0]
    for index in range(varint_length):
        digit = (steps >> (7 * index)) & 0x7F
        rows[:, 10 + index] = digit | (0x80 if index < varint_length - 1 else 0)
    rows[:, step_end:value_start] = np.frombuffer(before, np.uint8)
    with np.errstate(over="ignore"):  # beyond float32: ±inf, as a float32 cast gives
        rows[:, value_start : value_start + 4] = values.astype("<f4").view(np.uint8).reshape(count, 4)
    rows[:, value_start + 4 :] = np.frombuffer(after, np.uint8)
    return rows


Around = Callable[..., tuple[bytes, bytes]]
# Distinct step varint lengths (0 marks an event made one by one: a step or wall time
# that is not positive), so a group key can hold a tag's index and a length.
_LENGTHS = 11


def scalar_events(items: list[tuple]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Many scalar events at once (the batch form of scalar_event): `(positions, rows)`
    pairs, the rows holding the events of `items[positions]`, byte for byte."""
    return batch_events(items, _around_value, scalar_event)


def batch_events(
    items: list[tuple], around: Around, make_event: Callable[..., bytes]
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The batch form of an event maker whose events are `wall_time, step, before, the
    float32 value, after`, for items `(wall_time, step, args, ...)` whose args are
    `(tag, value, *rest)`: `around(tag, *rest)` gives `(before, after)`. Events that
    need another head (a zero or negative step or wall time) are made one by one by
    `make_event`.

    Column by column, without a Python loop over the items: the writer's thread encodes
    every scalar this way, and its time is taken from the caller's loop (one GIL).
    """
    walls = [item[0] for item in items]
    steps = [item[1] for item in items]
    arguments = [item[2] for item in items]
    tags = [args[0] for args in arguments]
    rest_fields = [[args[field] for args in arguments] for field in range(2, len(arguments[0]))]
    if all(field.count(field[0]) == len(tags) for field in rest_fields):  # one description
        keys: list = tags
        rests: tuple | None = tuple(field[0] for field in rest_fields)
    else:
        keys, rests = list(zip(tags, *rest_fields, strict=True)), None

    def key_parts(key: Any) -> tuple[str, tuple]:
        return (key, rests) if rests is not None else (key[0], key[1:])

    def one(position: int) -> bytes:
        return make_event(walls[position], steps[position], *arguments[position])

    values = [args[1] for args in arguments]
    return _column_events(walls, steps, values, keys, key_parts, around, one)


class ScalarColumns:
    """The batch form of an event maker like scalar_event, for events given as columns
    (the writer's scalar lane, see summarylib.writer.scalar_stream) whose arguments after
    the value are the same for all: `rest`."""

    def __init__(self, around: Around, make_event: Callable[..., bytes], rest: tuple) -> None:
        self.around = around
        self.make_event = make_event
        self.rest = rest

    def events(
        self, walls: list, steps: list, tags: list, values: list
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """The events as `(positions, rows)` pairs (see batch_events)."""
        rest = self.rest

        def one(position: int) -> bytes:
            return self.make_event(walls[position], steps[position], tags[position], values[position], *rest)

        return _column_events(walls, steps, values, tags, lambda tag: (tag, rest), self.around, one)


def _column_events(
    walls: list,
    steps: list,
    values: list,
    keys: list,
    key_parts: Callable[[Any], tuple[str, tuple]],
    around: Around,
    one: Callable[[int], bytes],
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Events grouped by key (a tag, or a tag and its other arguments: `key_parts(key)`
    gives both) and step varint length, each group's rows laid out with numpy; `one(i)`
    makes event `i` alone (a step or wall time that is not positive)."""
    count = len(keys)
    walls_array = np.array(walls, np.float64)
    steps_array = np.array(steps, np.int64)
    values_array = np.array(values, np.float64)
    lengths = np.where((walls_array > 0) & (steps_array > 0), _varint_lengths(steps_array), 0)
    if keys.count(keys[0]) == count:  # one tag (a count of equal objects: no hashing)
        unique, group_keys = [keys[0]], lengths
    else:
        unique = list(dict.fromkeys(keys))
        index = {key: number for number, key in enumerate(unique)}
        group_keys = np.fromiter(map(index.__getitem__, keys), np.int64, count) * _LENGTHS + lengths
    if group_keys.min() == group_keys.max():  # the usual batch: one tag, one step length
        order, bounds = np.arange(count), [0, count]
    else:
        order = np.argsort(group_keys, kind="stable")
        bounds = [0, *(np.flatnonzero(np.diff(group_keys[order])) + 1).tolist(), count]
    groups = []
    for start, end in itertools.pairwise(bounds):
        positions = order[start:end]
        key, length = divmod(int(group_keys[positions[0]]), _LENGTHS)
        if length:
            tag, rest = key_parts(unique[key])
            before, after = around(tag, *rest)
            rows = _event_rows(
                walls_array[positions], steps_array[positions], values_array[positions], length, before, after
            )
            groups.append((positions, rows))
            continue
        for position in positions.tolist():  # zero or negative steps or wall times: one by one
            event = np.frombuffer(one(position), np.uint8).reshape(1, -1)
            groups.append((np.array([position], np.intp), event))
    return groups


V2_COLUMNS = ScalarColumns(_around_value, scalar_event, (None,))  # the scalar op, no description
BATCH_MAKERS[scalar_event] = scalar_events
