"""`summarylib.integrations.keras.watch.Watch`: a Keras 3 model trained with each option,
read back through TensorBoard's own data access (torch backend, as in the frameworks extra)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("keras", reason="keras is not installed (the frameworks extra)")

import keras

import summarylib as sl
from summarylib.integrations.keras.watch import Watch
from tests.tensorboard_data import read_blob_sequences, read_scalars, read_tensors


def model() -> keras.Model:
    keras.utils.set_random_seed(0)
    built = keras.Sequential(
        [keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)]
    )
    built.compile(optimizer="sgd", loss="mse")
    return built


DATA = (np.random.default_rng(0).normal(size=(12, 4)).astype("float32"), np.ones((12, 1), "float32"))


def test_weights_and_gradients_every_log_freq_batches(logdir):
    built = model()
    with sl.create_file_writer(logdir) as writer:
        watch = Watch(
            log="all", log_freq=2, images=True, check_numerics=True, writer=writer, variance_steps=2
        )
        built.fit(*DATA, batch_size=2, epochs=1, verbose=0, callbacks=[watch])
    assert watch.step == 6
    histograms = read_tensors(logdir, "histograms")["."]
    for weight in built.weights:
        assert [s for s, _ in histograms[f"parameters/{weight.path}"]] == [0, 2, 4]
        assert [s for s, _ in histograms[f"gradients/{weight.path}"]] == [0, 2, 4]
    images = read_blob_sequences(logdir, "images")["."]
    assert set(images) == {"images/parameters", "images/gradients", "images/parameters_variance"}
    assert "numerics/nonfinite_tensors" not in read_scalars(logdir).get(".", {})


def test_parameter_histograms_hold_the_weights_after_the_batch(logdir):
    built = model()
    with sl.create_file_writer(logdir) as writer:
        built.fit(
            *DATA,
            batch_size=12,
            epochs=1,
            verbose=0,
            callbacks=[Watch(log="parameters", log_freq=1, writer=writer)],
        )
    ((step, rows),) = read_tensors(logdir, "histograms")["."][f"parameters/{built.weights[0].path}"]
    kernel = keras.ops.convert_to_numpy(built.weights[0].value)
    assert step == 0 and rows[:, 2].sum() == kernel.size
    assert rows[0, 0] == pytest.approx(kernel.min()) and rows[-1, 1] == pytest.approx(kernel.max())


def test_nonfinite_weights_are_reported_and_raise(logdir):
    built = model()
    kernel = built.layers[1].kernel
    kernel.assign(np.full(kernel.shape, np.nan, "float32"))
    with (
        sl.create_file_writer(logdir) as writer,
        pytest.raises(FloatingPointError, match="step 0: first non-finite"),
    ):
        built.fit(
            *DATA, batch_size=2, epochs=1, verbose=0, callbacks=[Watch(check_numerics=True, writer=writer)]
        )
    ((step, text),) = read_tensors(logdir, "text")["."]["numerics/first_nonfinite"]
    assert step == 0 and "NaN" in text.item().decode()


def test_training_continues_without_raise(logdir):
    built = model()
    kernel = built.layers[1].kernel
    kernel.assign(np.full(kernel.shape, np.inf, "float32"))
    watch = Watch(log=None, check_numerics=True, raise_on_nonfinite=False)
    with sl.create_file_writer(logdir) as writer, writer.as_default():
        built.fit(*DATA, batch_size=2, epochs=1, verbose=0, callbacks=[watch])
    assert watch.step == 6
    assert [s for s, _ in read_scalars(logdir)["."]["numerics/nonfinite_tensors"]] == list(range(6))


def test_activations_are_refused():
    with pytest.raises(ValueError, match="activations are not available for Keras models"):
        Watch(log="activations")


@pytest.mark.parametrize(
    ("arguments", "match"),
    [
        ({"images": "yes"}, "argument 'images': expected a bool, got str 'yes'"),
        ({"check_numerics": "off"}, "argument 'check_numerics': expected a bool"),
        ({"raise_on_nonfinite": None}, "argument 'raise_on_nonfinite': expected a bool, got NoneType"),
        ({"live": "on"}, "argument 'live': expected a bool"),
    ],
)
def test_a_flag_that_is_no_bool_is_refused(arguments, match):
    with pytest.raises(TypeError, match=match):
        Watch(**arguments)
