"""Our .proto files are an interface: field numbers and types must match TensorBoard's,
the generated code must be current, and both sets of protos must live in one process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from google.protobuf import descriptor

from summarylib.proto import (
    custom_scalar_pb2,
    event_pb2,
    graph_pb2,
    histogram_pb2,
    hparams_pb2,
    mesh_pb2,
    plugin_data_pb2,
    projector_config_pb2,
    summary_pb2,
    tensor_pb2,
    types_pb2,
)

ROOT = Path(__file__).resolve().parent.parent


def tensorboard_modules():
    from google.protobuf import struct_pb2
    from tensorboard.compat.proto import attr_value_pb2 as tb_attr_value
    from tensorboard.compat.proto import event_pb2 as tb_event
    from tensorboard.compat.proto import graph_pb2 as tb_graph
    from tensorboard.compat.proto import histogram_pb2 as tb_histogram
    from tensorboard.compat.proto import node_def_pb2 as tb_node_def
    from tensorboard.compat.proto import summary_pb2 as tb_summary
    from tensorboard.compat.proto import tensor_pb2 as tb_tensor
    from tensorboard.compat.proto import types_pb2 as tb_types
    from tensorboard.compat.proto import versions_pb2 as tb_versions
    from tensorboard.plugins.audio import plugin_data_pb2 as tb_audio
    from tensorboard.plugins.custom_scalar import layout_pb2 as tb_layout
    from tensorboard.plugins.hparams import api_pb2 as tb_hparams_api
    from tensorboard.plugins.hparams import plugin_data_pb2 as tb_hparams
    from tensorboard.plugins.mesh import plugin_data_pb2 as tb_mesh
    from tensorboard.plugins.pr_curve import plugin_data_pb2 as tb_pr
    from tensorboard.plugins.projector import projector_config_pb2 as tb_projector
    from tensorboard.plugins.text import plugin_data_pb2 as tb_text

    return {
        event_pb2: [tb_event],
        summary_pb2: [tb_summary],
        tensor_pb2: [tb_tensor],
        histogram_pb2: [tb_histogram],
        types_pb2: [tb_types],
        plugin_data_pb2: [tb_audio, tb_text, tb_pr],
        graph_pb2: [tb_graph, tb_node_def, tb_attr_value, tb_versions],
        hparams_pb2: [tb_hparams, tb_hparams_api, struct_pb2],
        custom_scalar_pb2: [tb_layout],
        mesh_pb2: [tb_mesh],
        projector_config_pb2: [tb_projector],
    }


def _messages(message: descriptor.Descriptor):
    yield message
    for nested in message.nested_types:
        yield from _messages(nested)


# Our names for TensorBoard's messages and enums where its name would clash in our package
# (summarylib.DataType exists) or needs a file we do not import (google/protobuf/struct).
_ALIASES = {"HParamValue": "Value", "HParamValueList": "ListValue", "HParamDataType": "DataType"}


def _theirs(name: str, modules) -> descriptor.Descriptor:
    top, *nested = name.split(".")
    top = _ALIASES.get(top, top)
    for module in modules:
        if top in module.DESCRIPTOR.message_types_by_name:
            found = module.DESCRIPTOR.message_types_by_name[top]
            for part in nested:
                found = found.nested_types_by_name[part]
            return found
    raise AssertionError(f"TensorBoard has no message {name}")


def _short(descriptor_or_none) -> str | None:
    if descriptor_or_none is None:
        return None
    return _ALIASES.get(descriptor_or_none.name, descriptor_or_none.name)


@pytest.mark.slow
def test_generated_code_is_current():
    pytest.importorskip("grpc_tools", reason="grpcio-tools is not installed (the dev extra)")
    result = subprocess.run(
        [sys.executable, str(ROOT / "proto" / "generate.py"), "--check"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("ours", list(tensorboard_modules()), ids=lambda m: m.__name__)
def test_fields_match_tensorboard(ours):
    modules = tensorboard_modules()[ours]
    for top in ours.DESCRIPTOR.message_types_by_name.values():
        for message in _messages(top):
            name = message.full_name.removeprefix("summarylib.")
            theirs = _theirs(name, modules)
            assert ours.DESCRIPTOR.package == "summarylib"
            for field in message.fields:
                other = theirs.fields_by_number.get(field.number)
                assert other is not None, f"{name}.{field.name} = {field.number} is not in TensorBoard's"
                assert (field.name, field.type, field.is_repeated) == (
                    other.name,
                    other.type,
                    other.is_repeated,
                ), name
                assert _short(field.message_type) == _short(other.message_type), f"{name}.{field.name}"
                assert _short(field.enum_type) == _short(other.enum_type), f"{name}.{field.name}"
            for enum in message.enum_types:
                their_values = {v.name: v.number for v in theirs.enum_types_by_name[enum.name].values}
                assert {v.name: v.number for v in enum.values}.items() <= their_values.items()
    for enum in ours.DESCRIPTOR.enum_types_by_name.values():
        their_name = _ALIASES.get(enum.name, enum.name)
        module = next(m for m in modules if their_name in m.DESCRIPTOR.enum_types_by_name)
        their_values = {v.name: v.number for v in module.DESCRIPTOR.enum_types_by_name[their_name].values}
        assert {v.name: v.number for v in enum.values}.items() <= their_values.items()


def _full_event(event_module, summary_module):
    event = event_module.Event(wall_time=1234.5, step=-7)
    value = event.summary.value.add(tag="loss/train")
    value.metadata.plugin_data.plugin_name = "scalars"
    value.metadata.summary_description = "the loss"
    value.metadata.data_class = 1
    value.tensor.dtype = 1
    value.tensor.tensor_shape.dim.add(size=3)
    value.tensor.tensor_content = b"\x00" * 12
    event.summary.value.add(tag="h").histo.bucket_limit.extend([1.0, 2.0])
    image = event.summary.value.add(tag="i").image
    image.width, image.height, image.colorspace, image.encoded_image_string = 2, 3, 4, b"png"
    event.summary.value.add(tag="a").audio.sample_rate = 44100.0
    event.source_metadata.writer = "summarylib"
    return event


def test_round_trip_with_tensorboard_protos_in_one_process():
    from tensorboard.compat.proto import event_pb2 as tb_event
    from tensorboard.compat.proto import summary_pb2 as tb_summary

    ours = _full_event(event_pb2, summary_pb2)
    theirs = tb_event.Event.FromString(ours.SerializeToString())
    assert theirs.summary.value[0].tag == "loss/train"
    assert theirs.summary.value[0].metadata.summary_description == "the loss"
    assert list(theirs.summary.value[1].histo.bucket_limit) == [1.0, 2.0]
    assert theirs.SerializeToString() == ours.SerializeToString()
    back = event_pb2.Event.FromString(_full_event(tb_event, tb_summary).SerializeToString())
    assert back == ours


def test_session_log_and_plugin_data_round_trip():
    from tensorboard.compat.proto import event_pb2 as tb_event
    from tensorboard.plugins.pr_curve import plugin_data_pb2 as tb_pr

    log = event_pb2.Event(
        step=3, session_log=event_pb2.SessionLog(status=event_pb2.SessionLog.START, msg="restart")
    )
    theirs = tb_event.Event.FromString(log.SerializeToString())
    assert theirs.session_log.status == tb_event.SessionLog.START and theirs.session_log.msg == "restart"
    pr = plugin_data_pb2.PrCurvePluginData(version=0, num_thresholds=201)
    assert tb_pr.PrCurvePluginData.FromString(pr.SerializeToString()).num_thresholds == 201
