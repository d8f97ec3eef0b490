"""The mesh op: TensorBoard's own `mesh_pb` encoding field by field, TensorBoard's mesh
dashboard serving what it wrote (both data loaders), and bad input rejected at the call."""

from __future__ import annotations

import types

import numpy as np
import pytest
from tensorboard.compat.proto import tensor_pb2 as tb_tensor_pb2
from tensorboard.compat.tensorflow_stub import dtypes as tb_dtypes
from tensorboard.plugins.mesh import plugin_data_pb2 as tb_mesh_pb2
from tensorboard.plugins.mesh import summary_v2 as tb_mesh
from tensorboard.util import tensor_util

import summarylib as sl
from summarylib.ops.mesh import encoding as mesh_encoding
from summarylib.ops.mesh import mesh
from summarylib.proto import mesh_pb2
from tests.helpers import written_values
from tests.tensorboard_data import read_tensors
from tests.tensorboard_server import LOADERS, get, get_json, running_tensorboard, wait_for

RNG = np.random.default_rng(7)
VERTICES = RNG.normal(size=(2, 5, 3))
FACES = np.array([[[0, 1, 2], [2, 3, 4]], [[0, 2, 4], [1, 3, 4]]])
COLORS = RNG.integers(0, 256, size=(2, 5, 3))
BAD_COLORS = COLORS.copy()
BAD_COLORS[0, 0, 0] = 256
CONFIG = {"camera": {"cls": "PerspectiveCamera", "fov": 75}, "lights": [{"cls": "AmbientLight"}]}

# (id, keyword arguments of mesh besides the name)
CASES = [
    ("point cloud", {"vertices": VERTICES}),
    ("vertices and faces", {"vertices": VERTICES, "faces": FACES}),
    ("vertices and colors", {"vertices": VERTICES, "colors": COLORS}),
    ("all", {"vertices": VERTICES, "faces": FACES, "colors": COLORS, "config_dict": CONFIG}),
    ("float32 and uint8 in", {"vertices": VERTICES.astype(np.float32), "colors": COLORS.astype(np.uint8)}),
    ("int vertices", {"vertices": np.arange(18).reshape(1, 6, 3)}),
    ("description", {"vertices": VERTICES, "description": "a *cloud*"}),
    ("lists", {"vertices": [[[0.0, 0, 0], [1, 0, 0], [0, 1, 0]]], "faces": [[[0, 1, 2]]]}),
]


def tensorboard_mesh_pb(monkeypatch, tag, **kwargs):
    """TensorBoard's own `mesh_pb`, with its TensorFlow dtypes taken from TensorBoard's
    TensorFlow stub (mesh_pb uses tf only to name float32, int32 and uint8)."""
    stub = types.SimpleNamespace(float32=tb_dtypes.float32, int32=tb_dtypes.int32, uint8=tb_dtypes.uint8)
    monkeypatch.setattr(tb_mesh, "tf", stub)
    arrays = {k: np.asarray(v) if k in ("vertices", "faces", "colors") else v for k, v in kwargs.items()}
    return tb_mesh.mesh_pb(tag, **arrays).value


def assert_same_values(ours, theirs):
    """Our (tag, TensorProto, SummaryMetadata) triples equal TensorBoard's Summary values."""
    assert [tag for tag, _, _ in ours] == [value.tag for value in theirs]
    for (_, tensor, metadata), value in zip(ours, theirs, strict=True):
        our_tensor = tensor_util.make_ndarray(
            tb_tensor_pb2.TensorProto.FromString(tensor.SerializeToString())
        )
        their_tensor = tensor_util.make_ndarray(value.tensor)
        assert our_tensor.dtype == their_tensor.dtype
        np.testing.assert_array_equal(our_tensor, their_tensor)
        assert tensor.dtype == value.tensor.dtype
        assert metadata.plugin_data.plugin_name == value.metadata.plugin_data.plugin_name == "mesh"
        assert metadata.summary_description == value.metadata.summary_description
        assert metadata.display_name == value.metadata.display_name
        ours_content = tb_mesh_pb2.MeshPluginData.FromString(metadata.plugin_data.content)
        theirs_content = tb_mesh_pb2.MeshPluginData.FromString(value.metadata.plugin_data.content)
        assert ours_content == theirs_content


@pytest.mark.parametrize("kwargs", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_encoding_is_tensorboards(monkeypatch, kwargs):
    assert_same_values(
        mesh_encoding.encode("shape", **kwargs), tensorboard_mesh_pb(monkeypatch, "shape", **kwargs)
    )


def test_proto_matches_tensorboards():
    ours, theirs = mesh_pb2.MeshPluginData.DESCRIPTOR, tb_mesh_pb2.MeshPluginData.DESCRIPTOR
    assert {f.name: (f.number, f.type, f.is_repeated) for f in ours.fields} == {
        f.name: (f.number, f.type, f.is_repeated) for f in theirs.fields
    }
    assert {v.name: v.number for v in ours.enum_types_by_name["ContentType"].values} == {
        v.name: v.number for v in theirs.enum_types_by_name["ContentType"].values
    }


def test_op_writes_one_summary_a_component(monkeypatch, logdir):
    kwargs = dict(CASES[3][1])
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=5):
        assert mesh("shape", **kwargs)
    writer.close()
    written = written_values(writer.path)
    assert [step for step, _ in written] == [5, 5, 5]
    values = [value for _, value in written]
    theirs = tensorboard_mesh_pb(monkeypatch, "shape", **kwargs)
    assert_same_values([(v.tag, v.tensor, v.metadata) for v in values], theirs)
    tensors = read_tensors(logdir, "mesh")["."]
    assert sorted(tensors) == ["shape_COLOR", "shape_FACE", "shape_VERTEX"]
    np.testing.assert_array_equal(tensors["shape_FACE"][0][1], FACES)


def test_no_writer_or_not_recording(logdir):
    assert mesh("shape", "not even an array") is False
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0), sl.record_if(False):
        assert mesh("shape", "not even an array") is False
    writer.close()
    assert written_values(writer.path) == []


def test_snapshot_at_the_call(logdir):
    vertices = VERTICES.astype(np.float32)
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0):
        mesh("shape", vertices)
        vertices[:] = 0
    writer.close()
    ((_, value),) = written_values(writer.path)
    np.testing.assert_array_equal(
        np.frombuffer(value.tensor.tensor_content, np.float32).reshape(2, 5, 3), VERTICES.astype(np.float32)
    )


# (id, kwargs, error type, words in the message)
INVALID = [
    ("vertices rank 2", {"vertices": np.zeros((5, 3))}, ValueError, ["'vertices'", "[b, n, 3]", "[5, 3]"]),
    ("vertices not xyz", {"vertices": np.zeros((1, 5, 2))}, ValueError, ["'vertices'", "[1, 5, 2]"]),
    ("vertices strings", {"vertices": np.array([[["a", "b", "c"]]])}, TypeError, ["'vertices'", "<U1"]),
    ("vertices bool", {"vertices": np.zeros((1, 2, 3), bool)}, TypeError, ["'vertices'", "bool"]),
    ("vertices complex", {"vertices": np.zeros((1, 2, 3), complex)}, TypeError, ["'vertices'", "complex"]),
    ("faces float", {"vertices": VERTICES, "faces": FACES.astype(float)}, TypeError, ["'faces'", "integers"]),
    (
        "faces samples",
        {"vertices": VERTICES, "faces": FACES[:1]},
        ValueError,
        ["'faces'", "[2, f, 3]", "[1, 2, 3]"],
    ),
    (
        "faces not triangles",
        {"vertices": VERTICES, "faces": FACES[..., :2]},
        ValueError,
        ["'faces'", "[2, 2, 2]"],
    ),
    (
        "face index too big",
        {"vertices": VERTICES, "faces": FACES + 1},
        ValueError,
        ["'faces'", "0 to 4", "1 to 5"],
    ),
    ("face index negative", {"vertices": VERTICES, "faces": FACES - 1}, ValueError, ["'faces'", "-1 to 3"]),
    (
        "colors per vertex",
        {"vertices": VERTICES, "colors": COLORS[:, :4]},
        ValueError,
        ["'colors'", "[2, 5, 3]"],
    ),
    ("colors float", {"vertices": VERTICES, "colors": COLORS / 255}, TypeError, ["'colors'", "float64"]),
    (
        "colors range",
        {"vertices": VERTICES, "colors": BAD_COLORS},
        ValueError,
        ["'colors'", "0 to 255"],
    ),
    ("config not a dict", {"vertices": VERTICES, "config_dict": "{}"}, TypeError, ["'config_dict'", "str"]),
    (
        "config not JSON",
        {"vertices": VERTICES, "config_dict": {"a": object()}},
        TypeError,
        ["'config_dict'", "JSON"],
    ),
    ("description", {"vertices": VERTICES, "description": 3}, TypeError, ["'description'", "int"]),
]


@pytest.mark.parametrize(("kwargs", "error", "words"), [c[1:] for c in INVALID], ids=[c[0] for c in INVALID])
def test_rejected_at_the_call(logdir, kwargs, error, words):
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0), pytest.raises(error) as raised:
        mesh("shape", **kwargs)
    writer.close()
    message = str(raised.value)
    assert message.startswith("summarylib.mesh: tag 'shape': argument ")
    for word in words:
        assert word in message
    assert written_values(writer.path) == []


@pytest.fixture(scope="module", params=LOADERS, ids=["python loader", "rust loader"])
def served_meshes(request, tmp_path_factory):
    """A TensorBoard over a logdir with two steps of a colored mesh and a point cloud."""
    logdir = str(tmp_path_factory.mktemp("mesh"))
    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        for step in (1, 2):
            mesh("shape", VERTICES * step, faces=FACES, colors=COLORS, config_dict=CONFIG, step=step)
        mesh("cloud", VERTICES[:1], step=3)
    writer.close()
    with running_tensorboard(logdir, load_fast=request.param) as base:
        yield base


@pytest.mark.slow
def test_dashboard_lists_and_serves_meshes(served_meshes):
    base = served_meshes
    tags = wait_for(lambda: get_json(base, "data/plugin/mesh/tags"), lambda r: len(r.get(".", {})) == 2)
    assert tags == {".": {"shape": {"samples": 2}, "cloud": {"samples": 1}}}
    meshes = get_json(base, "data/plugin/mesh/meshes", run=".", tag="shape", sample=0)
    assert sorted((m["step"], m["content_type"]) for m in meshes) == [
        (s, t) for s in (1, 2) for t in (1, 2, 3)
    ]
    for entry in meshes:
        assert entry["components"] == 0b1110
        assert entry["config"] == mesh_encoding.json_config(CONFIG)
    shapes = {m["content_type"]: m["data_shape"] for m in meshes}
    assert shapes == {1: [2, 5, 3], 2: [2, 2, 3], 3: [2, 5, 3]}

    def data(content_type, dtype, sample, step=2, tag="shape"):
        raw = get(
            base,
            "data/plugin/mesh/data",
            run=".",
            tag=tag,
            content_type=content_type,
            sample=sample,
            step=step,
        )
        return np.frombuffer(raw, dtype).reshape(-1, 3)

    np.testing.assert_array_equal(data("VERTEX", np.float32, 1), (VERTICES[1] * 2).astype(np.float32))
    np.testing.assert_array_equal(data("FACE", np.int32, 1), FACES[1])
    np.testing.assert_array_equal(data("COLOR", np.uint8, 0), COLORS[0])
    np.testing.assert_array_equal(
        data("VERTEX", np.float32, 0, step=3, tag="cloud"), VERTICES[0].astype(np.float32)
    )
