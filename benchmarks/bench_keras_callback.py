"""The cost of summarylib's Keras TensorBoard callback in `fit`, per batch and per value.

    KERAS_BACKEND=torch python benchmarks/bench_keras_callback.py [--batches N] [--repeats R] [--quick]

Fits a tiny model for N batches of one sample (so that Keras's own per-batch work is as
small as it gets): without the callback, with hooks that do nothing (the timer's own
cost), with the callback at `update_freq="epoch"`, and logging every batch
(`update_freq=1`: loss and mae, then also steps per second). The contenders take turns,
repeated, and the best repetition counts. Two numbers per row: the whole fit per batch,
noisy, and the time spent inside the callback's batch hooks, measured around them, per
batch and per logged value. The goal row is the hooks' time per logged value net of the
timer's own cost (what the same timer measures around hooks that do nothing).

Peers, per logged value in the same process: `summarylib.scalar` alone (a logged value
costs about one scalar op), and Lightning's `TensorBoardLogger.log_metrics` with the same
two values a step (Lightning's own per-batch logging; a loop of calls, not a fit). Keras's
own callback cannot run here: it needs TensorFlow, which is not installed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

os.environ.setdefault("KERAS_BACKEND", "torch")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import keras
import numpy as np

from benchmarks.common import available, goal, parse_with_quick
from summarylib.integrations.keras.callback import TensorBoard
from summarylib.integrations.keras.scalars import batch_tag, cached_tag
from summarylib.writer.context import StepCounter

GOAL_US = 2.5  # issue 21: per logged value inside fit


def timed(callback_class: type) -> type:
    """`callback_class` with the time spent in its train-batch hooks added up."""

    class Timed(callback_class):
        hook_seconds = 0.0

        def on_train_batch_begin(self, batch, logs=None):
            start = time.perf_counter()
            super().on_train_batch_begin(batch, logs)
            self.hook_seconds += time.perf_counter() - start

        def on_train_batch_end(self, batch, logs=None):
            start = time.perf_counter()
            super().on_train_batch_end(batch, logs)
            self.hook_seconds += time.perf_counter() - start

    return Timed


class NoHooks(keras.callbacks.Callback):
    """Batch hooks that do nothing: timed like the callback, they cost the timer alone."""

    def on_train_batch_begin(self, batch, logs=None):
        pass

    def on_train_batch_end(self, batch, logs=None):
        pass


class WithoutTheOps(TensorBoard):
    """The callback with everything but the scalar ops: its own bookkeeping per batch."""

    def _log_batch(self, step, logs):
        for name in logs:
            self._batch_tags.get(name) or cached_tag(self._batch_tags, batch_tag, name)


class AppendOnly(keras.callbacks.Callback):
    """The least any logging callback does a batch: count the step, keep the logs."""

    def on_train_begin(self, logs=None):
        self.steps, self.kept = StepCounter(), []

    def on_train_batch_begin(self, batch, logs=None):
        self.steps.value += 1

    def on_train_batch_end(self, batch, logs=None):
        self.kept.append((self.steps.value, logs))


def fit_seconds(batches: int, callback: keras.callbacks.Callback | None) -> float:
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


def lightning_seconds(steps: int) -> float | None:
    """Seconds per value of Lightning's TensorBoardLogger.log_metrics, two values a step."""
    if not (available("lightning") and available("tensorboard")):
        return None
    from lightning.pytorch.loggers import TensorBoardLogger

    with tempfile.TemporaryDirectory() as logdir:
        logger = TensorBoardLogger(logdir, name="", version="")
        logger.log_metrics({"batch_loss": 0.5, "batch_mae": 0.25}, step=0)  # opens the writer
        start = time.perf_counter()
        for step in range(1, steps + 1):
            logger.log_metrics({"batch_loss": 0.5, "batch_mae": 0.25}, step=step)
        seconds = time.perf_counter() - start
        logger.finalize("success")
    return seconds / (2 * steps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parse_with_quick(parser, batches=500, repeats=2)
    fit_seconds(50, None)  # warm up the backend
    contenders = {  # name: (callback class, options, values logged a batch)
        "no callback": (None, None, 0),
        "hooks that do nothing (the timer)": (NoHooks, {}, 0),
        'update_freq="epoch"': (TensorBoard, {"update_freq": "epoch"}, 0),
        "update_freq=1": (TensorBoard, {"update_freq": 1}, 2),
        "update_freq=1 without the scalar ops (its bookkeeping)": (WithoutTheOps, {"update_freq": 1}, 2),
        "hooks that set the step and keep the logs (the least)": (AppendOnly, {}, 2),
        "update_freq=1, steps/s": (TensorBoard, {"update_freq": 1, "write_steps_per_second": True}, 3),
    }
    fits: dict[str, list[float]] = {name: [] for name in contenders}
    hooks: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(args.repeats):  # the contenders take turns: drift hits them alike
        for name, (kind, options, _values) in contenders.items():
            with tempfile.TemporaryDirectory() as logdir:
                if kind is None:
                    callback = None
                elif kind in (NoHooks, AppendOnly):
                    callback = timed(kind)()
                else:
                    callback = timed(kind)(logdir, write_graph=False, **options)
                fits[name].append(fit_seconds(args.batches, callback))
                hooks[name].append(callback.hook_seconds if callback else 0.0)
    per_batch = {name: min(hooks[name]) / args.batches * 1e6 for name in contenders}
    timer_us = per_batch["hooks that do nothing (the timer)"]
    print(f"\nKeras TensorBoard callback, {keras.backend.backend()} backend ({args.batches:,} batches)\n")
    print("| fit with | fit µs/batch | hooks µs/batch | hooks µs/value | net of the timer µs/value |")
    print("|---|---:|---:|---:|---:|")
    net: dict[str, float] = {}
    for name, (_, _, values) in contenders.items():
        fit_us, hook_us = min(fits[name]) / args.batches * 1e6, per_batch[name]
        raw = f"{hook_us / values:.2f}" if values else "-"
        if values:
            net[name] = max(hook_us - timer_us, 0.0) / values
        print(
            f"| {name} | {fit_us:.0f} | {hook_us:.2f} | {raw} | {net[name]:.2f} |"
            if values
            else f"| {name} | {fit_us:.0f} | {hook_us:.2f} | - | - |"
        )
    scalar_us = min(scalar_seconds(args.batches * 10) for _ in range(args.repeats)) * 1e6
    print("\nPer logged value, same process:\n")
    print("| contender | µs/value |")
    print("|---|---:|")
    print(f"| summarylib callback in fit, update_freq=1 (net of the timer) | {net['update_freq=1']:.2f} |")
    print(f"| summarylib.scalar alone (a loop of calls) | {scalar_us:.2f} |")
    lightning = lightning_seconds(args.batches * 5)
    if lightning is None:
        print("| Lightning TensorBoardLogger.log_metrics | not installed |")
    else:
        lightning_us = lightning * 1e6
        print(f"| Lightning TensorBoardLogger.log_metrics, 2 values a step (a loop) | {lightning_us:.2f} |")
    print("| Keras's own TensorBoard callback | not run: needs TensorFlow, not installed |")
    measured = net["update_freq=1"]
    goal(
        "Keras callback, per logged value inside fit",
        f"{measured:.2f} µs (hooks {per_batch['update_freq=1'] / 2:.2f}, less the timer's "
        f"{timer_us / 2:.2f}; sl.scalar alone {scalar_us:.2f}; without the ops "
        f"{net['update_freq=1 without the scalar ops (its bookkeeping)']:.2f}; the least a "
        f"Python hook does {net['hooks that set the step and keep the logs (the least)']:.2f}; "
        "Keras's own needs TensorFlow)",
        f"≤{GOAL_US} µs",
        measured <= GOAL_US,
    )


if __name__ == "__main__":
    main()
