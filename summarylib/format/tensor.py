"""numpy arrays to TensorProto, encoded as TensorFlow's summary writer encodes tensors:
numeric values as little-endian `tensor_content`, strings as UTF-8 `string_val`."""

from __future__ import annotations

import numpy as np

from summarylib.proto import tensor_pb2, tensor_shape_pb2, types_pb2

WRITABLE_DTYPES: dict[np.dtype, types_pb2.DataType] = {
    np.dtype(np.float32): types_pb2.DT_FLOAT,
    np.dtype(np.float64): types_pb2.DT_DOUBLE,
    np.dtype(np.float16): types_pb2.DT_HALF,
    np.dtype(np.int8): types_pb2.DT_INT8,
    np.dtype(np.int16): types_pb2.DT_INT16,
    np.dtype(np.int32): types_pb2.DT_INT32,
    np.dtype(np.int64): types_pb2.DT_INT64,
    np.dtype(np.uint8): types_pb2.DT_UINT8,
    np.dtype(np.uint16): types_pb2.DT_UINT16,
    np.dtype(np.uint32): types_pb2.DT_UINT32,
    np.dtype(np.uint64): types_pb2.DT_UINT64,
    np.dtype(np.bool_): types_pb2.DT_BOOL,
    np.dtype(np.complex64): types_pb2.DT_COMPLEX64,
    np.dtype(np.complex128): types_pb2.DT_COMPLEX128,
}

# DataType to numpy dtype, for reading tensor_content back.
NUMPY_DTYPES: dict[int, np.dtype] = {value: key for key, value in WRITABLE_DTYPES.items()}


def _utf8(element: object) -> bytes:
    if isinstance(element, bytes):
        return element
    if isinstance(element, str):
        return element.encode("utf-8")
    raise TypeError(f"expected str or bytes elements, got {type(element).__name__}")


def make_tensor_proto(array: np.ndarray) -> tensor_pb2.TensorProto:
    """A TensorProto holding `array`; TypeError for dtypes a tensor cannot hold."""
    proto = tensor_pb2.TensorProto()
    proto.tensor_shape.dim.extend(tensor_shape_pb2.TensorShapeProto.Dim(size=n) for n in array.shape)
    if array.dtype.kind in "SUO":
        proto.dtype = types_pb2.DT_STRING
        proto.string_val.extend(_utf8(element) for element in array.reshape(-1).tolist())
        return proto
    native = array.dtype.newbyteorder("=")
    if native not in WRITABLE_DTYPES:
        raise TypeError(f"cannot write dtype {array.dtype} as a tensor")
    proto.dtype = WRITABLE_DTYPES[native]
    proto.tensor_content = np.ascontiguousarray(array, dtype=native.newbyteorder("<")).tobytes()
    return proto
