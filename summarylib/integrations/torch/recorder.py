"""The bookkeeping of a trace: which node produced each tensor, the module scopes, and the
GraphDef the nodes are appended to as the forward pass runs.

An edge is a tensor passed from its producer to a consumer: each tensor a node outputs
is remembered (by identity, forgotten when the tensor is freed) with its "node:k"
reference, and each tensor a later node takes in is looked up. Tensors nothing traced
produced are the model's parameters and buffers (one node per module, created at first
use), or else constants (one node per tensor).
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import torch

from summarylib.integrations.torch import naming
from summarylib.proto import graph_pb2

_ERROR_KEY = "error"


def tensors_in(value: Any) -> Iterator[torch.Tensor]:
    """The tensors in a (nested) tuple, list or dict, in order."""
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from tensors_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from tensors_in(item)


def tensor_paths(value: Any, path: str = "") -> Iterator[tuple[str, torch.Tensor]]:
    """`(path, tensor)` for the tensors in a nested structure: "0", "logits", "0.mask"."""
    if isinstance(value, torch.Tensor):
        yield path, value
        return
    if isinstance(value, (tuple, list)):
        items: Any = enumerate(value)
    elif isinstance(value, dict):
        items = value.items()
    else:
        return
    for key, item in items:
        yield from tensor_paths(item, f"{path}.{key}" if path else str(key))


def is_leaf(module: torch.nn.Module) -> bool:
    """Whether a module is drawn as one node: one of torch's own modules without
    submodules (Linear, Conv2d, LayerNorm, ReLU, ...). Other modules, the user's own and
    torch's containers, are boxes holding what their forward calls."""
    return type(module).__module__.startswith("torch.") and next(module.children(), None) is None


@dataclass
class Frame:
    """A module call in progress."""

    module: torch.nn.Module
    scope: str
    leaf: bool
    entry_error: BaseException | None  # the exception being handled when the call began
    inputs: list[str] = field(default_factory=list)
    hidden: bool = False  # called inside a leaf module: not drawn


@dataclass
class _ModuleState:
    home: str | None = None  # the scope of its first call, or of its parameters node
    called: bool = False
    parameters: list[str] | None = None  # references to its parameters node's outputs


class Recorder:
    """Builds the GraphDef of one forward pass of `root`."""

    def __init__(self, root: torch.nn.Module) -> None:
        self.graph = graph_pb2.GraphDef()
        self.frames: list[Frame] = []
        self.suppressed = 0  # leaf module calls in progress: their inner ops are not drawn
        self._names = naming.Names()
        self._module_names = {module: name for name, module in root.named_modules()}
        self._modules: dict[torch.nn.Module, _ModuleState] = {}
        self._owners: dict[int, tuple[torch.nn.Module, int]] = {}
        for module in self._module_names:
            for index, tensor in enumerate(_own_tensors(module).values()):
                self._owners.setdefault(id(tensor), (module, index))
        self._producers: dict[int, tuple[weakref.ref, str]] = {}
        self._failures: list[tuple[BaseException, graph_pb2.NodeDef]] = []

    # Scopes

    @property
    def scope(self) -> str:
        """The scope new nodes go in: the innermost module call's."""
        return self.frames[-1].scope if self.frames else ""

    def enter_module(self, module: torch.nn.Module, args: tuple, kwargs: dict) -> None:
        """A module call begins: a scope of its own; a leaf's inputs are taken now,
        before its forward can change them in place."""
        if self.suppressed:
            self.frames.append(Frame(module, self.scope, False, None, hidden=True))
            return
        leaf = is_leaf(module)
        frame = Frame(module, self._call_scope(module), leaf, sys.exc_info()[1])
        if leaf:
            frame.inputs = [self.reference(t) for t in tensors_in((args, kwargs))]
            frame.inputs += self._parameters(module)
            self.suppressed += 1
        self.frames.append(frame)

    def exit_module(self, module: torch.nn.Module, output: Any) -> None:
        """A module call ends, returning `output` or raising (then the error is marked on
        the leaf node, or on an error node in the module's scope if no op was marked)."""
        if not self.frames or self.frames[-1].module is not module:
            return  # our pre-hook never ran for this call (an earlier pre-hook raised)
        frame = self.frames.pop()
        if frame.hidden:
            return
        error = sys.exc_info()[1]
        failed = error if error is not None and error is not frame.entry_error else None
        if frame.leaf:
            self.suppressed -= 1
            node = self.add_node(frame.scope, type(module).__name__, frame.inputs)
            naming.set_text(node, "module", repr(module))
            if failed is not None:
                self.mark_failed(node, failed)
            else:
                self.add_outputs(node, list(tensors_in(output)))
        elif failed is not None and not any(seen is failed for seen, _ in self._failures):
            self.mark_failed(self.add_node(frame.scope, "Error", [], base="error"), failed)

    def _call_scope(self, module: torch.nn.Module) -> str:
        state = self._modules.setdefault(module, _ModuleState())
        if state.home is not None and not state.called and naming.parent(state.home) == self.scope:
            scope = state.home
        else:
            scope = self._names.claim(self.scope, self._relative_name(module))
            state.home = state.home or scope
        state.called = True
        return scope

    def _relative_name(self, module: torch.nn.Module) -> str:
        """The module's attribute path from the innermost module being called
        ("layers.0" inside a TransformerEncoder), or the root's class name."""
        name = self._module_names.get(module)
        if not name:
            return type(module).__name__
        caller = self._module_names.get(self.frames[-1].module, "") if self.frames else ""
        if caller and name.startswith(caller + "."):
            return name[len(caller) + 1 :]
        return name

    # Tensors

    def reference(self, tensor: torch.Tensor) -> str:
        """The "node:k" that produced `tensor`: a traced node, the owning module's
        parameters node, or a new constant node."""
        known = self._producers.get(id(tensor))
        if known is not None and known[0]() is tensor:
            return known[1]
        owner = self._owners.get(id(tensor))
        if owner is not None:
            return self._parameters(owner[0])[owner[1]]
        node = self.add_node(self.scope, "Constant", [], base="constant")
        self.add_outputs(node, [tensor])
        return node.name

    def produced(self, tensor: torch.Tensor, reference: str) -> None:
        """Remember that `reference` produced `tensor` (until the tensor is freed)."""
        key = id(tensor)

        def forget(ref: weakref.ref, key: int = key) -> None:
            if self._producers.get(key, (None,))[0] is ref:
                del self._producers[key]

        self._producers[key] = (weakref.ref(tensor, forget), reference)

    def _parameters(self, module: torch.nn.Module) -> list[str]:
        """References to the outputs of the module's parameters node (its parameters,
        then its buffers), made on first use in the module's scope."""
        state = self._modules.setdefault(module, _ModuleState())
        if state.parameters is None:
            own = _own_tensors(module)
            state.parameters = []
            if own:
                scope = next((f.scope for f in reversed(self.frames) if f.module is module), state.home)
                if scope is None:
                    scope = state.home = self._names.claim(self.scope, self._relative_name(module))
                node = self.add_node(scope, "Parameters", [], base="parameters")
                prefix = self._module_names.get(module, "")
                node.attr["names"].list.s.extend(
                    (f"{prefix}.{name}" if prefix else name).encode() for name in own
                )
                self.add_outputs(node, list(own.values()), remember=False)
                state.parameters = [_output_reference(node.name, k) for k in range(len(own))]
        return state.parameters

    # Nodes

    def add_node(self, scope: str, op: str, inputs: list[str], base: str | None = None) -> graph_pb2.NodeDef:
        """Append a node named `scope/base` (made unique; `base` defaults to `op`)."""
        name = self._names.claim(scope, base or op)
        return self.graph.node.add(name=name, op=op, input=inputs)

    def add_outputs(
        self, node: graph_pb2.NodeDef, outputs: list[torch.Tensor], remember: bool = True
    ) -> None:
        """Record `node`'s output tensors: shapes and types as attrs, device, producers."""
        if not outputs:
            return
        naming.output_attrs(node, outputs)
        node.device = naming.device(outputs[0])
        if remember:
            for index, tensor in enumerate(outputs):
                self.produced(tensor, _output_reference(node.name, index))

    def mark_failed(self, node: graph_pb2.NodeDef, error: BaseException) -> None:
        """Mark the node whose call raised `error` (an attr the dashboard's info card
        shows); kept in the graph only if `error` is what ends the trace."""
        naming.set_text(node, _ERROR_KEY, f"{type(error).__name__}: {error}")
        self._failures.append((error, node))

    def add_inputs(self, args: tuple, kwargs: dict, signature: Any) -> None:
        """Input nodes `input/<argument path>` for the tensors the model is called with."""
        try:
            named = dict(signature.bind(*args, **kwargs).arguments) if signature is not None else None
        except TypeError:
            named = None
        if named is None:
            named = {"args": args, **kwargs}
        for path, tensor in tensor_paths(named):
            node = self.add_node("input", "Input", [], base=path)
            self.add_outputs(node, [tensor])

    def finish(self, output: Any, error: BaseException | None) -> graph_pb2.GraphDef:
        """The recorded graph: with output nodes after a forward pass that returned, or
        with the failing call marked after one that raised `error`."""
        chain = _exception_chain(error)
        swallowed = {node.name for seen, node in self._failures if not any(seen is e for e in chain)}
        if swallowed:  # calls that raised errors the model caught itself
            kept = [node for node in self.graph.node if node.name not in swallowed]
            del self.graph.node[:]
            self.graph.node.extend(kept)
        if error is None:
            paths = list(tensor_paths(output))
            for path, tensor in paths:
                source = self.reference(tensor)
                node = self.add_node("output" if path else "", "Output", [source], base=path or "output")
                naming.output_attrs(node, [tensor])
                node.device = naming.device(tensor)
        return self.graph


def _own_tensors(module: torch.nn.Module) -> dict[str, torch.Tensor]:
    """A module's own parameters, then its own buffers, by name."""
    own: dict[str, torch.Tensor] = dict(module.named_parameters(recurse=False))
    own.update((name, buffer) for name, buffer in module.named_buffers(recurse=False) if buffer is not None)
    return own


def _output_reference(node: str, index: int) -> str:
    return node if index == 0 else f"{node}:{index}"


def _exception_chain(error: BaseException | None) -> list[BaseException]:
    """`error` and the exceptions it was raised from or while handling."""
    chain: list[BaseException] = []
    while error is not None and not any(error is seen for seen in chain):
        chain.append(error)
        error = error.__cause__ or error.__context__
    return chain
