"""Turn what users log (Python numbers, lists, numpy, torch/jax/tf tensors) into numpy.

Framework tensors are recognized by protocol, never by importing their framework:
`__array__`, then `__dlpack__`, then `.numpy()`; tensors that refuse (a torch tensor that
requires grad, or lives on a GPU) are detached and moved to the CPU by their own methods.
bfloat16 tensors, which numpy has no dtype for, are taken as float32 (`.float()`, as
torch's writer needs them), and long doubles as float64 (no TensorProto holds them;
TensorFlow refuses them). An object whose own conversion fails gives a TypeError naming
op, tag and argument, with the object's exception as `__cause__`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from summarylib.ops.errors import op_error, wrapped_error
from summarylib.writer.snapshots import snapshot_pool


def _from_tensor_methods(data: Any) -> np.ndarray | None:
    """numpy from a framework tensor through its own methods, or None if it has none."""
    candidate = data
    for method in ("detach", "cpu"):
        convert = getattr(candidate, method, None)
        if callable(convert):
            candidate = convert()
    numpy_method = getattr(candidate, "numpy", None)
    if callable(numpy_method):
        return np.asarray(numpy_method())
    return None


def as_array(op: str, tag: str, argument: str, data: Any) -> np.ndarray:
    """`data` as a numpy array; a TypeError naming op, tag and argument when impossible."""
    if isinstance(data, np.ndarray):
        return _writable_precision(data)
    if isinstance(data, (np.generic, int, float, bool, complex, str, bytes, list, tuple)):
        try:
            return _writable_precision(np.asarray(data))
        except (ValueError, OverflowError) as error:  # ragged nested lists, ints beyond int64 mixed
            raise op_error(ValueError, op, tag, argument, f"cannot make an array of it: {error}") from None
        except Exception as error:  # elements that refuse: tensors requiring grad, a failing __array__
            raise wrapped_error(
                TypeError,
                op,
                tag,
                argument,
                f"expected an array-like, got a {type(data).__name__} of elements numpy cannot convert",
                error,
            ) from error
    if _is_bfloat16(data):
        data = _call(op, tag, argument, data, "float")
    errors = []
    if hasattr(data, "__array__"):
        try:
            return _writable_precision(np.asarray(data))
        except Exception as error:  # frameworks raise their own error types here
            errors.append(error)
    if hasattr(data, "__dlpack__"):
        try:
            return _writable_precision(np.from_dlpack(data))
        except Exception as error:
            errors.append(error)
    try:
        array = _from_tensor_methods(data)
    except Exception as error:
        errors.append(error)
    else:
        if array is not None:
            return _writable_precision(array)
    expected = f"expected an array-like (number, list, numpy array or tensor), got {type(data).__name__}"
    if errors:
        raise wrapped_error(TypeError, op, tag, argument, expected, errors[-1])
    raise op_error(TypeError, op, tag, argument, expected)


def _is_bfloat16(data: Any) -> bool:
    """Whether `data` is a framework tensor of bfloat16 (which numpy cannot hold)."""
    return str(getattr(data, "dtype", "")).endswith("bfloat16") and callable(getattr(data, "float", None))


def _call(op: str, tag: str, argument: str, data: Any, method: str) -> Any:
    """`data.<method>()`, its failure a TypeError naming op, tag and argument."""
    try:
        return getattr(data, method)()
    except Exception as error:
        raise wrapped_error(
            TypeError, op, tag, argument, f"cannot convert {type(data).__name__} with .{method}()", error
        ) from error


def _writable_precision(array: np.ndarray) -> np.ndarray:
    """`array`, or for long doubles (which no TensorProto holds) its float64 or
    complex128 values."""
    kind = array.dtype.kind
    if kind == "f" and array.dtype.itemsize > 8:
        return array.astype(np.float64)
    if kind == "c" and array.dtype.itemsize > 16:
        return array.astype(np.complex128)
    return array


def as_real_array(op: str, tag: str, argument: str, data: Any) -> np.ndarray:
    """`data` as a numpy array of real numbers or bools; a TypeError naming the dtype and
    shape otherwise (strings, objects, complex numbers)."""
    array = as_array(op, tag, argument, data)
    if array.dtype.kind not in "biuf":
        raise op_error(
            TypeError,
            op,
            tag,
            argument,
            f"expected real numbers or bools, got dtype {array.dtype} (shape {list(array.shape)})",
        )
    return array


def as_float(op: str, tag: str, argument: str, data: Any) -> float:
    """A real scalar as a Python float: shape [] and a numeric (or bool) dtype."""
    kind = type(data)
    if kind is float or kind is bool:
        return float(data)
    if kind is int:
        try:
            return float(data)
        except OverflowError:
            raise op_error(ValueError, op, tag, argument, f"{data} is too large for a float") from None
    if isinstance(data, (np.floating, np.integer, np.bool_)):
        return float(data)
    if isinstance(data, np.generic) or (not isinstance(data, np.ndarray) and hasattr(data, "item")):
        shape = _shape(data)
        if shape:
            raise op_error(
                ValueError, op, tag, argument, f"expected a scalar (shape []), got shape {list(shape)}"
            )
        try:
            value = data.item()
        except Exception as error:  # an object whose .item() fails may still convert
            try:
                value = as_array(op, tag, argument, data)
            except TypeError:
                raise wrapped_error(
                    TypeError, op, tag, argument, f"cannot read a number from {kind.__name__}", error
                ) from error
        if not isinstance(value, np.ndarray):
            return _real(op, tag, argument, value)
        data = value
    array = as_array(op, tag, argument, data)
    if array.ndim != 0:
        raise op_error(
            ValueError, op, tag, argument, f"expected a scalar (shape []), got shape {list(array.shape)}"
        )
    if array.dtype.kind not in "biuf":
        raise op_error(TypeError, op, tag, argument, f"expected a real number, got dtype {array.dtype}")
    return float(array)


def _shape(data: Any) -> tuple:
    """The shape an object says it has: () when it has none or an odd one."""
    shape = getattr(data, "shape", ())
    try:
        return tuple(shape)
    except TypeError:
        return ()


def _real(op: str, tag: str, argument: str, value: Any) -> float:
    if isinstance(value, (bool, int, float, np.floating, np.integer, np.bool_)):
        return as_float(op, tag, argument, value)
    raise op_error(
        TypeError, op, tag, argument, f"expected a real number, got {type(value).__name__} {value!r:.80}"
    )


_FRESH_SOURCES = (list, tuple, int, float, bool, complex, str, bytes, np.generic)


def snapshot(array: np.ndarray, data: Any) -> np.ndarray:
    """An array the caller can no longer change: `array` itself when numpy built it from
    Python values, else a copy (numpy arrays and views, and whatever a framework's
    `__array__`, DLPack or `.numpy()` gave, which may share the caller's memory)."""
    if isinstance(data, _FRESH_SOURCES) and array is not data:
        return array
    return snapshot_pool.copy(array)
