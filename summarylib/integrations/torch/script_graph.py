"""`script_graph`: the GraphDef of a TorchScript module (`torch.jit.trace` or
`torch.jit.script`), read from its own graph, without running it.

A ScriptModule runs compiled code: no Python function or forward hook of its submodules
is called, so the tracer (tracer.py) would see an empty forward pass. Its graph is there
instead, already recorded (what torch's `add_graph` draws for such a module, which is how
YOLO trainings log theirs): the module's graph with calls inlined, one node per
operation (op: the TorchScript kind, such as `aten::linear`), named by the module calls
it happened in (a traced module records them; a scripted one does not, and its nodes
sit at the top), `input/<argument>` and `output` nodes, and one node per parameter or
buffer used (`<Model>/<module path>/<name>`, op `Parameter`). Control flow (`prim::If`,
`prim::Loop` of a scripted module) is one node each; their bodies are not drawn.
"""

from __future__ import annotations

from typing import Any

import torch

from summarylib.integrations.torch import naming
from summarylib.proto import graph_pb2, tensor_shape_pb2, types_pb2

_MODULE_PREFIX = "__module."
# TorchScript scalar types to TensorFlow's DataType numbers (tensors: their dtype's).
_SCALAR_TYPES = {"int": types_pb2.DT_INT64, "float": types_pb2.DT_DOUBLE, "bool": types_pb2.DT_BOOL}


def script_graph(module: torch.jit.ScriptModule) -> graph_pb2.GraphDef:
    """The GraphDef of `module`'s forward graph (see the module docstring)."""
    graph = module.inlined_graph
    root = getattr(module, "original_name", None) or type(module).__name__
    converter = _Converter(root)
    values = list(graph.inputs())
    converter.modules[values[0].debugName()] = ()  # `self`: the module itself
    for value in values[1:]:
        converter.add("input", "Input", [], _clean(value.debugName()), [value])
    for node in graph.nodes():
        converter.node(node)
    outputs = list(graph.outputs())
    for index, value in enumerate(outputs):
        base = "output" if len(outputs) == 1 else f"output/{index}"
        converter.add("", "Output", converter.sources([value]), base, [value])
    return converter.graph


class _Converter:
    """The GraphDef being built: the node producing each value, the module path each
    module value stands for."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.graph = graph_pb2.GraphDef()
        self.names = naming.Names()
        self.produced: dict[str, str] = {}  # value name -> "node" or "node:k"
        self.modules: dict[str, tuple[str, ...]] = {}  # value name -> attribute path

    def node(self, node: Any) -> None:
        kind = node.kind()
        if kind == "prim::GetAttr":
            self._attribute(node)
        elif kind == "prim::Constant":
            output = node.output()
            if isinstance(output.type(), torch._C.TensorType):  # a tensor the code holds
                self.add(self.root, kind, [], "constant", [output])
        else:
            scope = self._scope(node.scopeName())
            self.add(scope, kind, self.sources(node.inputs()), kind.split("::")[-1], list(node.outputs()))

    def _attribute(self, node: Any) -> None:
        """A submodule (remembered by path) or a parameter or buffer (a node)."""
        owner = self.modules.get(node.input().debugName())
        if owner is None:
            return
        path = (*owner, node.s("name"))
        output = node.output()
        if isinstance(output.type(), torch._C.TensorType):
            scope = "/".join((self.root, *owner))
            self.add(scope, "Parameter", [], path[-1], [output])
        else:
            self.modules[output.debugName()] = path

    def _scope(self, scope_name: str) -> str:
        """A traced node's scope (`__module.block/__module.block.fc`) as the module path
        under the root (`Net/block/fc`); the root for a node with none."""
        parts, previous = [self.root], ""
        for call in filter(None, scope_name.split("/")):
            path = call.removeprefix(_MODULE_PREFIX)
            parts.append(path.removeprefix(previous + ".") if previous else path)
            previous = path
        return "/".join(naming.component(part) for part in parts)

    def sources(self, values: Any) -> list[str]:
        """The producers of the values that have one (not the module, not scalars)."""
        return [self.produced[v.debugName()] for v in values if v.debugName() in self.produced]

    def add(self, scope: str, op: str, inputs: list[str], base: str, outputs: list[Any]) -> None:
        name = self.names.claim(scope, base)
        node = self.graph.node.add(name=name, op=op, input=inputs)
        for index, value in enumerate(outputs):
            self.produced[value.debugName()] = name if index == 0 else f"{name}:{index}"
        if outputs:
            shapes = node.attr["_output_shapes"].list.shape
            shapes.extend(_shape(value) for value in outputs)
            node.attr["_output_types"].list.type.extend(_data_type(value) for value in outputs)


def _shape(value: Any) -> tensor_shape_pb2.TensorShapeProto:
    """The value's shape where its type records one (a traced tensor's), else unknown."""
    kind = value.type()
    sizes = kind.sizes() if isinstance(kind, torch._C.TensorType) else None
    known = sizes is not None and all(size is not None for size in sizes)
    return naming.sizes_proto(sizes if known else None)


def _data_type(value: Any) -> types_pb2.DataType:
    kind = value.type()
    if isinstance(kind, torch._C.TensorType):
        return naming.dtype_number(kind.dtype())
    return _SCALAR_TYPES.get(str(kind), types_pb2.DT_INVALID)


def _clean(name: str) -> str:
    """A value's debug name without TorchScript's `.N` suffix (`x.1` -> `x`)."""
    head, _, tail = name.rpartition(".")
    return head if head and tail.isdigit() else name
