"""TF 1.x's `simple_value` scalar event, laid out by hand: the event maker of torch's and
tensorboardX's `add_scalar` (their default, v1 style).

An event is `Event{wall_time, step, summary: {value: [{tag, simple_value}]}}` with no
metadata, the float32 value in a fixed32 field. The bytes around the value depend only
on the tag and are built once per tag; the result is byte for byte what the generated
code serializes (tests/test_scalar_batches.py and the compat.torch tests prove it), so third-party readers
such as TensorBoard's `EventAccumulator.Scalars()` read it as they read torch's files.
"""

from __future__ import annotations

import functools
import struct

import numpy as np

from summarylib.format.wire import (
    EVENT_STEP,
    EVENT_SUMMARY,
    SUMMARY_VALUE,
    VALUE_SIMPLE_VALUE,
    VALUE_TAG,
    WALL_TIME,
    WALL_TIME_KEY,
    length_delimited,
    varint,
)
from summarylib.ops.scalar import encoding as scalar_encoding
from summarylib.ops.scalar.encoding import float32_bytes
from summarylib.writer.event_codec import BATCH_MAKERS, event_head

_FLOAT32 = struct.Struct("<f")


@functools.lru_cache(maxsize=4096)
def _before_value(tag: str) -> bytes:
    """The bytes of a simple_value event after its wall time and step and before its four
    value bytes (the last field: nothing follows them)."""
    tag_field = length_delimited(VALUE_TAG, tag.encode("utf-8"))
    value_size = len(tag_field) + 1 + 4
    summary_head = SUMMARY_VALUE + varint(value_size)
    summary_size = len(summary_head) + value_size
    return EVENT_SUMMARY + varint(summary_size) + summary_head + tag_field + VALUE_SIMPLE_VALUE


def simple_value_event(wall_time: float, step: int, tag: str, value: float) -> bytes:
    """The serialized Event of one v1 scalar (an event maker for the writer's queue).

    Values beyond float32's range become ±inf, as a float32 cast makes them.
    """
    try:
        packed = _FLOAT32.pack(value)
    except OverflowError:
        packed = float32_bytes(value)
    if wall_time > 0 and 0 < step < 0x80:  # the usual case early in a run, without calls
        return b"".join(
            (WALL_TIME.pack(WALL_TIME_KEY, wall_time), EVENT_STEP, bytes((step,)), _before_value(tag), packed)
        )
    return b"".join((event_head(wall_time, step), _before_value(tag), packed))


def _around_simple_value(tag: str) -> tuple[bytes, bytes]:
    """The bytes of a simple_value event before and after its value (nothing after)."""
    return _before_value(tag), b""


def simple_value_events(
    items: list[tuple[float, int, tuple[str, float]]],
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Many `simple_value_event`s at once, byte for byte (see ops.scalar.encoding.batch_events):
    add_scalar's events are encoded by the writer's thread with numpy, as the v2 op's
    are, not one by one (2.1 -> 0.7 µs of its time each)."""
    return scalar_encoding.batch_events(items, _around_simple_value, simple_value_event)


BATCH_MAKERS[simple_value_event] = simple_value_events
# add_scalar's events in the writer's scalar lane (see summarylib.writer.scalar_stream).
SIMPLE_VALUE_COLUMNS = scalar_encoding.ScalarColumns(_around_simple_value, simple_value_event, ())
