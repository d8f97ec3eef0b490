"""The scalar op's encoding: a float32 tensor of shape [] for TensorBoard's scalars plugin.

Same bytes as TensorFlow 2's `tf.summary.scalar`: `DT_FLOAT`, an empty (present) shape,
the value in `tensor_content`, and metadata naming the `scalars` plugin with empty content.
Scalars are the most frequent event, so `scalar_event` writes the whole Event by hand
around per-tag bytes built once with the generated code.
"""

from __future__ import annotations

import functools
import math
import struct

from summarylib.proto import summary_pb2, tensor_pb2, types_pb2
from summarylib.writer.event_codec import event_head, length_delimited, varint

PLUGIN_NAME = "scalars"

_FLOAT32 = struct.Struct("<f")
_WALL_TIME = struct.Struct("<Bd")  # Event.wall_time's key, then the double
# TensorProto{dtype: DT_FLOAT, tensor_shape: {}, tensor_content: <4 bytes>} up to its content.
_TENSOR_FIELD = b"\x42\x0a\x08\x01\x12\x00\x22\x04"
_VALUE_TAG = b"\x0a"  # Summary.Value.tag
_VALUE_METADATA = b"\x4a"  # Summary.Value.metadata
_SUMMARY_VALUE = b"\x0a"  # Summary.value
_EVENT_SUMMARY = b"\x2a"  # Event.summary


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
    tag_field = length_delimited(_VALUE_TAG, tag.encode("utf-8"))
    metadata_field = length_delimited(_VALUE_METADATA, create_metadata(description).SerializeToString())
    value_size = len(tag_field) + len(_TENSOR_FIELD) + 4 + len(metadata_field)
    summary_head = _SUMMARY_VALUE + varint(value_size)
    summary_size = len(summary_head) + value_size
    return _EVENT_SUMMARY + varint(summary_size) + summary_head + tag_field + _TENSOR_FIELD, metadata_field


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
        return b"".join((_WALL_TIME.pack(9, wall_time), b"\x10", step_bytes, before, packed, after))
    return b"".join((event_head(wall_time, step), before, packed, after))
