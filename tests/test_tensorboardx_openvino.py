"""compat.tensorboardX's `add_openvino_graph(xmlname)` writes the graph tensorboardX writes
for an OpenVINO IR file (issue 29): tensorboardX parses the XML itself, without openvino,
and so do we. Compared with tensorboardX's own file through TensorBoard's
`EventAccumulator.Graph()` (what the graphs dashboard loads) and the raw events."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("tensorboardX", reason="tensorboardX is not installed (the frameworks extra)")

import tensorboardX
from tensorboard.backend.event_processing import event_file_loader
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from summarylib.compat.tensorboardX import SummaryWriter

# A small IR of version 11: a parameter feeding a convolution and an add (a layer with
# two inputs), a constant no edge leaves from, a layer no edge touches, and a
# TensorIterator-like layer whose body holds layers and edges of its own (not the net's).
IR_XML = """<?xml version="1.0"?>
<net name="tiny" version="11">
  <layers>
    <layer id="0" name="input" type="Parameter" version="opset1">
      <data shape="1,3,8,8" element_type="f32"/>
      <output><port id="0" precision="FP32"><dim>1</dim><dim>3</dim></port></output>
    </layer>
    <layer id="1" name="weights" type="Const" version="opset1"><data offset="0" size="108"/></layer>
    <layer id="2" name="conv" type="Convolution" version="opset1"><data strides="1,1"/></layer>
    <layer id="3" name="add" type="Add" version="opset1"/>
    <layer id="4" name="loop" type="TensorIterator" version="opset1">
      <body>
        <layers><layer id="0" name="inner" type="Parameter" version="opset1"/></layers>
        <edges><edge from-layer="0" from-port="0" to-layer="0" to-port="0"/></edges>
      </body>
    </layer>
    <layer id="5" name="output" type="Result" version="opset1"/>
    <layer id="6" name="unused" type="Const" version="opset1"/>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
    <edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
    <edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
    <edge from-layer="0" from-port="0" to-layer="3" to-port="1"/>
    <edge from-layer="3" from-port="2" to-layer="4" to-port="0"/>
    <edge from-layer="4" from-port="1" to-layer="5" to-port="0"/>
  </edges>
</net>
"""


def graph_events(logdir: str) -> list[tuple[int, bytes]]:
    (name,) = (name for name in os.listdir(logdir) if "tfevents" in name)
    events = event_file_loader.LegacyEventFileLoader(os.path.join(logdir, name)).Load()
    return [(event.step, event.graph_def) for event in events if event.HasField("graph_def")]


def test_the_graph_is_the_one_tensorboardx_writes(tmp_path):
    xml = tmp_path / "model.xml"
    xml.write_text(IR_XML)
    graphs = {}
    for name, writer_class in (("theirs", tensorboardX.SummaryWriter), ("ours", SummaryWriter)):
        logdir = str(tmp_path / name)
        with writer_class(logdir) as writer:
            writer.add_openvino_graph(str(xml))
        accumulator = EventAccumulator(logdir)
        accumulator.Reload()
        graphs[name] = (accumulator.Graph(), graph_events(logdir))
    (theirs, their_events), (ours, our_events) = graphs["theirs"], graphs["ours"]
    assert ours == theirs
    assert our_events == their_events  # one event, at the same step, the same GraphDef bytes
    nodes = [(node.name, node.op, list(node.input), dict(node.attr)) for node in ours.node]
    assert [(name, inputs) for name, _, inputs, _ in nodes] == [
        ("conv", ["input"]),
        ("conv", ["weights"]),
        ("add", ["conv"]),
        ("add", ["input"]),
        ("loop", ["add"]),
        ("output", ["loop"]),
    ]
    assert {op for _, op, _, _ in nodes} == {"op"} and ours.versions.producer == 22


def test_a_path_object_is_taken(tmp_path):
    xml = tmp_path / "model.xml"
    xml.write_text(IR_XML)
    with SummaryWriter(str(tmp_path / "run")) as writer:
        writer.add_openvino_graph(xml)
    assert len(graph_events(str(tmp_path / "run"))) == 1


BAD_FILES = {
    "not XML": ("<net><layers>", "is not well-formed XML"),
    "no layers": ("<net><edges/></net>", "has no <layers> in its root <net>"),
    "layer without a name": (
        '<net><layers><layer id="0"/></layers><edges/></net>',
        "without the attribute 'name'",
    ),
    "edge to no layer": (
        '<net><layers><layer id="0" name="a"/></layers>'
        '<edges><edge from-layer="0" to-layer="7"/></edges></net>',
        "the layer id '7', which no <layer> has",
    ),
    "entities": (
        '<!DOCTYPE net [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
        '<net name="&b;"><layers/><edges/></net>',
        "declares the entity 'a'",
    ),
    "external entity": (
        '<!DOCTYPE net [<!ENTITY secret SYSTEM "file:///etc/hostname">]>'
        '<net name="&secret;"><layers/><edges/></net>',
        "declares the entity 'secret'",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_a_file_that_is_no_ir_is_a_value_error_naming_the_file(tmp_path, case):
    text, problem = BAD_FILES[case]
    xml = tmp_path / "model.xml"
    xml.write_text(text)
    with SummaryWriter(str(tmp_path / "run")) as writer, pytest.raises(ValueError) as raised:
        writer.add_openvino_graph(str(xml))
    message = str(raised.value)
    assert message.startswith(f"summarylib.add_openvino_graph: argument 'xmlname': the file {str(xml)!r}")
    assert problem in message
    assert graph_events(str(tmp_path / "run")) == []


def test_a_missing_file_is_the_same_error_as_in_tensorboardx(tmp_path):
    missing = str(tmp_path / "missing.xml")
    for writer_class in (tensorboardX.SummaryWriter, SummaryWriter):
        with (
            writer_class(str(tmp_path / writer_class.__module__)) as writer,
            pytest.raises(FileNotFoundError),
        ):
            writer.add_openvino_graph(missing)


def test_a_name_that_is_no_path_is_a_type_error(tmp_path):
    with SummaryWriter(str(tmp_path)) as writer, pytest.raises(TypeError) as raised:
        writer.add_openvino_graph(3)
    assert str(raised.value).startswith(
        "summarylib.add_openvino_graph: argument 'xmlname': expected the path"
    )
