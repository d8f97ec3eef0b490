"""The scalar op's encoding: a float32 tensor of shape [] for TensorBoard's scalars plugin.

Same bytes as TensorFlow 2's `tf.summary.scalar`: `DT_FLOAT`, an empty (present) shape,
the value in `tensor_content`, and metadata naming the `scalars` plugin with empty content.
Scalars are the most frequent event, so `scalar_summary` writes the Summary by hand
around per-tag bytes built once with the generated code.
"""

from __future__ import annotations

import functools
import math
import struct

from summarylib.proto import summary_pb2, tensor_pb2, types_pb2
from summarylib.writer.event_codec import length_delimited, varint

PLUGIN_NAME = "scalars"

_FLOAT32 = struct.Struct("<f")
# TensorProto{dtype: DT_FLOAT, tensor_shape: {}, tensor_content: <4 bytes>} up to its content.
_TENSOR_FIELD = b"\x42\x0a\x08\x01\x12\x00\x22\x04"
_VALUE_TAG = b"\x0a"  # Summary.Value.tag
_VALUE_METADATA = b"\x4a"  # Summary.Value.metadata
_SUMMARY_VALUE = b"\x0a"  # Summary.value


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
def _summary_around_value(tag: str, description: str | None) -> tuple[bytes, bytes]:
    """The bytes of a scalar Summary before and after its 4 value bytes, built once per tag."""
    tag_field = length_delimited(_VALUE_TAG, tag.encode("utf-8"))
    metadata_field = length_delimited(_VALUE_METADATA, create_metadata(description).SerializeToString())
    value_size = len(tag_field) + len(_TENSOR_FIELD) + 4 + len(metadata_field)
    return _SUMMARY_VALUE + varint(value_size) + tag_field + _TENSOR_FIELD, metadata_field


def scalar_summary(tag: str, value: float, description: str | None) -> bytes:
    """The serialized Summary of one scalar value, identical to the generated code's."""
    before, after = _summary_around_value(tag, description)
    try:
        return before + _FLOAT32.pack(value) + after
    except OverflowError:
        return before + float32_bytes(value) + after
