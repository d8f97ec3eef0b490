"""The cost of summarylib's Keras TensorBoard callback in `fit`, per batch and per value.

    KERAS_BACKEND=torch python benchmarks/bench_keras_callback.py [--batches N] [--repeats R]

Fits a tiny model for N batches of one sample (so that Keras's own per-batch work is as
small as it gets): without the callback, with it at `update_freq="epoch"`, and with it
logging every batch (`update_freq=1`, loss and mae, then also steps per second). Keras's
own callback cannot run here (it needs TensorFlow), so the anchor is `fit` without a
callback. Two numbers per row: the whole fit per batch, noisy, and the time spent inside
the callback's batch hooks, measured around them, per batch and per logged value. The
last line is `summarylib.scalar` alone, per call, in the same process: a logged value
costs about one scalar op, the callback's own bookkeeping well under a microsecond.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

os.environ.setdefault("KERAS_BACKEND", "torch")

import keras
import numpy as np

from summarylib.integrations.keras.callback import TensorBoard


class TimedTensorBoard(TensorBoard):
    """The callback, with the time spent in its train-batch hooks added up."""

    hook_seconds = 0.0

    def on_train_batch_begin(self, batch, logs=None):
        start = time.perf_counter()
        super().on_train_batch_begin(batch, logs)
        self.hook_seconds += time.perf_counter() - start

    def on_train_batch_end(self, batch, logs=None):
        start = time.perf_counter()
        super().on_train_batch_end(batch, logs)
        self.hook_seconds += time.perf_counter() - start


def fit_seconds(batches: int, callback: TensorBoard | None) -> float:
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    x, y = np.ones((batches, 4), "float32"), np.ones((batches, 1), "float32")
    start = time.perf_counter()
    model.fit(x, y, batch_size=1, epochs=1, callbacks=[callback] if callback else [], verbose=0)
    return time.perf_counter() - start


def scalar_seconds(calls: int) -> float:
    """Seconds per `summarylib.scalar` call with a float and an int step."""
    import summarylib as sl

    with tempfile.TemporaryDirectory() as logdir:
        writer = sl.create_file_writer(logdir)
        with writer.as_default():
            start = time.perf_counter()
            for step in range(calls):
                sl.scalar("batch_loss", 0.5, step=step)
            seconds = time.perf_counter() - start
        writer.close()
    return seconds / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    fit_seconds(50, None)  # warm up the backend
    contenders = {
        "no callback": (None, 0),
        'update_freq="epoch"': ({"update_freq": "epoch"}, 0),
        "update_freq=1": ({"update_freq": 1}, 2),
        "update_freq=1, steps/s": ({"update_freq": 1, "write_steps_per_second": True}, 3),
    }
    print(f"\nKeras TensorBoard callback, {keras.backend.backend()} backend ({args.batches:,} batches)\n")
    print("| fit with | fit µs/batch | callback µs/batch | callback µs/value |")
    print("|---|---:|---:|---:|")
    for name, (options, values) in contenders.items():
        fits, hooks = [], []
        for _ in range(args.repeats):
            with tempfile.TemporaryDirectory() as logdir:
                callback = None if options is None else TimedTensorBoard(logdir, write_graph=False, **options)
                fits.append(fit_seconds(args.batches, callback))
                hooks.append(callback.hook_seconds if callback else 0.0)
        fit_us, hook_us = min(fits) / args.batches * 1e6, min(hooks) / args.batches * 1e6
        per_value = f"{hook_us / values:.2f}" if values else "-"
        print(f"| {name} | {fit_us:.0f} | {hook_us:.2f} | {per_value} |")
    best = min(scalar_seconds(args.batches * 10) for _ in range(args.repeats))
    print(f"\nsummarylib.scalar alone: {best * 1e6:.2f} µs/call")


if __name__ == "__main__":
    main()
