"""trace_graph when the forward pass raises: the exception propagates unchanged with the
partial graph, the failing module is marked, and every hook and global torch state is
restored."""

from __future__ import annotations

import pytest

pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")

import torch
import torch.nn.functional as F
from tensorboard.backend.event_processing import plugin_event_multiplexer
from torch import nn
from torch.nn.modules import module as module_globals

import summarylib
from summarylib.integrations.torch import trace_graph
from summarylib.ops.graph import graph
from tests.test_torch_trace import SmallResNet, check_edges, nodes, producers

# When the forward pass raises


class Broken(nn.Module):
    """Fails at the second linear layer (4 features in, 3 expected)."""

    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(4, 4), nn.ReLU())
        self.head = nn.Linear(3, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(x) * 2)


class BrokenOp(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.error: Exception | None = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        try:
            return self.fc(x) @ torch.ones(4, 4)
        except RuntimeError as error:
            self.error = error
            raise


class BrokenPython(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.fc(x)
        if y.shape[-1] != 4:
            raise ValueError(f"expected 4 features, got {y.shape[-1]}")
        return y


def hook_state(model: nn.Module) -> dict:
    """Every hook table torch keeps, per module and global, and the function-mode stack."""
    tables = (
        "_forward_hooks",
        "_forward_pre_hooks",
        "_forward_hooks_with_kwargs",
        "_forward_hooks_always_called",
        "_forward_pre_hooks_with_kwargs",
        "_backward_hooks",
        "_backward_pre_hooks",
    )
    state = {
        (name, table): dict(getattr(module, table))
        for name, module in model.named_modules()
        for table in tables
    }
    for table in (
        "_global_forward_hooks",
        "_global_forward_pre_hooks",
        "_global_forward_hooks_always_called",
        "_global_forward_hooks_with_kwargs",
        "_global_backward_hooks",
        "_global_backward_pre_hooks",
    ):
        state[("global", table)] = dict(getattr(module_globals, table))
    state["modes"] = list(torch.overrides._get_current_function_mode_stack())
    state["mode enabled"] = torch._C._is_torch_function_mode_enabled()
    state["functions"] = (
        F.linear,
        torch.Tensor.__add__,
        torch.add,
        nn.Module.__call__,
        torch.Tensor.__setitem__,
    )
    return state


def test_the_exception_propagates_unchanged_with_the_partial_graph():
    model = BrokenOp()
    with pytest.raises(RuntimeError) as raised:
        trace_graph(model, torch.randn(2, 4))
    assert raised.value is model.error
    assert "cannot be multiplied" in str(raised.value)
    graph_def = raised.value.graph_def
    check_edges(graph_def)
    by_name = nodes(graph_def)
    assert [node.name for node in graph_def.node] == [
        "input/x",
        "BrokenOp/fc/parameters",
        "BrokenOp/fc/Linear",
        "BrokenOp/ones",
        "BrokenOp/matmul",
    ]
    assert by_name["BrokenOp/matmul"].attr["error"].s.startswith(b"RuntimeError: mat1 and mat2 shapes")
    assert producers(graph_def, "BrokenOp/matmul") == ["BrokenOp/fc/Linear", "BrokenOp/ones"]
    assert [name for name, node in by_name.items() if "error" in node.attr] == ["BrokenOp/matmul"]


def test_a_failing_leaf_module_is_marked_with_its_inputs():
    with pytest.raises(RuntimeError, match="cannot be multiplied") as raised:
        trace_graph(Broken(), torch.randn(2, 4))
    graph_def = raised.value.graph_def
    check_edges(graph_def)
    by_name = nodes(graph_def)
    failed = [name for name, node in by_name.items() if "error" in node.attr]
    assert failed == ["Broken/head/Linear"]
    assert producers(graph_def, "Broken/head/Linear") == ["Broken/mul"] + ["Broken/head/parameters"] * 2
    assert "Broken/encoder/1/ReLU" in by_name
    assert not any(node.op == "Output" for node in graph_def.node)


def test_an_exception_raised_by_python_code_is_marked_in_its_module():
    with pytest.raises(ValueError, match=r"^expected 4 features, got 3$") as raised:
        trace_graph(BrokenPython(), torch.randn(2, 4))
    by_name = nodes(raised.value.graph_def)
    assert by_name["BrokenPython/error"].op == "Error"
    assert by_name["BrokenPython/error"].attr["error"].s == b"ValueError: expected 4 features, got 3"
    assert "BrokenPython/fc/Linear" in by_name


def test_an_error_the_model_catches_leaves_no_mark():
    class Fallback(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            try:
                return x @ torch.ones(5, 5)
            except RuntimeError:
                return x * 2

    graph_def = trace_graph(Fallback(), torch.randn(2, 4))
    check_edges(graph_def)
    assert not any("error" in node.attr for node in graph_def.node)
    assert [node.op for node in graph_def.node] == ["Input", "ones", "mul", "Output"]


@pytest.mark.parametrize("model_type", [Broken, BrokenOp, BrokenPython])
def test_everything_is_restored_after_a_failing_trace(model_type):
    model = model_type()
    calls = []
    model.register_forward_hook(lambda module, args, output: calls.append("user hook"))
    before = hook_state(model)
    with pytest.raises((RuntimeError, ValueError)):
        trace_graph(model, torch.randn(2, 4))
    assert hook_state(model) == before
    with pytest.raises((RuntimeError, ValueError)):  # and the model runs as before, untraced
        model(torch.randn(2, 4))
    assert hook_state(model) == before


def test_everything_is_restored_after_a_trace_and_user_hooks_still_run():
    model = SmallResNet()
    calls = []
    model.fc.register_forward_hook(lambda module, args, output: calls.append(output.shape))
    before = hook_state(model)
    trace_graph(model, torch.randn(1, 3, 8, 8))
    assert hook_state(model) == before
    assert calls == [torch.Size([1, 10])]


def test_a_partial_graph_is_deterministic_and_writable(logdir):
    graphs = []
    for _ in range(2):
        with pytest.raises(RuntimeError) as raised:
            trace_graph(Broken(), torch.randn(2, 4))
        graphs.append(raised.value.graph_def)
    assert graphs[0] == graphs[1]
    with summarylib.create_file_writer(logdir) as writer, writer.as_default():
        assert graph(graphs[0]) is True
    multiplexer = plugin_event_multiplexer.EventMultiplexer()
    multiplexer.AddRunsFromDirectory(logdir)
    multiplexer.Reload()
    (run,) = multiplexer.Runs()
    served = multiplexer.Graph(run)  # TensorBoard's own GraphDef
    assert [node.name for node in served.node] == [node.name for node in graphs[0].node]


def test_trace_graph_rejects_what_is_not_a_module():
    with pytest.raises(
        TypeError, match=r"argument 'model': expected a torch\.nn\.Module, got builtins\.function"
    ):
        trace_graph(lambda x: x, torch.randn(2))
