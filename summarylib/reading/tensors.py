"""TensorProtos as numpy arrays, read as TensorFlow's `make_ndarray` reads them; their dtype
names and shapes, and why a forged one cannot be read.

Every v2 summary value is a tensor: this is the layer under plugin data, and the only code
that knows the TensorProto's many ways of holding values.

A TensorProto whose values fields hold fewer values than its shape has elements is filled
with its last value (zeros when it holds none), as `make_ndarray` does. A few bytes could
then promise gigabytes (a 40-byte record of shape [5e8]), so filling is bounded: a filled
tensor may have at most `FILL_LIMIT` elements, or `FILL_PER_BYTE` per byte of its encoding,
whichever is more. A tensor past that bound, or with a negative dimension, a shape numpy
cannot hold, a dtype numpy cannot hold, more values than elements or `tensor_content` of the
wrong size, is a corrupt value (`tensor_problem` says why), never an allocation.
"""

from __future__ import annotations

import math

import numpy as np

from summarylib.format.tensor import NUMPY_DTYPES
from summarylib.proto import tensor_pb2, types_pb2

FILL_LIMIT = 64
FILL_PER_BYTE = 8
_MAX_DIMENSIONS = 32  # numpy 1.x's limit (2.x holds 64)
_MAX_SPAN = 1 << 48  # elements of the nonzero dimensions: numpy's byte count must fit in intp

# The values field of each dtype, and the numpy dtype of that field's own proto type: values
# are read as that and cast (narrower integers wrap, as TensorFlow's C++ casts them).
_VALUE_FIELDS: dict[int, tuple[str, type[np.generic]]] = {
    types_pb2.DT_FLOAT: ("float_val", np.float32),
    types_pb2.DT_DOUBLE: ("double_val", np.float64),
    types_pb2.DT_INT32: ("int_val", np.int32),
    types_pb2.DT_INT16: ("int_val", np.int32),
    types_pb2.DT_INT8: ("int_val", np.int32),
    types_pb2.DT_UINT8: ("int_val", np.int32),
    types_pb2.DT_UINT16: ("int_val", np.int32),
    types_pb2.DT_INT64: ("int64_val", np.int64),
    types_pb2.DT_UINT32: ("uint32_val", np.uint32),
    types_pb2.DT_UINT64: ("uint64_val", np.uint64),
    types_pb2.DT_BOOL: ("bool_val", np.bool_),
    types_pb2.DT_HALF: ("half_val", np.int32),
    types_pb2.DT_BFLOAT16: ("half_val", np.int32),
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


def _shape_problem(shape: tuple[int, ...]) -> str | None:
    if any(size < 0 for size in shape):
        return f"shape {list(shape)} has a negative dimension"
    if len(shape) > _MAX_DIMENSIONS:
        return f"shape has {len(shape)} dimensions, more than {_MAX_DIMENSIONS}"
    if math.prod(size for size in shape if size) >= _MAX_SPAN:
        return f"shape {list(shape)} is too big for an array"
    return None


def _stored(tensor: tensor_pb2.TensorProto, dtype: int) -> tuple[int, str | None]:
    """How many values a tensor holds, or why its values cannot be read."""
    if dtype == types_pb2.DT_STRING:
        return len(tensor.string_val), None
    if dtype not in NUMPY_DTYPES and dtype != types_pb2.DT_BFLOAT16:
        return 0, f"cannot read a tensor of {dtype_name(dtype)}"
    if tensor.tensor_content:
        return -1, None  # the caller compares its size with the shape
    if dtype not in _VALUE_FIELDS:
        return 0, f"a tensor of {dtype_name(dtype)} needs tensor_content"
    return len(getattr(tensor, _VALUE_FIELDS[dtype][0])), None


def tensor_problem(tensor: tensor_pb2.TensorProto, shape: tuple[int, ...] | None = None) -> str | None:
    """Why `tensor` (of `shape`, when known) cannot be read as an array (see the module's
    docstring), or None."""
    shape = tensor_shape(tensor) if shape is None else shape
    problem = _shape_problem(shape)
    if problem:
        return problem
    dtype, count = tensor.dtype, math.prod(shape)
    stored, problem = _stored(tensor, dtype)
    if problem:
        return problem
    if stored < 0:
        itemsize = 2 if dtype == types_pb2.DT_BFLOAT16 else NUMPY_DTYPES[dtype].itemsize
        size = len(tensor.tensor_content)
        if size % itemsize:
            return f"tensor_content of {size} bytes is no whole number of {dtype_name(dtype)} values"
        if size != count * itemsize:
            return f"tensor_content holds {size // itemsize} values for a tensor of shape {list(shape)}"
        return None
    if stored > count:
        return f"{stored} values for a tensor of shape {list(shape)}"
    if stored < count and count > max(FILL_LIMIT, FILL_PER_BYTE * tensor.ByteSize()):
        return f"{stored} values to fill a tensor of shape {list(shape)} ({count} elements)"
    return None


def _fill(values: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """`values` as an array of `shape`, padded with its last value as TensorFlow does (zeros when
    empty)."""
    count = math.prod(shape)
    if values.size < count:
        pad = values[-1] if values.size else np.zeros((), values.dtype)
        values = np.concatenate([values, np.full(count - values.size, pad, values.dtype)])
    return values.reshape(shape)


def _bfloat16(bits: np.ndarray) -> np.ndarray:
    """bfloat16 bit patterns as float32 (numpy has no bfloat16)."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


def tensor_array(tensor: tensor_pb2.TensorProto) -> np.ndarray:
    """A TensorProto as a numpy array, as TensorFlow's `make_ndarray` reads it: the values
    fields padded with their last value (zeros when empty, within the bound of the module's
    docstring), `tensor_content` exactly.

    Strings come back as an object array of `bytes`, bfloat16 as float32.
    ValueError (saying why, see `tensor_problem`) for a tensor that cannot be read.
    """
    shape = tensor_shape(tensor)
    problem = tensor_problem(tensor, shape)
    if problem:
        raise ValueError(problem)
    return read_tensor(tensor, shape)


def read_tensor(tensor: tensor_pb2.TensorProto, shape: tuple[int, ...]) -> np.ndarray:
    """`tensor_array` of a tensor of `shape` that `tensor_problem` found nothing wrong with."""
    dtype = tensor.dtype
    if dtype == types_pb2.DT_STRING:
        values = np.empty(len(tensor.string_val), dtype=object)
        values[:] = list(tensor.string_val)
        return _fill(values, shape)
    if dtype == types_pb2.DT_BFLOAT16:
        bits = (
            np.frombuffer(tensor.tensor_content, "<u2")
            if tensor.tensor_content
            else _values_field(tensor, np.uint16)
        )
        return _fill(_bfloat16(bits), shape)
    numpy_dtype = NUMPY_DTYPES[dtype]
    if tensor.tensor_content:
        flat = np.frombuffer(tensor.tensor_content, numpy_dtype.newbyteorder("<")).astype(numpy_dtype)
        return flat.reshape(shape)
    if dtype == types_pb2.DT_HALF:
        flat = _values_field(tensor, np.uint16).view(np.float16)
    else:
        flat = _values_field(tensor, numpy_dtype)
    return _fill(flat, shape)


def _values_field(tensor: tensor_pb2.TensorProto, dtype: np.dtype | type) -> np.ndarray:
    """The values field of a tensor's dtype as an array of `dtype`."""
    name, own = _VALUE_FIELDS[tensor.dtype]
    return np.array(getattr(tensor, name), own).astype(dtype, copy=False)
