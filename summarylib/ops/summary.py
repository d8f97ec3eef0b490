"""Serialized `Summary` messages of one value: what every op hands to the writer."""

from __future__ import annotations

from summarylib.proto import summary_pb2, tensor_pb2


def summary_bytes(
    tag: str, tensor: tensor_pb2.TensorProto, metadata: summary_pb2.SummaryMetadata | None
) -> bytes:
    """A serialized Summary of one tensor value with its metadata."""
    value = summary_pb2.Summary.Value(tag=tag, tensor=tensor)
    if metadata is not None:
        value.metadata.CopyFrom(metadata)
    return summary_pb2.Summary(value=[value]).SerializeToString()
