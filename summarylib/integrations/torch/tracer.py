"""`trace_graph`: one forward pass of a `torch.nn.Module`, recorded as a GraphDef.

Tracing watches the model run instead of compiling it (as `torch.jit.trace` does), so
it takes whatever the model takes and returns: dicts, tuples, keyword arguments,
in-place ops, data-dependent Python. For the duration of the call only:

- a `TorchFunctionMode` sees every torch function the model's Python code calls (torch.*,
  torch.nn.functional.*, Tensor methods and operators); while one runs the mode is off,
  so a function is one node however it is implemented;
- forward pre-hooks and always-called forward hooks on every module of the model keep
  the stack of module calls that scopes node names, and draw torch's own leaf modules
  (Linear, Conv2d, ...) as one node each.

Both are removed in `finally`, also when the forward pass raises; then the graph recorded
up to the failing call is attached to the exception, which propagates unchanged.
"""

from __future__ import annotations

import contextlib
import inspect
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

from summarylib.integrations.torch import naming
from summarylib.integrations.torch.recorder import Recorder, tensors_in
from summarylib.integrations.torch.script_graph import script_graph
from summarylib.proto import graph_pb2


def trace_graph(model: torch.nn.Module, *example_inputs: Any, **example_kwargs: Any) -> graph_pb2.GraphDef:
    """Run `model(*example_inputs, **example_kwargs)` once and return its forward pass as
    a GraphDef for TensorBoard's graphs dashboard (write it with `summarylib.graph`).

    Nodes: `input/<argument>` for each input tensor (nested ones as `input/x.0`,
    `input/batch.mask`), `output` or `output/<path>` for each output tensor, one node
    per tensor-returning torch function the model calls (op: the function's name), one
    per call of torch's own leaf modules (op: the class name, attr `module`: its repr),
    one `parameters` node per module whose parameters or buffers are used (one output
    per tensor, attr `names`), and `constant` nodes for other tensors from outside.
    Each node is named by the module calls it happened in, from the model's class name
    down by attribute path (`TransformerEncoder/layers.0/self_attn/...`), so the
    dashboard draws a box per module call; a module called again gets a box of its own
    (`block_1`). Edges carry tensors; `_output_shapes` and `_output_types` label them.
    Names depend only on the order of calls: the same model and inputs give the same
    GraphDef.

    The model runs as it is (train or eval mode, grad mode as set by the caller). If
    the forward pass raises, the exception propagates unchanged with the graph recorded
    up to the failing call, marked by an `error` attr, as its `graph_def` attribute.

    A TorchScript module (`torch.jit.trace` or `torch.jit.script`) is not run: it runs
    compiled code that no hook sees, so its own recorded graph is drawn instead (see
    script_graph), whatever the inputs, as torch's `add_graph` does.
    """
    if not isinstance(model, torch.nn.Module):
        raise TypeError(
            "summarylib.integrations.torch.trace_graph: argument 'model': expected a torch.nn.Module, "
            f"got {type(model).__module__}.{type(model).__qualname__}"
        )
    if isinstance(model, torch.jit.ScriptModule):
        return script_graph(model)
    recorder = Recorder(model)
    recorder.add_inputs(example_inputs, example_kwargs, _signature(model))
    try:
        with _tracing(model, recorder):
            output = model(*example_inputs, **example_kwargs)
    except Exception as error:
        with contextlib.suppress(AttributeError, TypeError):
            # An attribute no Exception declares, on the user's exception: set by name.
            setattr(error, "graph_def", recorder.finish(None, error))  # noqa: B010
        raise
    return recorder.finish(output, None)


def _signature(model: torch.nn.Module) -> inspect.Signature | None:
    """The signature of `model.forward`, to name the inputs (None if it has none)."""
    try:
        return inspect.signature(model.forward)
    except (TypeError, ValueError):
        return None


@contextlib.contextmanager
def _tracing(model: torch.nn.Module, recorder: Recorder) -> Any:
    """Hooks on every module of `model` and the function mode, removed on the way out."""
    handles = []
    try:
        for module in model.modules():
            handles.append(module.register_forward_pre_hook(_pre_hook(recorder), with_kwargs=True))
            handles.append(
                module.register_forward_hook(_post_hook(recorder), with_kwargs=True, always_call=True)
            )
        with _RecordingMode(recorder):
            yield
    finally:
        for handle in handles:
            handle.remove()


def _pre_hook(recorder: Recorder) -> Any:
    def pre_hook(module: torch.nn.Module, args: tuple, kwargs: dict) -> None:
        recorder.enter_module(module, args, kwargs)

    return pre_hook


def _post_hook(recorder: Recorder) -> Any:
    def post_hook(module: torch.nn.Module, args: tuple, kwargs: dict, output: Any) -> None:
        recorder.exit_module(module, output)

    return post_hook


class _RecordingMode(TorchFunctionMode):
    """Records each torch function called outside leaf modules as a node."""

    def __init__(self, recorder: Recorder) -> None:
        super().__init__()
        self.recorder = recorder

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = kwargs or {}
        recorder = self.recorder
        if recorder.suppressed:
            return func(*args, **kwargs)
        try:
            result = func(*args, **kwargs)
        except Exception as error:
            op = naming.op_name(func)
            node = self._node(op, args, kwargs)
            recorder.mark_failed(node, error)
            raise
        outputs = list(tensors_in(result))
        op = naming.op_name(func) if outputs or result is None else ""
        if not outputs and result is None and naming.is_in_place(op):
            outputs = list(tensors_in(args))[:1]  # x[i] = v: x is the output
        if outputs:
            recorder.add_outputs(self._node(op, args, kwargs), outputs)
        return result

    def _node(self, op: str, args: tuple, kwargs: dict) -> graph_pb2.NodeDef:
        recorder = self.recorder
        inputs = [recorder.reference(tensor) for tensor in tensors_in((args, kwargs))]
        node = recorder.add_node(recorder.scope, op, inputs, base=naming.node_base(op))
        naming.set_text(node, "arguments", naming.describe_call(args, kwargs, _is_tensor))
        return node


def _is_tensor(value: Any) -> bool:
    return isinstance(value, torch.Tensor)
