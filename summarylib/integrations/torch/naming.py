"""Names and attributes of traced nodes: unique scoped names, op names, NodeDef attrs.

TensorBoard's graphs dashboard splits node names at "/" into nested boxes, reads "name:k"
in an input as the k-th output of node `name`, and labels edges with the producer's
`_output_shapes`. Everything here is deterministic: the same calls in the same order give
the same names and attributes, so tracing a model twice gives equal GraphDefs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from summarylib.proto import graph_pb2, tensor_shape_pb2, types_pb2

# torch dtype names (without "torch.") to TensorFlow's DataType numbers; others are DT_INVALID.
_DATA_TYPES = {
    "float32": types_pb2.DT_FLOAT,
    "float64": types_pb2.DT_DOUBLE,
    "int32": types_pb2.DT_INT32,
    "uint8": types_pb2.DT_UINT8,
    "int16": types_pb2.DT_INT16,
    "int8": types_pb2.DT_INT8,
    "complex64": types_pb2.DT_COMPLEX64,
    "int64": types_pb2.DT_INT64,
    "bool": types_pb2.DT_BOOL,
    "bfloat16": types_pb2.DT_BFLOAT16,
    "uint16": types_pb2.DT_UINT16,
    "complex128": types_pb2.DT_COMPLEX128,
    "float16": types_pb2.DT_HALF,
    "uint32": types_pb2.DT_UINT32,
    "uint64": types_pb2.DT_UINT64,
}
_UNSAFE = re.compile(r"[/:^\s]+")
_MAX_TEXT = 1000
_SIMPLE = (bool, int, float, str, type(None), type(Ellipsis))
# Augmented assignments (`x += y`) and item assignment write into their first argument.
_IN_PLACE_DUNDERS = frozenset(
    f"__i{name}__"
    for name in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow", "lshift", "rshift")
) | {"__iand__", "__ior__", "__ixor__", "__setitem__"}


class Names:
    """Unique full names in one graph. Nodes and module scopes share one namespace, so a
    scope is never also a node (TensorBoard would have to rename one of them)."""

    def __init__(self) -> None:
        self._taken: set[str] = set()

    def claim(self, scope: str, base: str) -> str:
        """`scope/base`, or `scope/base_1`, `scope/base_2`, ... if taken; now taken."""
        base = component(base)
        prefix = f"{scope}/" if scope else ""
        name, count = prefix + base, 0
        while name in self._taken:
            count += 1
            name = f"{prefix}{base}_{count}"
        self._taken.add(name)
        return name


def component(text: str) -> str:
    """`text` as one name component: no "/", ":", "^" or whitespace, never empty."""
    return _UNSAFE.sub("_", text) or "_"


def parent(name: str) -> str:
    """The scope a full name sits in ("" at the top)."""
    return name.rpartition("/")[0]


def op_name(func: Any) -> str:
    """What to call a traced torch function: its name; a property's name for the getters
    torch reports as `__get__` (`x.T` is "T")."""
    name = getattr(func, "__name__", None) or type(func).__name__
    if name in ("__get__", "__set__"):
        name = getattr(getattr(func, "__self__", None), "__name__", name)
    return name


def node_base(op: str) -> str:
    """The name of an op's node inside its scope: dunders lose their underscores
    (`__add__` is "add"); the op attribute keeps the exact name."""
    return op.strip("_") or op


def is_in_place(op: str) -> bool:
    """Whether a torch function of this name writes into its first argument."""
    return op in _IN_PLACE_DUNDERS or (op.endswith("_") and not op.endswith("__"))


def output_attrs(node: graph_pb2.NodeDef, tensors: Iterable[Any]) -> None:
    """Set `_output_shapes` (which TensorBoard draws on edges) and `_output_types` of
    `node` from its output tensors, in output order."""
    tensors = list(tensors)
    if not tensors:
        return
    shapes = node.attr["_output_shapes"].list.shape
    for tensor in tensors:
        shapes.append(shape_proto(tensor))
    node.attr["_output_types"].list.type.extend(data_type(tensor) for tensor in tensors)


def shape_proto(tensor: Any) -> tensor_shape_pb2.TensorShapeProto:
    """The shape of `tensor`; unknown rank where it has no fixed shape (nested tensors)."""
    try:
        sizes = [int(size) for size in tensor.shape]
    except (RuntimeError, TypeError, ValueError):
        return sizes_proto(None)
    return sizes_proto(sizes)


def sizes_proto(sizes: list[int] | None) -> tensor_shape_pb2.TensorShapeProto:
    """A shape of these sizes; unknown rank for None."""
    if sizes is None:
        return tensor_shape_pb2.TensorShapeProto(unknown_rank=True)
    return tensor_shape_pb2.TensorShapeProto(
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=n) for n in sizes]
    )


def data_type(tensor: Any) -> types_pb2.DataType:
    """TensorFlow's DataType number for the tensor's dtype (DT_INVALID where it has none)."""
    return dtype_number(tensor.dtype)


def dtype_number(dtype: Any) -> types_pb2.DataType:
    """TensorFlow's DataType number for a torch dtype (DT_INVALID where it has none)."""
    return _DATA_TYPES.get(str(dtype).removeprefix("torch."), types_pb2.DT_INVALID)


def device(tensor: Any) -> str:
    """The tensor's device in TensorFlow's spelling, e.g. "/device:CUDA:0"."""
    kind, index = tensor.device.type, tensor.device.index
    return f"/device:{kind.upper()}:{index or 0}"


def set_text(node: graph_pb2.NodeDef, key: str, text: str) -> None:
    """A string attr, cut to a length the dashboard's info card can show."""
    if len(text) > _MAX_TEXT:
        text = text[: _MAX_TEXT - 3] + "..."
    node.attr[key].s = text.encode("utf-8", "backslashreplace")


def describe_call(args: tuple, kwargs: dict, is_tensor: Any) -> str:
    """The arguments of a call as text, tensors as "Tensor": `(Tensor, -1, dim=0)`.
    Only values with a stable repr are spelled out; others are named by type, so the
    text (and the GraphDef) is the same on every trace."""
    parts = [_describe(value, is_tensor) for value in args]
    parts += [f"{key}={_describe(value, is_tensor)}" for key, value in kwargs.items()]
    return "(" + ", ".join(parts) + ")"


def _describe(value: Any, is_tensor: Any) -> str:
    if is_tensor(value):
        return "Tensor"
    if isinstance(value, _SIMPLE):
        return repr(value)
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_describe(item, is_tensor) for item in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_describe(v, is_tensor)}" for k, v in value.items()) + "}"
    if isinstance(value, slice):
        return f"slice({value.start!r}, {value.stop!r}, {value.step!r})"
    type_name = type(value).__name__
    if type_name in ("dtype", "device", "layout", "memory_format"):
        return str(value)
    return type_name
