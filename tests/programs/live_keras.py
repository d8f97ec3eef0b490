"""A Keras training process for the Live dashboard's browser test: `model.fit` with
`summarylib.integrations.keras.Watch(log="all", live=True)` (Keras 3 on its PyTorch
backend), so the views written are only those the dashboard asks for.

    live_keras.py RUN_DIR [--seconds S]

Fits a small MLP (epochs of 8 batches) for S seconds in one `fit`, into RUN_DIR; prints
`ready` once the first epoch is on disk.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

os.environ.setdefault("KERAS_BACKEND", "torch")

import keras  # after the backend is chosen
import numpy as np

import summarylib as sl
from summarylib.integrations.keras import Watch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [
            keras.Input((64,)),
            keras.layers.Dense(32, activation="relu", name="hidden"),
            keras.layers.Dense(4, name="out"),
        ]
    )
    model.compile(optimizer="sgd", loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    rng = np.random.default_rng(0)
    inputs, labels = rng.normal(size=(256, 64)).astype("float32"), rng.integers(0, 4, 256)
    writer = sl.create_file_writer(args.run_dir, flush_millis=100)
    start = time.monotonic()

    def epoch_end(epoch: int, logs: object) -> None:
        if epoch == 0:
            writer.flush()
            print("ready", flush=True)
        model.stop_training = time.monotonic() - start > args.seconds

    timer = keras.callbacks.LambdaCallback(on_epoch_end=epoch_end)
    with writer.as_default():
        model.fit(
            inputs,
            labels,
            batch_size=32,
            epochs=1_000_000,
            verbose=0,
            callbacks=[Watch(log="all", live=True), timer],
        )
    writer.close()


if __name__ == "__main__":
    sys.exit(main())
