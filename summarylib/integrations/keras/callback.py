"""`TensorBoard`, a Keras 3 callback writing what `keras.callbacks.TensorBoard` writes, on
every Keras backend (JAX, PyTorch, TensorFlow, NumPy) and without TensorFlow.

Keras's own callback imports `tf.summary`, so on JAX or PyTorch without TensorFlow it fails
with `ModuleNotFoundError`. This one takes the same arguments and writes the same runs,
tags and steps through summarylib's ops (see `TensorBoard` for the list). This is the only
module of summarylib that imports Keras.
"""

from __future__ import annotations

import contextlib
import heapq
import math
import os
import threading
import time
import warnings
from collections.abc import Iterator
from typing import Any

import keras

import summarylib
from summarylib.checks import check_flag
from summarylib.integrations.implicit import settle_quietly
from summarylib.integrations.keras import arguments
from summarylib.integrations.keras.arguments import API, NAME
from summarylib.integrations.keras.model_graph import model_graph
from summarylib.integrations.keras.projector import (
    check_layer_names,
    labels_for,
    metadata_for,
    warn_unusable,
)
from summarylib.integrations.keras.scalars import (
    batch_tag,
    epoch_tag,
    evaluation_tag,
    write_scalars,
)
from summarylib.integrations.keras.weights import weight_image, weight_tag
from summarylib.ops.embedding import embedding
from summarylib.writer.context import StepCounter, counted_steps, defaults, record_condition
from summarylib.writer.summary_writer import NoopSummaryWriter, SummaryWriter

_RUNS = {"train": "train", "val": "validation"}
_thread_id = threading.get_ident


class TensorBoard(keras.callbacks.Callback):
    """Log a Keras model's training for TensorBoard, as `keras.callbacks.TensorBoard` does.

    A drop-in replacement: same arguments, same files. Under `log_dir` it writes the runs
    `train` and `validation` (each created when first written to):

    - `epoch_<metric>` at step `epoch` (0-based), metrics of `logs` in `train` and their
      `val_` counterparts in `validation`; `epoch_learning_rate` (one
      `epoch_learning_rate_<name>` per optimizer of a multi-optimizer) and, with
      `write_steps_per_second`, `epoch_steps_per_second` in `train`;
    - with `update_freq` an int N or `"batch"` (N = 1): `batch_<metric>` (and
      `batch_steps_per_second` when asked) in `train` at every N-th batch of the whole
      fit, the step counting batches from 1 across epochs;
    - `evaluation_<metric>_vs_iterations` in `validation` at the end of every
      evaluation (`model.evaluate`, and validation during `fit`), at the step
      `optimizer.iterations`;
    - every `histogram_freq` epochs (epochs 0, freq, 2 freq, ...) each weight of
      `model.layers` as a histogram `<weight.path>/histogram` in `train`, and with
      `write_images` as an image `<weight.path>/image` (`:` in paths written as `_`);
    - with `write_graph`, the conceptual graph of a Sequential or Functional model (tag
      `keras`, step 0, in `train`) each time the callback is given a model, that is at
      each `fit` and `evaluate`;
    - every `embeddings_freq` epochs, the matrix of each top-level `Embedding` layer
      through `summarylib.embedding` (tag: the layer's name, step: the epoch, files in
      `train`), labeled from `embeddings_metadata`: one metadata TSV file for all layers
      or a dict of them by layer name, relative paths taken relative to `log_dir`. A
      file that cannot label the layer (not there yet, not UTF-8, not one label a
      point) leaves the embedding unlabeled with one warning, and is read again at the
      next embeddings epoch: Keras only names the file, so its `fit` never fails on it.

    While `fit` or `evaluate` runs with `update_freq` an int, the run's writer is
    summarylib's default writer, the step is the batch counter and summaries are
    recorded only at every N-th batch, so summarylib ops called from a model running
    eagerly (as `tf.summary` calls in Keras's documentation) log batch-level data.

    Differences from Keras's callback, on purpose: embeddings are written as the
    projector's own files (Keras saves a `.weights.h5` checkpoint and a config naming a
    TensorFlow checkpoint variable, which the projector cannot read from that file; and
    it empties a dict `embeddings_metadata` at the first `fit`, so the config rewritten
    at a later `evaluate` loses the labels); a non-zero `profile_batch` warns once and is
    ignored (profiling needs TensorFlow's profiler); epoch and evaluation summaries are
    always written, where Keras's, written under its batch-level `record_if`, are
    dropped when `update_freq` is an int N and the batch count at the epoch's end is not
    a multiple of N; arguments are checked at the call (ValueError). Keras 3.15 on
    TensorFlow 2.21 writes no TensorFlow op graph either (tests/reference/keras_tf).
    """

    def __init__(
        self,
        log_dir: str | os.PathLike = "logs",
        histogram_freq: int = 0,
        write_graph: bool = True,
        write_images: bool = False,
        write_steps_per_second: bool = False,
        update_freq: str | int = "epoch",
        profile_batch: int | str | tuple[int, int] = 0,
        embeddings_freq: int = 0,
        embeddings_metadata: str | dict[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.log_dir = arguments.log_dir(log_dir)
        self.histogram_freq = arguments.frequency("histogram_freq", histogram_freq)
        self.write_graph = check_flag(API, None, "write_graph", write_graph)
        self.write_images = check_flag(API, None, "write_images", write_images)
        self.write_steps_per_second = check_flag(API, None, "write_steps_per_second", write_steps_per_second)
        self.update_freq = arguments.update_freq(update_freq)
        self.embeddings_freq = arguments.frequency("embeddings_freq", embeddings_freq)
        self.embeddings_metadata = arguments.embeddings_metadata(embeddings_metadata)
        if arguments.profiles(profile_batch):
            warnings.warn(
                f"{NAME}: profile_batch={profile_batch!r} ignored: profiling needs TensorFlow's profiler",
                stacklevel=2,
            )
        frequency = self.update_freq
        self._batch_frequency: int | None = frequency if isinstance(frequency, int) else None
        self._writers: dict[str, SummaryWriter | NoopSummaryWriter] = {}
        self._contexts: list[contextlib.ExitStack] = []
        # Tags by log key, one cache a prefix: formatted once, not per value.
        self._batch_tags: dict[str, str] = {}
        self._epoch_tags: dict[str, str] = {}
        self._evaluation_tags: dict[str, str] = {}
        # The batch counters, and the default step of the model's own summaries while
        # the run's writer is pushed: moved on by an attribute set, read at each op.
        self._train_batches = StepCounter()
        self._test_batches = StepCounter()
        self._epoch_start_batch = 0  # the train batch counter when the epoch began
        self._hooks_thread = threading.get_ident()  # the thread running fit's hooks
        self._steps_per_execution = 1
        # Batch logs of hooks run on Keras's thread pool, waiting for those before them.
        self._pool_lock = threading.Lock()
        self._pooled: list[tuple[int, dict | None]] = []
        self._next_pooled_step = self._batch_frequency or 0
        self._batch_start_time = 0.0
        self._batch_writer: SummaryWriter | NoopSummaryWriter = NoopSummaryWriter()  # the batches' run
        self._epoch_start_time = 0.0
        self._epoch_start_iterations = 0
        self._unusable_metadata: set[str] = set()  # metadata files warned about
        self._set_run_directories()

    # Writers: one a run, made when first written to, as Keras makes them.

    def _set_run_directories(self) -> None:
        """The runs' directories under the attributes Keras gives them (set again at each
        `set_model`, as Keras does; subclasses written for Keras read or set them)."""
        self._log_write_dir = self.log_dir
        self._train_dir = os.path.join(self._log_write_dir, _RUNS["train"])
        self._val_dir = os.path.join(self._log_write_dir, _RUNS["val"])

    def _writer(self, kind: str) -> SummaryWriter | NoopSummaryWriter:
        writer = self._writers.get(kind)
        if writer is None or writer.closed:
            writer = summarylib.create_file_writer(self._train_dir if kind == "train" else self._val_dir)
            self._writers[kind] = writer
        return writer

    @contextlib.contextmanager
    def _writing(self, kind: str) -> Iterator[None]:
        """The run's writer as the default, recording on, flushed on the way out."""
        with self._writer(kind).as_default(), summarylib.record_if(True):
            yield

    def _close_writers(self) -> None:
        """Close the runs' writers; a failed write is a warning, never raised into `fit`
        (see `summarylib.integrations.implicit`)."""
        for kind, writer in self._writers.items():
            settle_quietly(writer.close, NAME, f"closing the {_RUNS[kind]!r} run's writer")
        self._writers = {}

    def _push_writer(self, kind: str, batches: StepCounter) -> SummaryWriter | NoopSummaryWriter:
        """With batch-level logging, make the run's writer the default for the model's
        own summaries, at the step `batches` counts, recording at every N-th batch.
        Returns the writer, a no-op one without batch-level logging (as the model's
        own summaries then are)."""
        if self._batch_frequency is None:
            return NoopSummaryWriter()
        writer = self._writer(kind)
        stack = contextlib.ExitStack()
        stack.enter_context(writer.as_default())
        stack.enter_context(counted_steps(batches))
        stack.enter_context(summarylib.record_if(batches.value % self._batch_frequency == 0))
        self._contexts.append(stack)
        return writer

    def _record_at(self, step: int) -> None:
        """Within the pushed context, with update_freq N > 1: record at the batch `step`
        if it is logged. Set as a plain bool (not a callable), so each op checks it at no
        cost, and only when it changes: a ContextVar set costs more than a get. (With
        update_freq=1 it is True since the push, and never looked at: a batch hook runs
        with cold caches in `fit`, where every call counts.) Leaving the context restores
        what was there before."""
        recording = step % (self._batch_frequency or 1) == 0
        if record_condition.get() is not recording:
            record_condition.set(recording)

    def _pop_writer(self) -> None:
        if self._contexts:
            self._contexts.pop().close()

    # Keras's hooks.

    def set_model(self, model: Any) -> None:
        """Take the model of a `fit` or `evaluate`; write its conceptual graph."""
        super().set_model(model)
        self._close_writers()
        self._set_run_directories()
        if self.write_graph and type(model).__name__ in ("Functional", "Sequential"):
            with self._writing("train"):
                model_graph(model, step=0)
        if self.embeddings_freq:
            check_layer_names(self.embeddings_metadata, [layer.name for layer in _embedding_layers(model)])

    def on_train_begin(self, logs: dict | None = None) -> None:
        self._train_batches.value = 0
        self._hooks_thread = threading.get_ident()
        # Read here, on fit's thread: `self.model` on JAX syncs the training state, which
        # from Keras's thread pool races the next step for its donated buffers.
        self._steps_per_execution = getattr(self.model, "steps_per_execution", 1) or 1
        self._pooled = []
        self._next_pooled_step = self._batch_frequency or 0
        self._batch_writer = self._push_writer("train", self._train_batches)

    def on_train_end(self, logs: dict | None = None) -> None:
        pooled, self._pooled = sorted(self._pooled), []  # after a pooled hook that failed
        try:
            if pooled:
                with defaults(self._writer("train")):
                    for step, batch_logs in pooled:
                        self._log_batch(step, batch_logs)
        finally:
            self._pop_writer()
            self._close_writers()

    def on_test_begin(self, logs: dict | None = None) -> None:
        self._push_writer("val", self._test_batches)

    def on_test_end(self, logs: dict | None = None) -> None:
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None and hasattr(optimizer, "iterations"):
            step = _as_int(optimizer.iterations)
            if logs:
                with self._writing("val"):
                    write_scalars(self._writer("val"), self._evaluation_tags, evaluation_tag, logs, step)
        self._pop_writer()

    def on_train_batch_begin(self, batch: int, logs: dict | None = None) -> None:
        batches = self._train_batches  # the default step too, while the writer is pushed
        step = batches.value = batches.value + 1
        if self._batch_frequency != 1 and self._contexts:
            self._record_at(step)
        if self.write_steps_per_second:
            self._batch_start_time = time.perf_counter()

    def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
        frequency = self._batch_frequency
        if frequency is None:
            return
        if _thread_id() != self._hooks_thread:
            self._pooled_batch_end(batch, logs, frequency)
            return
        step = self._train_batches.value
        if step % frequency == 0:
            self._log_batch(step, logs)

    def _log_batch(self, step: int, logs: dict | None) -> None:
        """What the batch-end hook writes at a logged batch, to the `train` run (the
        default writer too, for the steps per second)."""
        if self.write_steps_per_second:
            self._log_steps_per_second(step)
        if isinstance(logs, dict):
            write_scalars(self._batch_writer, self._batch_tags, batch_tag, logs, step)

    def _log_steps_per_second(self, step: int) -> None:
        elapsed = time.perf_counter() - self._batch_start_time
        summarylib.scalar("batch_steps_per_second", 1.0 / elapsed if elapsed > 0 else math.inf, step=step)

    def _pooled_batch_end(self, batch: int, logs: dict | None, frequency: int) -> None:
        """The batch-end hook as Keras runs it when `fit` is given the callback alone (not
        in a list): on a thread pool, maybe after the next batches began (so the counter
        is ahead) and beside the hook of another batch. The step comes from Keras's
        `batch`, the epoch's index of the execution's last batch (one step an execution
        of `steps_per_execution` batches, as the counter counts them); batches are
        written in step order, each when those before it are."""
        step = self._epoch_start_batch + batch // self._steps_per_execution + 1
        if step % frequency:
            return
        with self._pool_lock:
            heapq.heappush(self._pooled, (step, logs))
            with defaults(self._writer("train")):  # the pool's thread has no default writer
                while self._pooled and self._pooled[0][0] == self._next_pooled_step:
                    self._next_pooled_step += frequency
                    self._log_batch(*heapq.heappop(self._pooled))

    def on_test_batch_begin(self, batch: int, logs: dict | None = None) -> None:
        batches = self._test_batches
        step = batches.value = batches.value + 1
        if self._batch_frequency != 1 and self._contexts:
            self._record_at(step)

    def on_epoch_begin(self, epoch: int, logs: dict | None = None) -> None:
        self._epoch_start_batch = self._train_batches.value
        if self.write_steps_per_second:
            self._epoch_start_iterations = _as_int(self.model.optimizer.iterations)
            self._epoch_start_time = time.perf_counter()

    def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
        """Write the epoch's metrics, then weights and embeddings when due."""
        self._log_epoch_metrics(epoch, logs)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)
        if self.embeddings_freq and epoch % self.embeddings_freq == 0:
            self._log_embeddings(epoch)

    # What an epoch writes.

    def _log_epoch_metrics(self, epoch: int, logs: dict | None) -> None:
        if not logs:
            return
        train_logs = {name: value for name, value in logs.items() if not name.startswith("val_")}
        val_logs = {name[4:]: value for name, value in logs.items() if name.startswith("val_")}
        train_logs.update(self._learning_rates())
        if self.write_steps_per_second:
            train_logs["steps_per_second"] = self._steps_per_second()
        errors = []
        for kind, run_logs in (("train", train_logs), ("val", val_logs)):
            if run_logs:
                with self._writing(kind):
                    try:
                        write_scalars(self._writer(kind), self._epoch_tags, epoch_tag, run_logs, epoch)
                    except (TypeError, ValueError) as error:  # the other run is written first
                        errors.append(error)
        if errors:
            raise errors[0]

    def _learning_rates(self) -> dict[str, float]:
        """The optimizer's learning rate, or each of a multi-optimizer's, as Keras logs them."""
        optimizer = self.model.optimizer
        optimizer = getattr(optimizer, "inner_optimizer", optimizer)  # a LossScaleOptimizer
        if hasattr(optimizer, "optimizers"):
            return {
                f"learning_rate_{inner.name}": _as_float(inner.learning_rate)
                for inner in optimizer.optimizers
            }
        if isinstance(optimizer, keras.optimizers.Optimizer):
            return {"learning_rate": _as_float(optimizer.learning_rate)}
        return {}

    def _steps_per_second(self) -> float:
        elapsed = time.perf_counter() - self._epoch_start_time
        steps = _as_int(self.model.optimizer.iterations) - self._epoch_start_iterations
        return steps / elapsed if elapsed > 0 else math.inf

    def _log_weights(self, epoch: int) -> None:
        channels_last = keras.config.image_data_format() == "channels_last"
        with self._writing("train"):
            for layer in self.model.layers:
                for weight in layer.weights:
                    values = keras.ops.convert_to_numpy(weight)
                    summarylib.histogram(weight_tag(weight.path, "histogram"), values, step=epoch)
                    if self.write_images:
                        image = weight_image(values, channels_last)
                        if image is not None:
                            summarylib.image(weight_tag(weight.path, "image"), image, step=epoch)

    def _log_embeddings(self, epoch: int) -> None:
        with self._writing("train"):
            for layer in _embedding_layers(self.model):
                path = metadata_for(layer.name, self.embeddings_metadata)
                labels, header = labels_for(path, self.log_dir, layer.name, self._unusable_metadata)
                matrix = keras.ops.convert_to_numpy(layer.embeddings)
                try:
                    embedding(layer.name, matrix, metadata=labels, metadata_header=header, step=epoch)
                except ValueError as error:  # the file's labels do not fit the matrix
                    if labels is None or path is None:
                        raise
                    warn_unusable(path, layer.name, error, self._unusable_metadata)
                    embedding(layer.name, matrix, step=epoch)


def _embedding_layers(model: Any) -> list:
    return [layer for layer in model.layers if isinstance(layer, keras.layers.Embedding)]


def _as_float(value: Any) -> float:
    return float(keras.ops.convert_to_numpy(value))


def _as_int(value: Any) -> int:
    return int(keras.ops.convert_to_numpy(value))
