"""The Keras callback's per-batch and per-epoch scalars in real `fit`s (torch backend),
read back through TensorBoard's data provider: every value Keras hands the callback is
written, at the step Keras's own callback uses, however `fit` is given the callback and
whatever else the logs hold."""

from __future__ import annotations

import os
import subprocess
import sys

os.environ.setdefault("KERAS_BACKEND", "torch")

import numpy as np
import pytest

pytest.importorskip("keras", reason="keras is not installed (the frameworks extra)")

import keras

from summarylib.integrations.keras.callback import TensorBoard
from tests.tensorboard_data import read_scalars

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from examples.keras_fit import make_data, make_model  # noqa: E402

BATCHES = 4  # 64 samples in batches of 16


def fit(callbacks, epochs: int = 2, steps_per_execution: int = 1) -> None:
    model = make_model()
    if steps_per_execution != 1:
        model.compile(
            optimizer=keras.optimizers.SGD(0.05),
            loss="mse",
            metrics=["mae"],
            steps_per_execution=steps_per_execution,
        )
    model.fit(
        *make_data(64, seed=1),
        batch_size=16,
        epochs=epochs,
        shuffle=False,
        validation_data=make_data(32, seed=2),
        callbacks=callbacks,
        verbose=0,
    )


def fit_alone_and_listed(alone: str, listed: str, steps_per_execution: int | str = 1) -> None:
    steps_per_execution = int(steps_per_execution)
    fit(TensorBoard(alone, update_freq=1, write_graph=False), steps_per_execution=steps_per_execution)
    fit([TensorBoard(listed, update_freq=1, write_graph=False)], steps_per_execution=steps_per_execution)


# The torch backend takes only steps_per_execution=1; JAX takes more, in a child process.
@pytest.mark.parametrize(("backend", "steps_per_execution"), [("torch", 1), ("jax", 2)])
@pytest.mark.slow
def test_a_callback_given_alone_logs_every_batch_as_in_a_list(tmp_path, backend, steps_per_execution):
    """Keras takes `callbacks=TensorBoard(...)` (not in a list) and then calls the batch-end
    hooks on a thread pool, where the fit's default writer is not set and the next batch
    may have begun: the batch scalars must still be written, at the same steps (one a
    hook call, so one an execution of `steps_per_execution` batches) and with the same
    values as with `callbacks=[TensorBoard(...)]`."""
    alone, listed = str(tmp_path / "alone"), str(tmp_path / "listed")
    if backend == keras.backend.backend():
        fit_alone_and_listed(alone, listed, steps_per_execution)
    else:
        code = "from tests.test_keras_batch_logging import fit_alone_and_listed as fit; fit(*sys.argv[1:])"
        env = {**os.environ, "KERAS_BACKEND": backend, "PYTHONPATH": ROOT}
        child = subprocess.run(
            [sys.executable, "-c", f"import sys; {code}", alone, listed, str(steps_per_execution)],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert child.returncode == 0, child.stderr[-3000:]
    ours, reference = read_scalars(alone)["train"], read_scalars(listed)["train"]
    steps = list(range(1, 2 * BATCHES // steps_per_execution + 1))
    for tag in ("batch_loss", "batch_mae"):
        assert [step for step, _ in reference[tag]] == steps, tag
        assert [step for step, _ in ours[tag]] == steps, tag
        np.testing.assert_allclose([v for _, v in ours[tag]], [v for _, v in reference[tag]], rtol=1e-6)
    assert ours["epoch_loss"] == reference["epoch_loss"]


class AddToLogs(keras.callbacks.Callback):
    """A user's callback that adds entries to the logs the next callbacks get (Keras hands
    every callback the same dict)."""

    def __init__(self, entries: dict) -> None:
        super().__init__()
        self.entries = entries

    def on_train_batch_end(self, batch, logs=None):
        logs.update(self.entries)

    def on_epoch_end(self, epoch, logs=None):
        logs.update(self.entries)
        logs.update({f"val_{name}": value for name, value in self.entries.items()})


@pytest.mark.parametrize("update_freq", [1, "epoch"])
def test_a_value_that_is_no_number_is_an_error_that_takes_no_other_value_with_it(logdir, update_freq):
    """A str among the logs: the one-shape TypeError naming its tag, raised out of `fit`
    as Keras's own callback raises it, after every other value of the batch or epoch
    (before and after it in the logs, in both runs) has been written."""
    entries = {"note": "warm-up", "zz_extra": 2.5}
    callback = TensorBoard(logdir, update_freq=update_freq, write_graph=False)
    prefix = "batch" if update_freq == 1 else "epoch"
    with pytest.raises(TypeError, match=rf"^summarylib\.scalar: tag '{prefix}_note': argument 'data': "):
        fit([AddToLogs(entries), callback], epochs=1)
    callback.on_train_end()  # Keras leaves the callback open when a hook raises
    scalars = read_scalars(logdir)
    for tag in ("loss", "mae", "zz_extra"):
        steps = [step for step, _ in scalars["train"][f"{prefix}_{tag}"]]
        assert steps == ([1] if update_freq == 1 else [0]), tag
    assert scalars["train"][f"{prefix}_zz_extra"][0][1] == 2.5
    if update_freq == "epoch":
        assert [step for step, _ in scalars["validation"]["epoch_zz_extra"]] == [0]
        assert "epoch_learning_rate" in scalars["train"]
