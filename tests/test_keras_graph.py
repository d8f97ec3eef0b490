"""The Keras conceptual graph: what Keras's own `keras_model_summary` writes, and TensorBoard's
graphs dashboard listing and drawing it (both data loaders)."""

from __future__ import annotations

import contextlib
import os
import sys
import types

os.environ.setdefault("KERAS_BACKEND", "torch")

import pytest

pytest.importorskip("keras", reason="keras is not installed (the frameworks extra)")

import keras
from keras.src.callbacks import tensorboard as keras_tensorboard
from tensorboard.compat.proto import summary_pb2 as tb_summary_pb2

import summarylib as sl
from summarylib.integrations.keras import model_graph
from tests.helpers import written_values
from tests.tensorboard_server import LOADERS, get, get_json, running_tensorboard, wait_for


def functional_model() -> keras.Model:
    inputs = keras.Input((4,), name="features")
    hidden = keras.layers.Dense(3, activation="relu", name="hidden")(inputs)
    outputs = keras.layers.Dense(1, name="score")(hidden)
    return keras.Model(inputs, outputs, name="scorer")


def sequential_model() -> keras.Model:
    return keras.Sequential([keras.Input((2,)), keras.layers.Dense(2, name="only")], name="tiny")


def keras_reference(monkeypatch, model) -> dict:
    """What Keras's own `keras_model_summary("keras", model, step=0)` hands to
    `tf.summary.write`. TensorFlow is not installed, so the two TensorFlow names it
    imports are stood in for: `SummaryMetadata` is TensorBoard's (the same message), and
    `summary.write` records its arguments."""
    recorded = {}

    @contextlib.contextmanager
    def summary_scope(name, default_name=None, values=None):
        yield name, name

    def write(tag, tensor, step=None, metadata=None):
        recorded.update(tag=tag, tensor=tensor, step=step, metadata=metadata)
        return True

    summary = types.ModuleType("tensorflow.summary")
    summary.write = write
    summary.experimental = types.SimpleNamespace(summary_scope=summary_scope)
    v1 = types.ModuleType("tensorflow.compat.v1")
    v1.SummaryMetadata = tb_summary_pb2.SummaryMetadata
    tensorflow = types.ModuleType("tensorflow")
    tensorflow.summary = summary
    for name, module in {
        "tensorflow": tensorflow,
        "tensorflow.summary": summary,
        "tensorflow.compat": types.ModuleType("tensorflow.compat"),
        "tensorflow.compat.v1": v1,
    }.items():
        monkeypatch.setitem(sys.modules, name, module)
    assert keras_tensorboard.keras_model_summary("keras", model, step=0)
    return recorded


@pytest.mark.parametrize("make_model", [functional_model, sequential_model])
def test_same_summary_as_keras(monkeypatch, logdir, make_model):
    model = make_model()
    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        assert model_graph(model)
    writer.close()
    ((step, value),) = written_values(writer.path)
    theirs = keras_reference(monkeypatch, model)
    assert (value.tag, step) == (theirs["tag"], theirs["step"]) == ("keras", 0)
    assert value.metadata.SerializeToString() == theirs["metadata"].SerializeToString()
    assert value.metadata.plugin_data.plugin_name == "graph_keras_model"
    assert value.metadata.plugin_data.content == b"1"
    # A scalar string tensor, as tf.summary.write makes of a Python str.
    assert value.tensor.dtype == 7 and not value.tensor.tensor_shape.dim
    assert list(value.tensor.string_val) == [theirs["tensor"].encode()] == [model.to_json().encode()]


def test_step_and_snapshot(logdir):
    model = sequential_model()
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=7):
        assert model_graph(model, step=None)
        expected = model.to_json()
        model.layers[0].name = "renamed"  # after the call: not written
        assert model_graph(model, step=3)
    writer.close()
    (first_step, first), (second_step, _) = written_values(writer.path)
    assert (first_step, second_step) == (7, 3)
    assert first.tensor.string_val == [expected.encode()]


def test_no_writer_or_not_recording(logdir):
    assert model_graph("not a model") is False
    writer = sl.create_file_writer(logdir)
    with writer.as_default(), sl.record_if(False):
        assert model_graph("not a model") is False
    writer.close()
    assert written_values(writer.path) == []


def test_not_a_model(logdir):
    writer = sl.create_file_writer(logdir)
    with writer.as_default(), pytest.raises(TypeError) as raised:
        model_graph(42)
    writer.close()
    assert str(raised.value) == (
        "summarylib.integrations.keras.model_graph: tag 'keras': argument 'model': "
        "expected a Keras model (with to_json()), got int"
    )


def test_model_that_cannot_serialize_is_skipped_with_a_warning(logdir):
    class Subclassed(keras.Model):
        def call(self, inputs):
            return inputs

    def refuse():
        raise NotImplementedError("no config")

    model = Subclassed()
    model.to_json = refuse
    writer = sl.create_file_writer(logdir)
    with writer.as_default(), pytest.warns(UserWarning, match="no config"):
        assert model_graph(model) is False
    writer.close()
    assert written_values(writer.path) == []


@pytest.fixture(scope="module", params=LOADERS, ids=["python loader", "rust loader"])
def served_graph(request, tmp_path_factory):
    logdir = tmp_path_factory.mktemp("keras")
    writer = sl.create_file_writer(str(logdir / "train"))
    with writer.as_default():
        model_graph(functional_model())
    writer.close()
    with running_tensorboard(str(logdir), load_fast=request.param) as base:
        yield base


@pytest.mark.slow
def test_graphs_dashboard_draws_the_conceptual_graph(served_graph):
    base = served_graph
    info = wait_for(lambda: get_json(base, "data/plugin/graphs/info"), lambda r: "train" in r)
    assert info["train"]["tags"]["keras"]["conceptual_graph"] is True
    graph = get(base, "data/plugin/graphs/graph", run="train", tag="keras", conceptual="true").decode()
    for layer in ("features", "hidden", "score"):
        assert f'name: "scorer/{layer}"' in graph
