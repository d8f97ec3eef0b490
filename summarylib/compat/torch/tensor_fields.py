"""Tensors laid out as torch's writer lays them out: the values in the repeated field of
their dtype (`float_val`, `double_val`, `int_val`, `int64_val`, `bool_val`), where the
native ops write TF 2's packed `tensor_content`. TensorBoard reads both; readers written
for torch's files (`value.tensor.float_val[0]` for a `new_style` scalar, DataFrame
readers of PR curves and meshes) read only the first, so the drop-in writes it.

torch writes a `new_style` scalar without a shape, PR curves and meshes as `DT_FLOAT`
(a mesh's integer faces and colors too), and `add_tensor` in the tensor's own dtype.
Tensors of other dtypes (float16, bfloat16, uint8, complex) keep `tensor_content`:
torch's records of them cannot be read back (see test_compat_torch_differential.py).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from summarylib.proto import summary_pb2, tensor_pb2, types_pb2

# DataType: (numpy dtype of its tensor_content, the repeated field torch writes).
_FIELDS = {
    types_pb2.DT_FLOAT: (np.float32, "float_val"),
    types_pb2.DT_DOUBLE: (np.float64, "double_val"),
    types_pb2.DT_INT8: (np.int8, "int_val"),
    types_pb2.DT_INT16: (np.int16, "int_val"),
    types_pb2.DT_INT32: (np.int32, "int_val"),
    types_pb2.DT_INT64: (np.int64, "int64_val"),
    types_pb2.DT_BOOL: (np.bool_, "bool_val"),
}
_CONTENT_TYPES = {
    types_pb2.DT_UINT8: np.uint8,
    types_pb2.DT_UINT16: np.uint16,
    types_pb2.DT_UINT32: np.uint32,
    types_pb2.DT_UINT64: np.uint64,
    **{dtype: numpy_type for dtype, (numpy_type, _) in _FIELDS.items()},
}
_SCALARS_METADATA = summary_pb2.SummaryMetadata(
    plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars")
)


def _as_repeated(tensor: tensor_pb2.TensorProto, as_float: bool) -> None:
    """Move `tensor`'s packed content into its dtype's repeated field (float32's with
    `as_float`), where torch writes one."""
    if not tensor.tensor_content or tensor.dtype not in _CONTENT_TYPES:
        return
    array: np.ndarray = np.frombuffer(tensor.tensor_content, _CONTENT_TYPES[tensor.dtype])
    if as_float:
        tensor.dtype, array = types_pb2.DT_FLOAT, array.astype(np.float32)
    elif tensor.dtype not in _FIELDS:
        return
    tensor.ClearField("tensor_content")
    getattr(tensor, _FIELDS[tensor.dtype][1]).extend(array.tolist())


def torch_layout(make_summary: Callable[..., bytes], args: tuple, as_float: bool = False) -> bytes:
    """The Summary `make_summary(*args)` makes (serialized), its tensors laid out as
    torch lays them out (see the module docstring); made on the writer's thread."""
    summary = summary_pb2.Summary.FromString(make_summary(*args))
    for value in summary.value:
        if value.HasField("tensor"):
            _as_repeated(value.tensor, as_float)
    return summary.SerializeToString()


def scalar_tensor_summary(tag: str, value: float, double_precision: bool) -> bytes:
    """torch's `new_style` scalar: one float (a double with `double_precision`) in a
    tensor without a shape, with the scalars plugin's metadata."""
    if double_precision:
        tensor = tensor_pb2.TensorProto(dtype=types_pb2.DT_DOUBLE, double_val=[value])
    else:
        tensor = tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, float_val=[value])
    summary_value = summary_pb2.Summary.Value(tag=tag, tensor=tensor, metadata=_SCALARS_METADATA)
    return summary_pb2.Summary(value=[summary_value]).SerializeToString()
