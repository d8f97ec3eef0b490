"""`Watch`: a Keras 3 callback writing the views of `summarylib.integrations.torch.watch`
(histograms and grid images of weights and gradients, the first NaN/Inf) for a model on
any Keras backend."""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from typing import Any

import keras
import numpy as np

from summarylib.integrations.watch_arguments import watch_arguments
from summarylib.ops.scalar import encoding as scalar_encoding
from summarylib.ops.text import encoding as text_encoding
from summarylib.writer.queue import queue_summary, recording_writer
from summarylib.writer.summary_writer import SummaryWriter

_API = "integrations.keras.Watch"
_KINDS = ("parameters", "gradients")


# Why a kind of view is not offered (the torch watch has it).
_UNAVAILABLE = {
    "activations": "activations are not available for Keras models: a callback sees no layer outputs "
    "without rebuilding the model (summarylib.integrations.torch.watch has them for PyTorch)"
}


def _flatten_into(arrays: list[Any], out: np.ndarray) -> None:
    """The arrays (backend tensors) flattened into `out` (float32, of their total size)."""
    flat = [np.asarray(keras.ops.convert_to_numpy(a), np.float32).reshape(-1) for a in arrays]
    np.concatenate(flat, out=out)


class Watch(keras.callbacks.Callback):
    """Watch a Keras model while it trains, as `summarylib.integrations.torch.watch` does
    for PyTorch: every `log_freq` training batches (counted across `fit` calls from 0, the
    step written), histograms `parameters/<weight path>` of `model.weights` and
    `gradients/<weight path>` of the trainable weights, and with `images=True` the grid
    images `images/parameters`, `images/gradients` and, once every `variance_steps`
    logged batches, `images/parameters_variance` (see summarylib.ops.tensor_grid).
    Summaries go to `writer`, else to summarylib's default writer at the time (as
    summarylib's Keras TensorBoard callback sets it during `fit`).

    Gradients: only on the PyTorch backend, where each variable's tensor keeps the
    batch's gradient (`variable.value.grad`) until the next batch. JAX and TensorFlow
    compute gradients inside a compiled train step and hand them to no callback, so there
    `log` including "gradients" warns once and writes parameters only. Activations are not
    available to a callback at all (ValueError).

    `check_numerics=True`: after every batch, the weights (and gradients on PyTorch) are
    checked for NaN and ±Inf with one reduction each on the device, read back once per
    batch; the first non-finite one (in `model.weights` order, gradients after weights)
    writes `numerics/first_nonfinite` (text) and `numerics/nonfinite_tensors` (scalar)
    and raises `FloatingPointError`, unless `raise_on_nonfinite=False`. This finds the
    first weight a NaN reached, not the layer that produced it (per-layer outputs are
    out of a callback's reach); `keras.callbacks.TerminateOnNaN` watches only the loss.

    `live=True`: the views are the ones the Live dashboard asks for, as torch's
    `watch(..., live=True)` writes them (grid images into `<run>/live`, rolling files
    keeping the last `retain_seconds`; nothing while nobody looks; `images` stays False).
    """

    def __init__(
        self,
        log: str | Sequence[str] | None = "gradients",
        log_freq: int = 100,
        images: bool = False,
        check_numerics: bool = False,
        writer: SummaryWriter | None = None,
        *,
        raise_on_nonfinite: bool = True,
        variance_steps: int = 10,
        buckets: int | None = None,
        live: bool = False,
        retain_seconds: float = 600,
    ) -> None:
        super().__init__()
        arguments = watch_arguments(
            _API,
            log,
            _KINDS,
            _UNAVAILABLE,
            log_freq=log_freq,
            images=images,
            check_numerics=check_numerics,
            writer=writer,
            raise_on_nonfinite=raise_on_nonfinite,
            variance_steps=variance_steps,
            buckets=buckets,
            live=live,
            retain_seconds=retain_seconds,
        )
        kinds = arguments.kinds
        if "gradients" in kinds and keras.backend.backend() != "torch":
            warnings.warn(
                f"summarylib.{_API}: gradients are only available on the PyTorch backend, not on "
                f"{keras.backend.backend()}; writing parameters only",
                stacklevel=2,
            )
            kinds = tuple(kind for kind in kinds if kind != "gradients")
        self._live, self._views = arguments.views(kinds, self._target)
        self._log_freq = arguments.log_freq
        self._check = arguments.check_numerics
        self._raise = arguments.raise_on_nonfinite
        self._writer = writer
        self.step = 0  # training batches seen

    def _target(self) -> SummaryWriter | None:
        return self._writer if self._writer is not None else recording_writer()

    def _gradients(self) -> list[tuple[str, Any]]:
        if keras.backend.backend() != "torch":
            return []
        return [(v.path, v.value.grad) for v in self.model.trainable_weights if v.value.grad is not None]

    def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
        step, self.step = self.step, self.step + 1
        if self._check:
            self._check_numerics(step)
        live = self._live
        if live is None:
            if step % self._log_freq:
                return
            writer, views_of, wall_time = self._target(), self._views, None
        else:
            if not live.logged(step):
                return
            # Live views carry the step's time: the dashboard's latency is measured from it.
            writer, views_of, wall_time = live.writer(), live.views, time.time()
        if writer is None:
            return
        named = {
            "parameters": [(v.path, v.value) for v in self.model.weights],
            "gradients": self._gradients() if "gradients" in views_of else [],
        }
        for kind, views in views_of.items():
            tensors = [(name, t) for name, t in named[kind] if int(np.prod(t.shape))]
            if tensors:
                grid = views.layout_of([n for n, _ in tensors], [tuple(t.shape) for _, t in tensors])
                values, slot = views.buffer(writer, grid.total)
                _flatten_into([t for _, t in tensors], values)
                views.queue(writer, step, grid, values, None, slot, wall_time)

    def on_train_end(self, logs: dict | None = None) -> None:
        """Close the live writer (a later `fit` opens it again at its first live view)."""
        if self._live is not None:
            self._live.close()

    def _check_numerics(self, step: int) -> None:
        checked = [("weights", v.path, v.value) for v in self.model.weights if "float" in str(v.dtype)]
        checked += [("gradient", path, grad) for path, grad in self._gradients()]
        if not checked:
            return
        sums = keras.ops.stack([keras.ops.cast(keras.ops.sum(t), "float32") for _, _, t in checked])
        flags = np.isfinite(keras.ops.convert_to_numpy(sums))  # the one read per batch
        found = []
        for index in np.flatnonzero(~flags):  # float32 sums of finite values may overflow: count
            kind, path, tensor = checked[index]
            values = np.asarray(keras.ops.convert_to_numpy(tensor))
            counts = (
                int(np.isnan(values).sum()),
                int(np.isposinf(values).sum()),
                int(np.isneginf(values).sum()),
            )
            if any(counts):
                found.append((kind, path, values.shape, counts))
        if found:
            self._report(step, *found[0], len(found))

    def _report(
        self, step: int, kind: str, path: str, shape: tuple, counts: tuple[int, int, int], bad: int
    ) -> None:
        message = (
            f"step {step}: first non-finite values in the {kind} of {path!r}, shape {list(shape)}: "
            f"{counts[0]} NaN, {counts[1]} +Inf, {counts[2]} -Inf ({bad} checked tensor(s) held NaN or Inf)"
        )
        writer = self._target()
        if writer is not None:
            tag = "numerics/first_nonfinite"
            queue_summary(
                writer, "watch", tag, step, text_encoding.summary, (tag, (), [message.encode()], None)
            )
            event = ("numerics/nonfinite_tensors", float(bad), None)
            writer.submit(scalar_encoding.scalar_event, event, time.time(), step)
        if self._raise:
            raise FloatingPointError(f"summarylib watch: {message}")
