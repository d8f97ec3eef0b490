"""summarylib's Keras TensorBoard callback: real `fit` and `evaluate` on the torch and jax
backends, read back through TensorBoard's data provider and compared with what Keras's own
callback wrote on TensorFlow (tests/reference/keras_tf, made by make_keras_reference.py).

Intended differences from the reference, not compared: `*steps_per_second` values (times);
the embedding files (Keras saves a `.weights.h5` checkpoint the projector cannot read; we
write the projector's own files, see test_embeddings_are_the_weights_with_labels); the
conceptual graph's `compile_config`, which names the backend's optimizer class.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

os.environ.setdefault("KERAS_BACKEND", "torch")

import numpy as np
import pytest

pytest.importorskip("keras", reason="keras is not installed (the frameworks extra)")

import keras
from google.protobuf import text_format
from PIL import Image
from tensorboard import context as tb_context
from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig

import summarylib as sl
from summarylib.integrations.keras.callback import TensorBoard
from tests.full_disk import nearly_full_tmpfs
from tests.tensorboard_data import provider_for, read_scalars, read_tensors

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "examples", "keras_fit.py")
REFERENCE = os.path.join(ROOT, "tests", "reference", "keras_tf")
BACKENDS = ("torch", "jax")
sys.path.insert(0, ROOT)

from examples.keras_fit import callback_options, make_data, make_model  # noqa: E402


@pytest.fixture(scope="module")
def example_logdirs(tmp_path_factory) -> dict[str, str]:
    """examples/keras_fit.py run once per backend, in parallel subprocesses."""
    root = tmp_path_factory.mktemp("keras_fit")
    env = {**os.environ, "PYTHONPATH": ROOT}
    runs = {
        backend: subprocess.Popen(
            [sys.executable, EXAMPLE, "--logdir", str(root / backend)],
            env={**env, "KERAS_BACKEND": backend},
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for backend in BACKENDS
    }
    for backend, process in runs.items():
        output, _ = process.communicate(timeout=600)
        assert process.returncode == 0, output
        assert f"{backend}: wrote" in output
    return {backend: str(root / backend) for backend in BACKENDS}


def plugin_data(logdir: str, plugin: str) -> dict:
    """{run: {tag: [(step, [decoded blob, ...]), ...]}} of a blob-sequence plugin."""
    provider, context = provider_for(logdir), tb_context.RequestContext()
    sequences = provider.read_blob_sequences(context, experiment_id="", plugin_name=plugin, downsample=10**9)
    return {
        run: {
            tag: [
                (d.step, [provider.read_blob(context, blob_key=v.blob_key) for v in d.values]) for d in data
            ]
            for tag, data in tags.items()
        }
        for run, tags in sequences.items()
    }


def layout(logdir: str) -> dict:
    """{run: {tag: (plugin, steps)}} of every scalar, histogram, image and graph."""
    found: dict = {}
    for plugin, data in (
        ("scalars", read_scalars(logdir)),
        ("histograms", read_tensors(logdir, "histograms")),
        ("images", plugin_data(logdir, "images")),
        ("graph_keras_model", plugin_data(logdir, "graph_keras_model")),
    ):
        for run, tags in data.items():
            for tag, points in tags.items():
                found.setdefault(run, {})[tag] = (plugin, [step for step, _ in points])
    return found


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png))).astype(int)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.slow
def test_same_runs_tags_and_steps_as_keras_on_tensorflow(example_logdirs, backend):
    ours = layout(example_logdirs[backend])
    assert ours == layout(REFERENCE)
    assert set(ours) == {"train", "validation"}
    assert ours["train"]["batch_loss"] == ("scalars", list(range(1, 13)))
    assert ours["train"]["epoch_learning_rate"] == ("scalars", [0, 1, 2])
    assert ours["train"]["keras_fit/hidden/kernel/histogram"] == ("histograms", [0, 1, 2])
    assert ours["train"]["keras_fit/hidden/kernel/image"] == ("images", [0, 1, 2])
    assert ours["validation"]["evaluation_loss_vs_iterations"] == ("scalars", [4, 8, 12, 12])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.slow
def test_same_values_as_keras_on_tensorflow(example_logdirs, backend):
    logdir = example_logdirs[backend]
    ours, theirs = read_scalars(logdir), read_scalars(REFERENCE)
    for run, tags in theirs.items():
        for tag, points in tags.items():
            values = np.array([value for _, value in ours[run][tag]])
            if tag.endswith("steps_per_second"):
                assert np.all(np.isfinite(values) & (values > 0)), tag
            else:
                np.testing.assert_allclose(values, [v for _, v in points], rtol=1e-5, atol=1e-6, err_msg=tag)
    ours, theirs = read_tensors(logdir, "histograms"), read_tensors(REFERENCE, "histograms")
    for tag, points in theirs["train"].items():
        for (_, mine), (_, reference) in zip(ours["train"][tag], points, strict=True):
            np.testing.assert_allclose(mine, reference, rtol=1e-5, atol=1e-6, err_msg=tag)
    ours, theirs = plugin_data(logdir, "images"), plugin_data(REFERENCE, "images")
    for tag, points in theirs["train"].items():
        for (_, mine), (_, reference) in zip(ours["train"][tag], points, strict=True):
            assert mine[:2] == reference[:2], tag  # width and height
            assert len(mine) == len(reference)
            for png, reference_png in zip(mine[2:], reference[2:], strict=True):
                assert np.abs(pixels(png) - pixels(reference_png)).max() <= 1, tag
    ((_, (mine,)), *_), ((_, (reference,)), *_) = (
        plugin_data(logdir, "graph_keras_model")["train"]["keras"],
        plugin_data(REFERENCE, "graph_keras_model")["train"]["keras"],
    )
    assert json.loads(mine)["config"] == json.loads(reference)["config"]


class Recorder(keras.callbacks.Callback):
    """What Keras hands to callbacks, and the embedding matrix at each epoch's end."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[dict] = []
        self.epochs: list[dict] = []
        self.embeddings: list[np.ndarray] = []
        self.evaluations: list[dict] = []

    def on_train_batch_end(self, batch, logs=None):
        self.batches.append(dict(logs))

    def on_epoch_end(self, epoch, logs=None):
        self.epochs.append(dict(logs))
        self.embeddings.append(keras.ops.convert_to_numpy(self.model.get_layer("embedding").embeddings))

    def on_test_end(self, logs=None):
        self.evaluations.append(dict(logs))


def fit(logdir: str, epochs: int = 2, validation: bool = True, **options) -> Recorder:
    """Train examples/keras_fit.py's model here (torch backend) with our callback and a
    Recorder; 4 batches an epoch, 2 validation batches."""
    recorder = Recorder()
    model = make_model()
    os.makedirs(logdir, exist_ok=True)
    model.fit(
        *make_data(64, seed=1),
        batch_size=16,
        epochs=epochs,
        shuffle=False,
        validation_data=make_data(32, seed=2) if validation else None,
        callbacks=[TensorBoard(logdir, **options), recorder],
        verbose=0,
    )
    return recorder


def test_values_are_what_keras_logged(logdir):
    recorder = fit(logdir, update_freq="batch")
    scalars = read_scalars(logdir)
    for name in ("loss", "mae"):
        expected = [np.float32(logs[name]) for logs in recorder.batches]
        assert scalars["train"][f"batch_{name}"] == list(zip(range(1, 9), expected, strict=True))
        expected = [np.float32(logs[name]) for logs in recorder.epochs]
        assert scalars["train"][f"epoch_{name}"] == list(zip(range(2), expected, strict=True))
        expected = [np.float32(logs[f"val_{name}"]) for logs in recorder.epochs]
        assert scalars["validation"][f"epoch_{name}"] == list(zip(range(2), expected, strict=True))
        expected = [np.float32(logs[name]) for logs in recorder.evaluations]
        assert scalars["validation"][f"evaluation_{name}_vs_iterations"] == list(
            zip((4, 8), expected, strict=True)
        )
    assert scalars["train"]["epoch_learning_rate"] == [(0, np.float32(0.05)), (1, np.float32(0.05))]


def test_update_freq_every_n_batches_and_epoch(logdir, tmp_path):
    fit(logdir, epochs=3, update_freq=3)
    scalars = read_scalars(logdir)
    assert [step for step, _ in scalars["train"]["batch_loss"]] == [3, 6, 9, 12]
    # Epoch summaries at every epoch, also where the batch count is not a multiple of 3
    # (Keras on TensorFlow, under its batch-level record_if, writes only epoch 2 here).
    assert [step for step, _ in scalars["train"]["epoch_loss"]] == [0, 1, 2]
    assert [step for step, _ in scalars["validation"]["epoch_loss"]] == [0, 1, 2]
    assert "batch_steps_per_second" not in scalars["train"]

    epoch_logdir = str(tmp_path / "by_epoch")
    fit(epoch_logdir, validation=False, write_graph=False)
    scalars = read_scalars(epoch_logdir)
    assert set(scalars) == {"train"}
    assert set(scalars["train"]) == {"epoch_loss", "epoch_mae", "epoch_learning_rate"}


def test_model_summaries_recorded_at_logged_batches(logdir):
    """With an int update_freq the run's writer is the default during fit and evaluate,
    its step the batch counter, recording every N-th batch, as Keras does for tf.summary."""

    steps = []  # the default step each batch, as the model's own code reads it

    class Logging(keras.layers.Layer):
        def call(self, x):
            sl.scalar("inputs_mean", keras.ops.mean(x))
            steps.append(sl.get_step())
            return x

    model = keras.Sequential([keras.Input((3,)), Logging(), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x, y = np.ones((40, 3), "float32"), np.ones((40, 1), "float32")
    callback = TensorBoard(logdir, update_freq=2, write_graph=False)
    model.fit(x, y, batch_size=8, epochs=1, validation_data=(x[:24], y[:24]), callbacks=[callback], verbose=0)
    assert sl.should_record_summaries() is False  # nothing left as the default after fit
    scalars = read_scalars(logdir)
    assert [step for step, _ in scalars["train"]["inputs_mean"]] == [2, 4]
    assert [step for step, _ in scalars["validation"]["inputs_mean"]] == [2]
    assert scalars["train"]["inputs_mean"][0][1] == 1.0
    # Built outside fit (no default step), then the train batches and validation's.
    assert [step for step in steps if step is not None] == [1, 2, 3, 4, 5, 1, 2, 3]
    assert sl.get_step() is None


def test_embeddings_are_the_weights_with_labels(logdir):
    options = callback_options()
    os.makedirs(logdir)
    with open(os.path.join(logdir, "metadata.tsv"), "w") as file:
        file.writelines(f"token{index}\n" for index in range(10))
    recorder = fit(logdir, **options)
    train = os.path.join(logdir, "train")
    with open(os.path.join(train, "projector_config.pbtxt")) as file:
        config = text_format.Parse(file.read(), ProjectorConfig())
    assert [e.tensor_name for e in config.embeddings] == ["embedding:00000", "embedding:00001"]
    for info, matrix in zip(config.embeddings, recorder.embeddings, strict=True):
        written = np.loadtxt(os.path.join(train, info.tensor_path), delimiter="\t", ndmin=2)
        np.testing.assert_array_equal(written, matrix)
        with open(os.path.join(train, info.metadata_path)) as file:
            assert file.read().split() == [f"token{index}" for index in range(10)]


def test_subclassed_model_has_no_graph(logdir):
    class Subclassed(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(1)

        def call(self, x):
            return self.dense(x)

    model = Subclassed()
    model.compile(optimizer="sgd", loss="mse")
    model.fit(np.ones((8, 2)), np.ones((8, 1)), epochs=1, callbacks=[TensorBoard(logdir)], verbose=0)
    assert plugin_data(logdir, "graph_keras_model") == {}
    assert set(read_scalars(logdir)["train"]) == {"epoch_loss", "epoch_learning_rate"}


def test_profile_batch_warns_once_and_is_ignored(logdir, recwarn):
    with pytest.warns(UserWarning, match="profile_batch=5 ignored"):
        callback = TensorBoard(logdir, profile_batch=5)
    assert TensorBoard(logdir, profile_batch="0,0") is not None
    assert [w for w in recwarn if "profile_batch" in str(w.message)] == []
    model = make_model()
    model.fit(*make_data(16, seed=1), epochs=1, callbacks=[callback], verbose=0)
    assert "epoch_loss" in read_scalars(logdir)["train"]


@pytest.mark.parametrize(
    "options, words",
    [
        ({"update_freq": 0}, "'update_freq'"),
        ({"update_freq": "often"}, "'update_freq'"),
        ({"histogram_freq": -1}, "'histogram_freq'"),
        ({"embeddings_freq": 1.5}, "'embeddings_freq'"),
        ({"profile_batch": "a,b"}, "'profile_batch'"),
    ],
)
def test_bad_arguments_rejected_at_the_call(logdir, options, words):
    with pytest.raises(ValueError, match=words):
        TensorBoard(logdir, **options)


def test_unknown_embedding_layer_in_metadata(logdir):
    callback = TensorBoard(logdir, embeddings_freq=1, embeddings_metadata={"nope": "labels.tsv"})
    with pytest.raises(ValueError, match="'nope'"):
        callback.set_model(make_model())


def test_fit_returns_its_history_when_the_disk_fills_up_during_training(tmp_path, caplog):
    with nearly_full_tmpfs(str(tmp_path / "mnt"), free=8 * 1024) as mount:
        model = make_model()
        callback = TensorBoard(mount, histogram_freq=1, write_images=True, update_freq="batch")
        history = model.fit(*make_data(64, seed=1), batch_size=16, epochs=3, callbacks=[callback], verbose=0)
        after_fit = True  # raised WriterError at on_train_end before
    assert after_fit and len(history.history["loss"]) == 3
    failures = [r for r in caplog.records if r.name == "summarylib" and r.levelname == "WARNING"]
    assert failures and any("No space left" in r.getMessage() for r in failures)


def test_a_users_writer_of_the_same_run_still_raises_after_fit(tmp_path, caplog):
    with nearly_full_tmpfs(str(tmp_path / "mnt"), free=8 * 1024) as mount:
        users_writer = sl.create_file_writer(os.path.join(mount, "train"))  # shares the run's file
        model = make_model()
        callback = TensorBoard(mount, histogram_freq=1, write_images=True)
        history = model.fit(*make_data(64, seed=1), batch_size=16, epochs=2, callbacks=[callback], verbose=0)
        assert len(history.history["loss"]) == 2
        assert users_writer.stats().errors > 0
        with pytest.raises(sl.WriterError, match="No space left"):
            users_writer.close()


@pytest.mark.parametrize(
    ("options", "argument"),
    [
        ({"log_dir": 5}, "log_dir"),
        ({"log_dir": "bad\ud800"}, "log_dir"),  # failed in set_model, inside fit, before
        ({"log_dir": "a\0b"}, "log_dir"),
        ({"write_graph": np.array([True, False])}, "write_graph"),  # ambiguous truth value in fit before
        ({"write_images": "yes"}, "write_images"),
        ({"embeddings_metadata": ""}, "embeddings_metadata"),  # IsADirectoryError in fit before
        ({"embeddings_metadata": {"embedding": 5}}, "embeddings_metadata"),
        ({"update_freq": np.array(["batch"])}, "update_freq"),
    ],
)
def test_hostile_arguments_are_errors_in_the_one_shape_at_the_call(tmp_path, options, argument):
    arguments = {"log_dir": str(tmp_path / "logs"), **options}
    with pytest.raises((TypeError, ValueError)) as error:
        TensorBoard(**arguments)
    assert str(error.value).startswith(f"summarylib.integrations.keras.TensorBoard: argument '{argument}': ")


def projector_entries(logdir: str) -> list:
    """The embeddings of the train run's projector config."""
    with open(os.path.join(logdir, "train", "projector_config.pbtxt")) as file:
        return list(text_format.Parse(file.read(), ProjectorConfig()).embeddings)


def test_a_missing_embeddings_metadata_file_is_one_warning_not_the_end_of_fit(logdir, caplog):
    callback = TensorBoard(logdir, embeddings_freq=1, embeddings_metadata="missing.tsv")
    history = make_model().fit(*make_data(16, seed=1), epochs=3, callbacks=[callback], verbose=0)
    assert len(history.history["loss"]) == 3  # FileNotFoundError after the first epoch, once
    entries = projector_entries(logdir)
    assert [e.tensor_name for e in entries] == [f"embedding:0000{epoch}" for epoch in range(3)]
    assert [e.metadata_path for e in entries] == ["", "", ""]
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len([m for m in warned if "missing.tsv" in m]) == 1, warned  # once, not every epoch


class WritesLabelsAfterTheFirstEpoch(keras.callbacks.Callback):
    """Writes the metadata file the TensorBoard callback names, after epoch 0."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path

    def on_epoch_end(self, epoch, logs=None):
        if epoch == 0:
            with open(self.path, "w") as file:
                file.writelines(f"word{index}\n" for index in range(10))


def test_a_metadata_file_that_appears_during_fit_labels_the_next_embeddings(logdir):
    os.makedirs(logdir)
    callback = TensorBoard(logdir, embeddings_freq=1, embeddings_metadata={"embedding": "later.tsv"})
    writes = WritesLabelsAfterTheFirstEpoch(os.path.join(logdir, "later.tsv"))
    make_model().fit(*make_data(16, seed=1), epochs=2, callbacks=[callback, writes], verbose=0)
    first, second = projector_entries(logdir)
    assert first.metadata_path == ""
    with open(os.path.join(logdir, "train", second.metadata_path)) as file:
        assert file.read().split() == [f"word{index}" for index in range(10)]


@pytest.mark.parametrize(
    "content",
    [
        b"\xff\xfe not UTF-8\n" * 10,  # UnicodeDecodeError out of fit before
        b"".join(b"word%d\n" % index for index in range(9)),  # 9 labels for 10 points
    ],
    ids=["not-utf-8", "too-few-labels"],
)
def test_a_metadata_file_keras_would_only_name_does_not_end_fit(logdir, caplog, content):
    os.makedirs(logdir)
    with open(os.path.join(logdir, "labels.tsv"), "wb") as file:
        file.write(content)
    callback = TensorBoard(logdir, embeddings_freq=1, embeddings_metadata="labels.tsv")
    history = make_model().fit(*make_data(16, seed=1), epochs=2, callbacks=[callback], verbose=0)
    assert len(history.history["loss"]) == 2
    assert [e.metadata_path for e in projector_entries(logdir)] == ["", ""]
    warned = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len([m for m in warned if "labels.tsv" in m]) == 1, warned


def test_code_written_for_keras_callback_attributes_works(logdir, tmp_path):
    """Subclasses written for Keras's callback read and set its run directories
    (`_log_write_dir`, `_train_dir`, `_val_dir`, set at each set_model), and pass
    `histogram_freq=True` (every epoch, as Keras takes it)."""

    class Redirected(TensorBoard):
        def set_model(self, model):
            super().set_model(model)
            assert (self._log_write_dir, self._val_dir) == (
                self.log_dir,
                os.path.join(self.log_dir, "validation"),
            )
            self._train_dir = str(tmp_path / "elsewhere")

    model = make_model()
    model.fit(
        *make_data(32, seed=1),
        batch_size=16,
        epochs=2,
        validation_data=make_data(16, seed=2),
        callbacks=[Redirected(logdir, histogram_freq=True, write_graph=False)],
        verbose=0,
    )
    assert set(read_scalars(str(tmp_path / "elsewhere"))["."]) >= {"epoch_loss", "epoch_mae"}
    assert set(read_scalars(logdir)) == {"validation"}  # the train run went where the subclass said
    histograms = read_tensors(str(tmp_path / "elsewhere"), "histograms")["."]
    assert all([step for step, _ in steps] == [0, 1] for steps in histograms.values()) and histograms
