"""TensorProtos as numpy arrays, read as TensorFlow's `make_ndarray` reads them; their dtype
names and shapes.

Every v2 summary value is a tensor: this is the layer under plugin data, and the only code
that knows the TensorProto's many ways of holding values.
"""

from __future__ import annotations

import numpy as np

from summarylib.ops.tensor import NUMPY_DTYPES
from summarylib.proto import tensor_pb2, types_pb2

_VALUE_FIELDS = {
    types_pb2.DT_FLOAT: "float_val",
    types_pb2.DT_DOUBLE: "double_val",
    types_pb2.DT_INT32: "int_val",
    types_pb2.DT_INT16: "int_val",
    types_pb2.DT_INT8: "int_val",
    types_pb2.DT_UINT8: "int_val",
    types_pb2.DT_UINT16: "int_val",
    types_pb2.DT_INT64: "int64_val",
    types_pb2.DT_UINT32: "uint32_val",
    types_pb2.DT_UINT64: "uint64_val",
    types_pb2.DT_BOOL: "bool_val",
    types_pb2.DT_HALF: "half_val",
    types_pb2.DT_BFLOAT16: "half_val",
}


def dtype_name(dtype: int) -> str:
    """A DataType as numpy names it ("float32", ...), or "string" / "bfloat16"."""
    if dtype == types_pb2.DT_STRING:
        return "string"
    if dtype == types_pb2.DT_BFLOAT16:
        return "bfloat16"
    if dtype in NUMPY_DTYPES:
        return NUMPY_DTYPES[dtype].name
    return types_pb2.DataType.Name(dtype) if dtype in types_pb2.DataType.values() else f"dtype {dtype}"


def tensor_shape(tensor: tensor_pb2.TensorProto) -> tuple[int, ...]:
    """The shape of a TensorProto."""
    return tuple(dim.size for dim in tensor.tensor_shape.dim)


def _fill(values: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """`values` as an array of `shape`, padded with its last value as TensorFlow does (zeros when
    empty)."""
    count = int(np.prod(shape, dtype=np.int64))
    if values.size > count:
        raise ValueError(f"{values.size} values for a tensor of shape {list(shape)}")
    if values.size < count:
        pad = values[-1] if values.size else np.zeros((), values.dtype)
        values = np.concatenate([values, np.full(count - values.size, pad, values.dtype)])
    return values.reshape(shape)


def _bfloat16(bits: np.ndarray) -> np.ndarray:
    """bfloat16 bit patterns as float32 (numpy has no bfloat16)."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


def tensor_array(tensor: tensor_pb2.TensorProto) -> np.ndarray:
    """A TensorProto as a numpy array, as TensorFlow's `make_ndarray` reads it: the values
    fields padded with their last value (zeros when empty), `tensor_content` exactly.

    Strings come back as an object array of `bytes`, bfloat16 as float32.
    ValueError for a dtype numpy cannot hold or contents that do not fit the shape.
    """
    shape = tensor_shape(tensor)
    dtype = tensor.dtype
    if dtype == types_pb2.DT_STRING:
        values = np.empty(len(tensor.string_val), dtype=object)
        values[:] = list(tensor.string_val)
        return _fill(values, shape)
    if dtype == types_pb2.DT_BFLOAT16:
        bits = (
            np.frombuffer(tensor.tensor_content, "<u2")
            if tensor.tensor_content
            else np.array(tensor.half_val, np.uint16)
        )
        return _fill(_bfloat16(bits), shape)
    if dtype not in NUMPY_DTYPES:
        raise ValueError(f"cannot read a tensor of {dtype_name(dtype)}")
    numpy_dtype = NUMPY_DTYPES[dtype]
    if tensor.tensor_content:
        flat = np.frombuffer(tensor.tensor_content, numpy_dtype.newbyteorder("<")).astype(numpy_dtype)
        if flat.size != int(np.prod(shape, dtype=np.int64)):
            raise ValueError(f"tensor_content holds {flat.size} values for a tensor of shape {list(shape)}")
        return flat.reshape(shape)
    if dtype == types_pb2.DT_HALF:
        flat = np.array(tensor.half_val, np.uint16).view(np.float16)
    elif dtype in _VALUE_FIELDS:
        flat = np.array(getattr(tensor, _VALUE_FIELDS[dtype]), numpy_dtype)
    else:
        raise ValueError(f"a tensor of {dtype_name(dtype)} needs tensor_content")
    return _fill(flat, shape)
