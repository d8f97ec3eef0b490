"""The generic tensor summary (`write`, v1 `tensor_summary`, contrib `generic`): any array
with the caller's SummaryMetadata, encoded as TensorFlow's writer encodes tensors."""

from __future__ import annotations

from typing import Any

import numpy as np

from summarylib.format.tensor import WRITABLE_DTYPES, make_tensor_proto
from summarylib.ops.convert import as_array, snapshot
from summarylib.ops.errors import check_serialized, check_text, op_error
from summarylib.ops.summary import summary_bytes
from summarylib.proto import summary_pb2


def metadata_bytes(op: str, tag: str, metadata: Any) -> bytes | None:
    """`metadata` (a SummaryMetadata of summarylib, TensorBoard or TensorFlow, or its
    bytes) serialized and checked to parse; None for None. An empty SummaryMetadata is
    still written (TF 1.x's tensor_summary writes one), None writes no metadata field."""
    if metadata is None:
        return None
    if isinstance(metadata, bytes):
        serialized = metadata
    elif callable(getattr(metadata, "SerializeToString", None)):
        serialized = metadata.SerializeToString()
    else:
        raise op_error(
            TypeError,
            op,
            tag,
            "metadata",
            f"expected a SummaryMetadata or bytes, got {type(metadata).__name__}",
        )
    return check_serialized(summary_pb2.SummaryMetadata, serialized, op, tag, "metadata")


def _check_writable(op: str, tag: str, array: np.ndarray) -> None:
    """A TypeError unless `array` is numeric (of a dtype a TensorProto holds) or holds only
    strings and bytes; a ValueError for a string that is not valid Unicode."""
    kind = array.dtype.kind
    if kind == "S" or (kind in "biufc" and array.dtype.newbyteorder("=") in WRITABLE_DTYPES):
        return
    if kind in "UO":
        for element in array.reshape(-1).tolist():
            if isinstance(element, str):
                check_text(op, tag, "tensor", element)
            elif not isinstance(element, bytes):
                raise op_error(
                    TypeError,
                    op,
                    tag,
                    "tensor",
                    f"expected numbers or strings, got an element of type {type(element).__name__}",
                )
        return
    raise op_error(TypeError, op, tag, "tensor", f"cannot write dtype {array.dtype} as a tensor")


def prepare(op: str, tag: str, data: Any, metadata: Any) -> tuple[str, np.ndarray, bytes | None]:
    """Check `data` and `metadata` and snapshot `data`, on the caller's thread; returns the
    arguments of `summary`."""
    serialized_metadata = metadata_bytes(op, tag, metadata)
    array = as_array(op, tag, "tensor", data)
    _check_writable(op, tag, array)
    return tag, snapshot(array, data), serialized_metadata


def summary(tag: str, array: np.ndarray, metadata: bytes | None) -> bytes:
    """The serialized Summary of one prepared tensor with its metadata."""
    parsed = None if metadata is None else summary_pb2.SummaryMetadata.FromString(metadata)
    return summary_bytes(tag, make_tensor_proto(array), parsed)
