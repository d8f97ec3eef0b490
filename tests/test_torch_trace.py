"""summarylib.integrations.torch.trace_graph: one forward pass of a torch.nn.Module as a
GraphDef whose names follow the module hierarchy, for the model shapes torch.jit.trace
finds awkward, with everything restored. When the model raises:
tests/test_torch_trace_failures.py."""

from __future__ import annotations

import pytest

pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")

import torch
import torch.nn.functional as F
from torch import nn

from summarylib.integrations.torch import trace_graph
from summarylib.proto import types_pb2


def nodes(graph_def) -> dict:
    return {node.name: node for node in graph_def.node}


def shapes(node) -> list[list[int]]:
    return [[d.size for d in shape.dim] for shape in node.attr["_output_shapes"].list.shape]


def producers(graph_def, name: str) -> list[str]:
    """The node names feeding `name` (output indices dropped)."""
    return [ref.partition(":")[0] for ref in nodes(graph_def)[name].input]


def check_edges(graph_def) -> None:
    """Every input names an existing node and an output it has; names are unique."""
    by_name = nodes(graph_def)
    assert len(by_name) == len(graph_def.node)
    for node in graph_def.node:
        for ref in node.input:
            source, _, index = ref.partition(":")
            assert source in by_name, (node.name, ref)
            assert int(index or 0) < len(by_name[source].attr["_output_shapes"].list.shape), ref


def encoder(train: bool) -> nn.Module:
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    return nn.TransformerEncoder(layer, 2).train(train)


@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
def test_transformer_encoder_names_follow_the_module_hierarchy(train):
    tokens = torch.randn(2, 5, 8)
    mask = torch.tensor([[False] * 5, [False] * 3 + [True] * 2])
    graph_def = trace_graph(encoder(train), tokens, src_key_padding_mask=mask)
    check_edges(graph_def)
    by_name = nodes(graph_def)
    attention = "TransformerEncoder/layers.0/self_attn/multi_head_attention_forward"
    assert by_name[attention].op == "multi_head_attention_forward"
    # The boolean mask becomes a float mask (-inf where padded) in the encoder itself.
    assert "TransformerEncoder/masked_fill" in producers(graph_def, attention)
    assert "input/src_key_padding_mask" in producers(graph_def, "TransformerEncoder/masked_fill")
    assert by_name["TransformerEncoder/layers.1/linear1/Linear"].op == "Linear"
    assert shapes(by_name["TransformerEncoder/layers.1/linear1/Linear"]) == [[2, 5, 16]]
    assert by_name["TransformerEncoder/layers.1/linear1/Linear"].attr["_output_types"].list.type == [
        types_pb2.DT_FLOAT
    ]
    assert by_name["TransformerEncoder/layers.0/dropout1/Dropout"].attr["module"].s.startswith(b"Dropout(")
    assert producers(graph_def, "output") == ["TransformerEncoder/layers.1/norm2/LayerNorm"]
    assert shapes(by_name["input/src"]) == [[2, 5, 8]]
    scopes = {name.rpartition("/")[0] for name in by_name}
    assert scopes == {
        "",
        "input",
        "TransformerEncoder",  # the mask conversion
        *(f"TransformerEncoder/layers.{i}{sub}" for i in (0, 1) for sub in ("", "/self_attn")),
        *(
            f"TransformerEncoder/layers.{i}/{leaf}"
            for i in (0, 1)
            for leaf in ("dropout", "dropout1", "dropout2", "linear1", "linear2", "norm1", "norm2")
        ),
        *(f"TransformerEncoder/layers.{i}/self_attn/out_proj" for i in (0, 1)),
    }


def test_one_parameters_node_per_module_with_one_output_per_tensor():
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    graph_def = trace_graph(model, torch.randn(5, 3))
    by_name = nodes(graph_def)
    parameters = [node for node in graph_def.node if node.op == "Parameters"]
    assert [node.name for node in parameters] == ["Sequential/0/parameters", "Sequential/1/parameters"]
    assert list(by_name["Sequential/0/parameters"].attr["names"].list.s) == [b"0.weight", b"0.bias"]
    assert shapes(by_name["Sequential/0/parameters"]) == [[4, 3], [4]]
    assert list(by_name["Sequential/1/parameters"].attr["names"].list.s) == [
        b"1.weight",
        b"1.bias",
        b"1.running_mean",
        b"1.running_var",
        b"1.num_batches_tracked",
    ]
    assert list(by_name["Sequential/0/Linear"].input) == [
        "input/input",
        "Sequential/0/parameters",
        "Sequential/0/parameters:1",
    ]


class Block(nn.Module):
    """A residual block: conv-bn-relu-conv-bn, plus the input, then relu."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + x)


class SmallResNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU())
        self.layers = nn.ModuleList([Block(4), Block(4)])
        self.fc = nn.Linear(4, 10)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        x = self.stem(images)
        for layer in self.layers:
            x = layer(x)
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
def test_resnet_style_cnn_has_residual_edges(train):
    graph_def = trace_graph(SmallResNet().train(train), torch.randn(2, 3, 8, 8))
    check_edges(graph_def)
    by_name = nodes(graph_def)
    # The residual add takes the block's input: for layers.1, the output of layers.0.
    assert producers(graph_def, "SmallResNet/layers.0/add") == [
        "SmallResNet/layers.0/bn2/BatchNorm2d",
        "SmallResNet/stem/1/ReLU",
    ]
    assert producers(graph_def, "SmallResNet/layers.1/add") == [
        "SmallResNet/layers.1/bn2/BatchNorm2d",
        "SmallResNet/layers.0/relu_1/ReLU",
    ]
    assert by_name["SmallResNet/stem/0/Conv2d"].op == "Conv2d"
    assert shapes(by_name["SmallResNet/adaptive_avg_pool2d"]) == [[2, 4, 1, 1]]
    assert producers(graph_def, "output") == ["SmallResNet/fc/Linear"]


class DictModel(nn.Module):
    """Dict and tuple inputs and outputs, and a keyword-only argument."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Linear(4, 6)
        self.classify = nn.Linear(6, 3)

    def forward(self, batch: dict, pair: tuple, *, scale: torch.Tensor) -> dict:
        hidden = self.embed(batch["features"]) * scale
        hidden = hidden + pair[1]
        logits = self.classify(hidden)
        return {"logits": logits, "extra": (hidden, logits.max(dim=-1)), "none": None}


def test_dict_and_tuple_inputs_and_outputs_and_keyword_arguments():
    batch = {"features": torch.randn(2, 4), "ids": torch.arange(2)}
    pair = (torch.zeros(1), torch.ones(2, 6))
    graph_def = trace_graph(DictModel(), batch, pair, scale=torch.tensor(2.0))
    check_edges(graph_def)
    by_name = nodes(graph_def)
    inputs = [node.name for node in graph_def.node if node.op == "Input"]
    assert inputs == [
        "input/batch.features",
        "input/batch.ids",
        "input/pair.0",
        "input/pair.1",
        "input/scale",
    ]
    outputs = {node.name: list(node.input) for node in graph_def.node if node.op == "Output"}
    assert outputs == {
        "output/logits": ["DictModel/classify/Linear"],
        "output/extra.0": ["DictModel/add"],
        "output/extra.1.0": ["DictModel/max"],
        "output/extra.1.1": ["DictModel/max:1"],
    }
    assert producers(graph_def, "DictModel/mul") == ["DictModel/embed/Linear", "input/scale"]
    assert producers(graph_def, "DictModel/add") == ["DictModel/mul", "input/pair.1"]
    assert by_name["DictModel/max"].attr["_output_types"].list.type == [
        types_pb2.DT_FLOAT,
        types_pb2.DT_INT64,
    ]
    assert by_name["DictModel/max"].attr["arguments"].s == b"(Tensor, dim=-1)"


class Shared(nn.Module):
    """Calls the same leaf module and the same block twice."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.block = nn.Sequential(nn.Linear(4, 4), nn.Tanh())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.block(self.block(self.fc(self.fc(x))))


def test_a_module_called_twice_gets_a_box_per_call_and_one_parameters_node():
    graph_def = trace_graph(Shared(), torch.randn(3, 4))
    check_edges(graph_def)
    names = [node.name for node in graph_def.node]
    assert "Shared/fc/Linear" in names and "Shared/fc_1/Linear" in names
    assert "Shared/block/0/Linear" in names and "Shared/block_1/0/Linear" in names
    assert [n for n in names if n.endswith("parameters")] == [
        "Shared/fc/parameters",
        "Shared/block/0/parameters",
    ]
    assert producers(graph_def, "Shared/fc_1/Linear") == ["Shared/fc/Linear"] + ["Shared/fc/parameters"] * 2
    assert producers(graph_def, "Shared/block_1/0/Linear")[1:] == ["Shared/block/0/parameters"] * 2
    assert producers(graph_def, "Shared/block_1/0/Linear")[0] == "Shared/block/1/Tanh"


class InPlace(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.act = nn.ReLU(inplace=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.fc(x)
        y.mul_(2)
        y[:, 0] = 0
        y += x
        F.relu(y, inplace=True)
        return self.act(y).sum(dim=1)


def test_in_place_ops_chain_through_the_tensor_they_change():
    graph_def = trace_graph(InPlace(), torch.randn(2, 4))
    check_edges(graph_def)
    ops = [(node.name, node.op) for node in graph_def.node if node.name.startswith("InPlace/")]
    assert ops[2:] == [
        ("InPlace/mul", "mul_"),
        ("InPlace/setitem", "__setitem__"),
        ("InPlace/add", "add_"),
        ("InPlace/relu", "relu"),
        ("InPlace/act/ReLU", "ReLU"),
        ("InPlace/sum", "sum"),
    ]
    assert producers(graph_def, "InPlace/mul") == ["InPlace/fc/Linear"]
    assert producers(graph_def, "InPlace/setitem") == ["InPlace/mul"]
    assert producers(graph_def, "InPlace/add") == ["InPlace/setitem", "input/x"]
    assert producers(graph_def, "InPlace/relu") == ["InPlace/add"]
    assert producers(graph_def, "InPlace/act/ReLU") == ["InPlace/relu"]
    assert producers(graph_def, "InPlace/sum") == ["InPlace/act/ReLU"]


@pytest.mark.parametrize(
    "make_model, shape",
    [(lambda: encoder(True), (2, 5, 8)), (SmallResNet, (2, 3, 8, 8)), (Shared, (3, 4))],
    ids=["encoder", "resnet", "shared"],
)
def test_tracing_twice_gives_the_same_graph_def(make_model, shape):
    model, inputs = make_model(), torch.randn(shape)
    first, second = trace_graph(model, inputs), trace_graph(model, inputs)
    assert first == second
    assert first.SerializeToString(deterministic=True) == second.SerializeToString(deterministic=True)


def test_constants_and_factory_tensors_become_nodes():
    table = torch.arange(4.0)

    class UsesConstant(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x + table + torch.zeros(4) + x.T.sum()

    graph_def = trace_graph(UsesConstant(), torch.randn(4, 4))
    check_edges(graph_def)
    by_name = nodes(graph_def)
    assert by_name["UsesConstant/constant"].op == "Constant"
    assert shapes(by_name["UsesConstant/constant"]) == [[4]]
    assert by_name["UsesConstant/zeros"].op == "zeros"
    assert by_name["UsesConstant/T"].op == "T"
    assert producers(graph_def, "UsesConstant/add") == ["input/x", "UsesConstant/constant"]


class _CallsSibling(nn.Module):
    """A childless module posing as one of torch's (so drawn as a leaf) that calls a
    module registered elsewhere in the model."""

    __module__ = "torch.nn.modules.posing"

    def __init__(self, sibling: nn.Module) -> None:
        super().__init__()
        object.__setattr__(self, "sibling", sibling)  # not a submodule

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.sibling(x).relu()


def test_modules_and_ops_inside_a_leaf_module_are_not_drawn():
    model = nn.Module()
    model.b = nn.Linear(3, 3)
    model.a = _CallsSibling(model.b)
    model.forward = lambda x: model.a(x)
    graph_def = trace_graph(model, torch.randn(2, 3))
    check_edges(graph_def)
    assert [(node.name, node.op) for node in graph_def.node] == [
        ("input/x", "Input"),
        ("Module/a/_CallsSibling", "_CallsSibling"),
        ("output", "Output"),
    ]


class _Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.bn = nn.BatchNorm1d(3)

    def forward(self, x):
        return torch.relu(self.bn(self.fc(x)))


class _Scripted(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.block = _Block()
        self.head = nn.Linear(3, 2)

    def forward(self, x):
        return self.head(self.block(x)) * 2


def _torch_graph(tmp_path, model, inputs):
    """The GraphDef torch's own writer writes for `add_graph(model, inputs)`."""
    import glob
    import warnings

    from tensorboard.backend.event_processing import event_file_loader
    from tensorboard.compat.proto import graph_pb2 as tb_graph_pb2
    from torch.utils.tensorboard import SummaryWriter as TorchWriter

    with TorchWriter(str(tmp_path / "torch")) as writer, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "tracing it is a no-op"
        writer.add_graph(model, inputs)
    (path,) = glob.glob(str(tmp_path / "torch" / "events*"))
    events = event_file_loader.EventFileLoader(path).Load()
    return next(tb_graph_pb2.GraphDef.FromString(e.graph_def) for e in events if e.graph_def)


@pytest.mark.parametrize("compile_with", ["trace", "script"])
def test_a_torchscript_module_is_drawn_from_its_own_graph(tmp_path, compile_with):
    """YOLO's trainings call `add_graph(torch.jit.trace(model, im, strict=False), [])`: a
    ScriptModule runs compiled code that no hook sees (tracing it ran nothing, and with no
    inputs failed), so its own graph is drawn, as torch's writer draws it: the same
    operations, the inputs, the parameters under their modules, the output."""
    from summarylib.compat.torch import SummaryWriter
    from summarylib.proto import graph_pb2
    from summarylib.reader import find_sources, iter_events

    model = _Scripted().eval()
    x = torch.ones(5, 4)
    compiled = torch.jit.trace(model, x, strict=False) if compile_with == "trace" else torch.jit.script(model)
    with SummaryWriter(str(tmp_path / "ours")) as writer:
        writer.add_graph(compiled, [])
    ((path,),) = find_sources(str(tmp_path / "ours")).values()
    (event,) = [e for e in iter_events(path) if e.graph_def]
    ours = graph_pb2.GraphDef.FromString(event.graph_def)
    theirs = _torch_graph(tmp_path, compiled, [])

    def aten(graph):
        return sorted(node.op for node in graph.node if node.op.startswith("aten::"))

    assert aten(ours) == aten(theirs)
    assert {"aten::linear", "aten::batch_norm", "aten::relu", "aten::mul"} <= set(aten(ours))
    by_name = nodes(ours)
    assert by_name["input/x"].op == "Input" and by_name["output"].op == "Output"
    for parameter in ("block/fc/weight", "block/bn/running_mean", "head/bias"):
        assert by_name[f"_Scripted/{parameter}"].op == "Parameter"
    linear = next(node for node in ours.node if node.op == "aten::linear")
    assert list(linear.input) == ["input/x", "_Scripted/block/fc/weight", "_Scripted/block/fc/bias"]
    assert by_name["output"].input == [next(n.name for n in ours.node if n.op == "aten::mul")]
    if compile_with == "trace":  # a traced module records its module calls and shapes
        assert linear.name == "_Scripted/block/fc/linear"
        assert shapes(linear) == [[5, 3]]
