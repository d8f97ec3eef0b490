"""Train a small Keras model with summarylib's TensorBoard callback, on any Keras backend.

    KERAS_BACKEND=jax python examples/keras_fit.py --logdir logs/keras_fit
    tensorboard --logdir logs/keras_fit

The one-line change from Keras's own callback, which needs TensorFlow:

    callback = keras.callbacks.TensorBoard(log_dir, ...)                        # before
    callback = summarylib.integrations.keras.TensorBoard(log_dir, ...)          # after

The model and data are deterministic (weights and data from numpy, no shuffling), so every
backend trains the same numbers; tests/reference/make_keras_reference.py trains this same
model with Keras's own callback on TensorFlow as the reference for the tests.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

import keras
import numpy as np

VOCABULARY = 10
EPOCHS = 3
BATCH_SIZE = 16


def make_model() -> keras.Model:
    """An Embedding, a hidden Dense layer and an output, with weights drawn by numpy."""
    model = keras.Sequential(
        [
            keras.Input(shape=(4,), dtype="int32"),
            keras.layers.Embedding(VOCABULARY, 3, name="embedding"),
            keras.layers.Flatten(name="flatten"),
            keras.layers.Dense(5, activation="tanh", name="hidden"),
            keras.layers.Dense(1, name="output"),
        ],
        name="keras_fit",
    )
    weights = np.random.default_rng(0)
    model.set_weights([weights.normal(0, 0.5, w.shape).astype("float32") for w in model.get_weights()])
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    return model


def make_data(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Token sequences and a target that depends on them."""
    rng = np.random.default_rng(seed)
    tokens = rng.integers(0, VOCABULARY, size=(count, 4)).astype("int32")
    target = (tokens.mean(axis=1, keepdims=True) / VOCABULARY).astype("float32")
    return tokens, target


def train(callback: Any, log_dir: str) -> keras.Model:
    """Fit with validation, then evaluate, with `callback` (summarylib's or Keras's)."""
    os.makedirs(log_dir, exist_ok=True)
    with open(os.path.join(log_dir, "metadata.tsv"), "w", encoding="utf-8") as file:
        file.writelines(f"token{index}\n" for index in range(VOCABULARY))
    model = make_model()
    x, y = make_data(64, seed=1)
    validation = make_data(32, seed=2)
    model.fit(
        x,
        y,
        batch_size=BATCH_SIZE,
        epochs=EPOCHS,
        shuffle=False,
        validation_data=validation,
        callbacks=[callback],
        verbose=0,
    )
    model.evaluate(*validation, batch_size=BATCH_SIZE, callbacks=[callback], verbose=0)
    return model


def callback_options() -> dict[str, Any]:
    """Every option of the callback, as the tests and the reference use them."""
    return {
        "histogram_freq": 1,
        "write_graph": True,
        "write_images": True,
        "write_steps_per_second": True,
        "update_freq": "batch",
        "embeddings_freq": 1,
        "embeddings_metadata": {"embedding": "metadata.tsv"},
    }


def main() -> None:
    from summarylib.integrations.keras.callback import TensorBoard

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logdir", default="logs/keras_fit")
    log_dir = parser.parse_args().logdir
    train(TensorBoard(log_dir, **callback_options()), log_dir)
    print(f"{keras.backend.backend()}: wrote {log_dir}")


if __name__ == "__main__":
    main()
