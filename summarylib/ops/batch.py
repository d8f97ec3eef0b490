"""What the image and audio ops share: data that is a batch of items (images, clips), of
which only the first `max_outputs` are written, as TensorFlow 2 writes them, each encoded
(PNG, WAV) into one string tensor."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from summarylib.format.wire import (
    SUMMARY_VALUE,
    VALUE_METADATA,
    VALUE_TAG,
    VALUE_TENSOR,
    length_delimited,
    varint,
)
from summarylib.ops.convert import snapshot
from summarylib.ops.errors import op_error

_DT_STRING = b"\x08\x07"  # TensorProto.dtype = DT_STRING
_SHAPE = b"\x12"  # TensorProto.tensor_shape
_DIM = b"\x12"  # TensorShapeProto.dim
_DIM_SIZE = b"\x08"  # TensorShapeProto.Dim.size
_STRING_VAL = b"\x42"  # TensorProto.string_val


def check_max_outputs(op: str, tag: str, max_outputs: object) -> int:
    """`max_outputs` as a non-negative int.

    Like TensorFlow, 0 is allowed (the summary then holds no items) and negative values,
    floats and bools are not; numpy integers and 0-d integer tensors are.
    """
    count = None if isinstance(max_outputs, bool) else _index(max_outputs)
    if count is None or count < 0:
        raise op_error(
            TypeError if count is None else ValueError,
            op,
            tag,
            "max_outputs",
            f"expected a non-negative int, got {type(max_outputs).__name__} {max_outputs!r}",
        )
    return count


def _index(value: Any) -> int | None:
    """`value` as an int if it is an integer (Python, numpy, 0-d tensor), else None."""
    try:
        return operator.index(value)
    except TypeError:
        return None


def as_batch(op: str, tag: str, array: np.ndarray, axes: tuple[str, ...]) -> np.ndarray:
    """`array` as a batch whose dimensions are named by `axes` (the first names the batch).

    One item given without the batch dimension, and one given without both the batch and
    the last dimension (a single channel), count as a batch of one; the result is a view.
    """
    rank = len(axes)
    if array.ndim == rank:
        return array
    if array.ndim == rank - 1:
        return array[np.newaxis]
    if array.ndim == rank - 2:
        return array[np.newaxis, ..., np.newaxis]
    expected = f"[{', '.join(axes)}], [{', '.join(axes[1:])}] or [{', '.join(axes[1:-1])}]"
    raise op_error(ValueError, op, tag, "data", f"expected shape {expected}, got shape {list(array.shape)}")


def first(batch: np.ndarray, count: int, data: Any) -> np.ndarray:
    """The first `count` items of `batch` (made from the caller's `data`), snapshotted: only
    what will be written is kept, and changing `data` afterwards changes nothing written."""
    return snapshot(batch[:count], data)


def string_tensor_summary(tag: str, shape: tuple[int, ...], strings: list[bytes], metadata: bytes) -> bytes:
    """A serialized Summary of one value: `tag`, a DT_STRING tensor of `shape` holding
    `strings`, and serialized `metadata`; the bytes the generated code writes.

    Laid out by hand because media summaries hold megabytes of PNG or WAV: the generated
    code copies them at every level of message nesting, this copies them once.
    """
    dims = b"".join(length_delimited(_DIM, _DIM_SIZE + varint(size) if size else b"") for size in shape)
    tensor = [_DT_STRING, length_delimited(_SHAPE, dims)]
    for string in strings:
        tensor += (_STRING_VAL, varint(len(string)), string)
    tensor_size = sum(map(len, tensor))
    value_head = length_delimited(VALUE_TAG, tag.encode("utf-8")) + VALUE_TENSOR + varint(tensor_size)
    value_tail = length_delimited(VALUE_METADATA, metadata)
    value_size = len(value_head) + tensor_size + len(value_tail)
    return b"".join([SUMMARY_VALUE, varint(value_size), value_head, *tensor, value_tail])
