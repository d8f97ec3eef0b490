"""summarylib.graph: a GraphDef as Event.graph_def, read back by TensorBoard's own code and
served by a real TensorBoard's graphs plugin (both data loaders)."""

from __future__ import annotations

import glob
import os

import pytest

pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")

import torch
from google.protobuf import text_format
from tensorboard.backend.event_processing import event_file_loader
from tensorboard.compat.proto import event_pb2 as tb_event_pb2
from tensorboard.compat.proto import graph_pb2 as tb_graph_pb2
from torch.utils.tensorboard._proto_graph import node_proto

import summarylib
from summarylib.integrations.torch import trace_graph
from summarylib.ops.graph import graph
from summarylib.ops.graph.encoding import graph_def_bytes, graph_event
from summarylib.proto import event_pb2, graph_pb2, types_pb2
from tests.tensorboard_server import LOADERS, get, get_json, running_tensorboard, wait_for


def handmade_graph() -> graph_pb2.GraphDef:
    """A small GraphDef using every kind of attr the dashboard reads."""
    graph_def = graph_pb2.GraphDef()
    graph_def.versions.producer = 22
    x = graph_def.node.add(name="input/x", op="Placeholder", device="/device:CPU:0")
    x.attr["dtype"].type = types_pb2.DT_FLOAT
    x.attr["shape"].shape.dim.add(size=2)
    x.attr["_output_shapes"].list.shape.add().dim.add(size=2)
    dense = graph_def.node.add(
        name="model/dense/MatMul", op="MatMul", input=["input/x", "model/dense/kernel"]
    )
    dense.attr["T"].type = types_pb2.DT_FLOAT
    dense.attr["transpose_a"].b = False
    dense.attr["note"].s = "ünïcode".encode()
    dense.attr["alpha"].f = 0.5
    dense.attr["axis"].i = -1
    dense.attr["sizes"].list.i.extend([1, 2, 3])
    dense.attr["names"].list.s.extend([b"a", b"b"])
    dense.attr["types"].list.type.extend([types_pb2.DT_FLOAT, types_pb2.DT_INT64])
    dense.attr["f"].func.name = "body"
    graph_def.node.add(name="model/dense/kernel", op="VariableV2")
    return graph_def


def tensorboard_events(logdir: str) -> list[tb_event_pb2.Event]:
    """The events of the one event file in `logdir`, parsed by TensorBoard's own loader."""
    (path,) = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
    return list(event_file_loader.EventFileLoader(path).Load())


def written_graphs(logdir: str) -> list[tuple[int, bytes]]:
    return [(e.step, e.graph_def) for e in tensorboard_events(logdir) if e.HasField("graph_def")]


# The encoding


def test_graph_event_is_event_field_4_as_protobuf_writes_it():
    data = handmade_graph().SerializeToString()
    for wall_time, step in [(0.0, 0), (1.5, 0), (1234.25, 7), (-0.0, -3)]:
        expected = event_pb2.Event(wall_time=wall_time, step=step, graph_def=data).SerializeToString()
        assert graph_event(wall_time, step, data) == expected
    parsed = tb_event_pb2.Event.FromString(graph_event(2.0, 5, data))
    assert parsed.WhichOneof("what") == "graph_def"
    assert tb_event_pb2.Event.DESCRIPTOR.fields_by_name["graph_def"].number == 4
    assert tb_graph_pb2.GraphDef.FromString(parsed.graph_def) == tb_graph_pb2.GraphDef.FromString(data)


def test_tensorboard_graph_def_parses_ours_to_an_equal_message():
    ours = handmade_graph()
    theirs = tb_graph_pb2.GraphDef.FromString(ours.SerializeToString())
    assert text_format.MessageToString(theirs) == text_format.MessageToString(ours)
    assert graph_pb2.GraphDef.FromString(theirs.SerializeToString()) == ours


def test_graph_def_bytes_accepts_every_graph_form():
    ours = handmade_graph()
    data = ours.SerializeToString()
    theirs = tb_graph_pb2.GraphDef.FromString(data)

    class FakeTfGraph:  # what tf.Graph offers
        def as_graph_def(self):
            return theirs

    assert graph_def_bytes(ours) == data
    assert graph_def_bytes(data) == data
    assert graph_def_bytes(bytearray(data)) == data
    assert graph_def_bytes(memoryview(data)) == data
    assert graph_def_bytes(b"") == b""
    # Map entries may serialize in another order: the same message either way.
    assert graph_pb2.GraphDef.FromString(graph_def_bytes(theirs)) == ours
    assert graph_pb2.GraphDef.FromString(graph_def_bytes(FakeTfGraph())) == ours


@pytest.mark.parametrize(
    "value, kind, words",
    [
        ("a graph", TypeError, "got builtins.str"),
        (None, TypeError, "got builtins.NoneType"),
        (event_pb2.Event(), TypeError, "expected a GraphDef"),
        (b"\xff\xff\xff", ValueError, "not a serialized GraphDef"),
    ],
)
def test_graph_rejects_what_is_not_a_graph_naming_the_argument(logdir, value, kind, words):
    with summarylib.create_file_writer(logdir).as_default(), pytest.raises(kind, match=words) as raised:
        graph(value)
    assert "summarylib.graph: argument 'graph_def'" in str(raised.value)


# The op bound to the default writer


def test_graph_writes_at_step_0_by_default_and_at_a_given_step(logdir):
    data = handmade_graph().SerializeToString()
    writer = summarylib.create_file_writer(logdir)
    with writer.as_default(step=9):
        assert graph(handmade_graph()) is True
        assert graph(data, step=3) is True
        assert graph(data, step=None) is True
    writer.close()
    assert written_graphs(logdir) == [(0, data), (3, data), (9, data)]


def test_graph_is_a_snapshot_at_the_call(logdir):
    graph_def = handmade_graph()
    expected = graph_def.SerializeToString()
    writer = summarylib.create_file_writer(logdir)
    with writer.as_default():
        graph(graph_def)
        graph_def.node.add(name="later")
    writer.close()
    assert written_graphs(logdir) == [(0, expected)]


def test_graph_without_writer_or_recording_writes_nothing(logdir):
    assert graph("not even a graph") is False
    writer = summarylib.create_file_writer(logdir)
    with writer.as_default(), summarylib.record_if(False):
        assert graph("not even a graph") is False
    writer.close()
    assert written_graphs(logdir) == []


def _torch_file_writer(logdir: str):
    from torch.utils.tensorboard.writer import FileWriter

    return FileWriter(logdir)


def _tensorboardx_file_writer(logdir: str):
    from tensorboardX.writer import FileWriter

    return FileWriter(logdir)


@pytest.mark.parametrize("make_writer", [_torch_file_writer, _tensorboardx_file_writer], ids=["torch", "tbx"])
def test_same_event_as_torch_and_tensorboardx_write_for_the_same_graph_def(tmp_path, make_writer):
    """torch.utils.tensorboard and tensorboardX write Event{graph_def} of the GraphDef's
    bytes; ours is that event, byte for byte, at the same wall time and step."""
    reference = tb_graph_pb2.GraphDef(
        node=[
            node_proto("input/x", op="IO Node", outputsize=[2, 3]),
            node_proto("Net/Linear[fc]/linear", op="aten::linear", input=["input/x"], outputsize=[2, 4]),
        ]
    )
    their_dir, our_dir = str(tmp_path / "theirs"), str(tmp_path / "ours")
    their_writer = make_writer(their_dir)
    their_writer.add_onnx_graph(reference, walltime=1234.5)
    their_writer.close()
    writer = summarylib.create_file_writer(our_dir)
    writer.write_event(graph_event(1234.5, 0, graph_def_bytes(reference)))
    writer.close()
    (theirs,) = [e for e in tensorboard_events(their_dir) if e.HasField("graph_def")]
    (ours,) = [e for e in tensorboard_events(our_dir) if e.HasField("graph_def")]
    assert ours.SerializeToString() == theirs.SerializeToString()
    assert tb_graph_pb2.GraphDef.FromString(ours.graph_def) == reference


# A real TensorBoard's graphs plugin


class _Encoder(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        layer = torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.head = torch.nn.Linear(8, 3)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(tokens))


@pytest.fixture(scope="module")
def graph_logdir(tmp_path_factory):
    """Two runs: a hand-made GraphDef and a traced transformer encoder."""
    logdir = str(tmp_path_factory.mktemp("graphs"))
    torch.manual_seed(0)
    traced = trace_graph(_Encoder().eval(), torch.randn(2, 5, 8))
    for run, graph_def in [("handmade", handmade_graph()), ("transformer", traced)]:
        with summarylib.create_file_writer(os.path.join(logdir, run)) as writer, writer.as_default():
            graph(graph_def)
    return logdir, {"handmade": handmade_graph(), "transformer": traced}


@pytest.fixture(scope="module", params=LOADERS, ids=["python_loader", "rust_loader"])
def graphs_server(request, graph_logdir):
    logdir, graphs = graph_logdir
    with running_tensorboard(logdir, load_fast=request.param) as base:
        yield base, graphs


@pytest.mark.slow
def test_graphs_plugin_lists_each_run_graph(graphs_server):
    base, graphs = graphs_server
    info = wait_for(
        lambda: get_json(base, "data/plugin/graphs/info"),
        lambda answer: set(graphs) <= set(answer),
    )
    for run in graphs:
        assert info[run]["run_graph"] is True


@pytest.mark.slow
def test_graphs_plugin_serves_the_written_graph(graphs_server):
    base, graphs = graphs_server
    for run, expected in graphs.items():
        body = wait_for(lambda run=run: get(base, "data/plugin/graphs/graph", run=run), bool)
        served = text_format.Parse(body.decode(), tb_graph_pb2.GraphDef())
        assert served == tb_graph_pb2.GraphDef.FromString(expected.SerializeToString())


@pytest.mark.slow
def test_graphs_plugin_shows_the_module_hierarchy_of_a_traced_transformer(graphs_server):
    base, _ = graphs_server
    body = wait_for(lambda: get(base, "data/plugin/graphs/graph", run="transformer"), bool)
    served = text_format.Parse(body.decode(), tb_graph_pb2.GraphDef())
    names = {node.name for node in served.node}
    assert "_Encoder/encoder/layers.0/self_attn/multi_head_attention_forward" in names
    assert "_Encoder/encoder/layers.1/linear1/Linear" in names
    assert "_Encoder/head/Linear" in names
    assert {"input/tokens", "output"} <= names
    linear = next(node for node in served.node if node.name == "_Encoder/encoder/layers.0/linear1/Linear")
    (shape,) = linear.attr["_output_shapes"].list.shape
    assert [d.size for d in shape.dim] == [2, 5, 16]
