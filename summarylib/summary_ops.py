"""The v2 ops bound to the default writer: each validates and snapshots its input on the
caller's thread, queues an encoder call, and returns whether anything will be written."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any, cast

import numpy as np
from google.protobuf.message import DecodeError

from summarylib.format.wire import INT64_MAX, INT64_MIN
from summarylib.ops import audio as audio_encoding
from summarylib.ops import generic
from summarylib.ops import histogram as histogram_encoding
from summarylib.ops import image as image_encoding
from summarylib.ops import pr_curve as pr_curve_encoding
from summarylib.ops import scalar as scalar_encoding
from summarylib.ops import text as text_encoding
from summarylib.ops.convert import as_float, snapshot_pool
from summarylib.ops.errors import check_description, check_name, op_error, valid_tags
from summarylib.proto import summary_pb2
from summarylib.writer.context import (
    DefaultWriter,
    default_writer,
    emit_pending_warnings,
    evaluate,
    pending_warnings,
    record_condition,
    resolve_step,
)
from summarylib.writer.event_codec import event_of_summary
from summarylib.writer.ranks import Ranks, check_ranks, run_logdir
from summarylib.writer.summary_writer import NoopSummaryWriter, SummaryWriter


def recording_writer() -> SummaryWriter | None:
    """The default writer if an op called now should write, else None. (Only a
    SummaryWriter is ever the default: its `as_default` and `context.defaults` set one; the
    context module knows it as a `DefaultWriter` so the two do not import each other.)"""
    writer = cast("SummaryWriter | None", default_writer.get())
    if writer is None:
        return None
    condition = record_condition.get()
    if condition is not True and not evaluate(condition):
        return None
    return writer


_scalar_event = scalar_encoding.scalar_event
_V2_COLUMNS = scalar_encoding.V2_COLUMNS
_now = time.time


def scalar(name: str, data: Any, step: Any = None, description: str | None = None) -> bool:
    """Write a scalar for TensorBoard's scalars dashboard, as `tf.summary.scalar` does.

    `data` is a real number: a Python number, numpy scalar, 0-d array or tensor. NaN and
    ±Inf are written as they are. Returns False, without looking at `data`, when there is
    no default writer or recording is off.
    """
    # The most frequent op: the common cases are checked inline, the rest by the helpers.
    writer = default_writer.get()
    if writer is None:
        return False
    condition = record_condition.get()
    if condition is not True and not evaluate(condition):
        return False
    tag = name if type(name) is str and name in valid_tags else check_name("scalar", name)
    value = data if type(data) is float else as_float("scalar", tag, "data", data)
    if type(step) is not int or not INT64_MIN <= step <= INT64_MAX:
        step = resolve_step("scalar", tag, step)
    if description is not None:
        check_description("scalar", tag, description)
    engine = writer.scalar_engine
    if engine is None or description is not None:
        writer.submit(_scalar_event, (tag, value, description), _now(), step)
    else:  # the scalar lane: no tuple kept per event, no call (see writer/scalar_stream.py)
        scalars = engine.scalars
        scalars += (_V2_COLUMNS, tag, value, _now(), step)
        if len(scalars) >= engine.scalar_limit:
            engine.scalars_full()
    if pending_warnings:  # warnings about data encoded on the writer's thread
        emit_pending_warnings()
    return True


def _encode_then_release(
    wall_time: float, step: int, make_summary: Callable[..., bytes], *args: Any
) -> bytes:
    """The event of `make_summary(*args)`, made on the writer's thread; then the snapshots
    in `args` are done with, and their memory can serve the next ones."""
    try:
        return event_of_summary(wall_time, step, make_summary, *args)
    finally:
        _release(args)


def _run_then_release(wall_time: float, step: int, task: Callable[..., None], *args: Any) -> None:
    """`task(step, *args)` on the writer's thread, for its files (no event); then the
    snapshots in `args` are released."""
    try:
        task(step, *args)
    finally:
        _release(args)


def _release(args: tuple) -> None:
    for arg in args:
        if isinstance(arg, np.ndarray):
            snapshot_pool.release(arg)


def _held_bytes(args: tuple) -> int:
    """Memory the queued `args` hold, as the queue's byte bound counts it: arrays, and the
    bytes of encoded strings (a text op's list), so 1 MiB strings count as 1 MiB each."""
    held = 0
    for arg in args:
        if isinstance(arg, np.ndarray):
            held += arg.nbytes
        elif isinstance(arg, (bytes, bytearray, str)):
            held += len(arg)
        elif isinstance(arg, list) and arg and isinstance(arg[0], bytes):
            held += sum(map(len, arg))
    return held


def queue_summary(
    writer: SummaryWriter,
    op: str,
    tag: str | None,
    step: Any,
    make_summary: Callable[..., bytes],
    args: tuple,
    wall_time: float | None = None,
) -> bool:
    """Queue `make_summary(*args)` at the resolved step (and `wall_time`, else now);
    arrays in `args` count toward the queue's byte bound and are recycled once encoded.
    Every op that queues a Summary (v2 ops, compat layers) goes through here."""
    nbytes = _held_bytes(args)
    step = resolve_step(op, tag, step)
    when = time.time() if wall_time is None else wall_time
    writer.submit(_encode_then_release, (make_summary, *args), when, step, nbytes)
    if pending_warnings:  # warnings about data encoded on the writer's thread
        emit_pending_warnings()
    return True


def queue_task(writer: DefaultWriter, step: int, task: Callable[..., None], args: tuple) -> None:
    """Queue `task(step, *args)` to run on the writer's thread in queue order, for data
    that goes to files beside the event file (the projector's); a flush of the writer
    waits for it, and a failure is reported as a background write error."""
    nbytes = _held_bytes(args)
    writer.submit(_run_then_release, (task, *args), time.time(), step, nbytes)
    if pending_warnings:
        emit_pending_warnings()


def _log(op: str, name: str, step: Any, encoding: ModuleType, *options: Any) -> bool:
    """The body of the array ops: if recording, check the name, `encoding.prepare(tag,
    *options)` on this thread, and queue `encoding.summary` of its result."""
    writer = recording_writer()
    if writer is None:
        return False
    tag = check_name(op, name)
    return queue_summary(writer, op, tag, step, encoding.summary, encoding.prepare(tag, *options))


def histogram(
    name: str, data: Any, step: Any = None, buckets: int | None = None, description: str | None = None
) -> bool:
    """Write a histogram of `data` for TensorBoard's histograms and distributions
    dashboards, as `tf.summary.histogram` does (see summarylib.ops.histogram)."""
    return _log("histogram", name, step, histogram_encoding, data, buckets, description)


def image(
    name: str, data: Any, step: Any = None, max_outputs: int = 3, description: str | None = None
) -> bool:
    """Write up to `max_outputs` images of a `[k, h, w, c]` batch as PNGs for TensorBoard's
    images dashboard, as `tf.summary.image` does (see summarylib.ops.image)."""
    return _log("image", name, step, image_encoding, data, max_outputs, description)


def audio(
    name: str,
    data: Any,
    sample_rate: Any,
    step: Any = None,
    max_outputs: int = 3,
    encoding: str | None = None,
    description: str | None = None,
) -> bool:
    """Write up to `max_outputs` clips of a `[k, t, c]` batch as WAV for TensorBoard's
    audio dashboard, as `tf.summary.audio` does (see summarylib.ops.audio)."""
    return _log("audio", name, step, audio_encoding, data, sample_rate, max_outputs, encoding, description)


def text(name: str, data: Any, step: Any = None, description: str | None = None) -> bool:
    """Write a string or an array of strings for TensorBoard's text dashboard (Markdown),
    as `tf.summary.text` does (see summarylib.ops.text)."""
    return _log("text", name, step, text_encoding, data, description)


def pr_curve(
    name: str,
    labels: Any,
    predictions: Any,
    step: Any = None,
    num_thresholds: int = 201,
    weights: Any = None,
    description: str | None = None,
) -> bool:
    """Write a precision-recall curve for TensorBoard's PR curves dashboard
    (see summarylib.ops.pr_curve; TensorFlow 2 has no such op)."""
    return _log(
        "pr_curve", name, step, pr_curve_encoding, labels, predictions, num_thresholds, weights, description
    )


def write(
    tag: str,
    tensor: Any | Callable[[], Any],
    step: Any = None,
    metadata: summary_pb2.SummaryMetadata | bytes | None = None,
) -> bool:
    """Write a generic tensor summary, as `tf.summary.write` does.

    `tensor` is any array-like (numbers, strings, numpy, framework tensors), or a
    zero-argument callable returning one, called only when recording. `metadata` is a
    SummaryMetadata (summarylib's, TensorBoard's or TensorFlow's) or its serialized bytes.
    """
    writer = recording_writer()
    if writer is None:
        return False
    tag = check_name("write", tag)
    step = resolve_step("write", tag, step)
    args = generic.prepare("write", tag, tensor() if callable(tensor) else tensor, metadata)
    return queue_summary(writer, "write", tag, step, generic.summary, args)


def write_raw_pb(serialized_summary: bytes | summary_pb2.Summary, step: Any = None) -> bool:
    """Write an already serialized Summary proto (from any library) as one event."""
    writer = recording_writer()
    if writer is None:
        return False
    serialize = getattr(serialized_summary, "SerializeToString", None)  # any library's Summary
    if callable(serialize):
        serialized_summary = serialize()
    if not isinstance(serialized_summary, bytes):
        raise op_error(
            TypeError,
            "write_raw_pb",
            None,
            "serialized_summary",
            f"expected bytes or a Summary, got {type(serialized_summary).__name__}",
        )
    try:
        summary_pb2.Summary.FromString(serialized_summary)
    except DecodeError as error:
        raise op_error(
            ValueError, "write_raw_pb", None, "serialized_summary", f"not a serialized Summary ({error})"
        ) from None
    step = resolve_step("write_raw_pb", None, step)
    writer.submit(event_of_summary, (bytes, serialized_summary), time.time(), step)
    if pending_warnings:
        emit_pending_warnings()
    return True


def flush(writer: SummaryWriter | None = None) -> None:
    """Flush `writer`, or the default writer of this thread or task if None; then raise
    the warnings about the data written (see summarylib.writer.context.warn_user)."""
    target: DefaultWriter | None = writer if writer is not None else default_writer.get()
    if target is not None:
        target.flush()
    emit_pending_warnings()


def create_file_writer(
    logdir: Any,
    max_queue: int | None = None,
    flush_millis: int | None = None,
    filename_suffix: str | None = None,
    name: str | None = None,
    max_queue_bytes: int | None = None,
    retain_seconds: float | None = None,
    ranks: Ranks = None,
    storage_options: dict[str, Any] | None = None,
) -> SummaryWriter | NoopSummaryWriter:
    """A writer into an event file in `logdir` (created if missing): a local path, or an
    fsspec URL (`s3://bucket/run`, `gs://`, `az://`, `memory://`, chained URLs; needs the
    `remote` extra and the protocol's package, such as s3fs) with `storage_options` for
    its filesystem. On object stores the run is uploaded as one new object per
    `flush_millis` (default 30,000 there) and at `flush()`/`close()`.

    `max_queue`: pending events that make the background writer write at once (default
    1000). `flush_millis`: longest time logged data waits before it is written to the OS
    (default 2000, so a running TensorBoard sees it within about two seconds).
    `max_queue_bytes`: memory pending events may hold before ops wait for the background
    writer (default 64 MiB; arrays count their size, other events 256 bytes each).
    `retain_seconds`: keep only about the last this many seconds of the run on disk, in
    rolling event files (a new one every quarter of it, the older deleted), for live
    views that log large images every step for days; None (the default) keeps everything.
    `ranks`: in a distributed job (torchrun, SLURM, MPI, an initialized torch.distributed,
    jax), which processes write. By default only global rank 0 does, into `logdir`; the
    others get a no-op writer (ops return False, nothing is created), so the dashboard
    shows one run. `"all"`, or a list of ranks, gives each chosen rank its own run,
    `logdir/rank_{k}`. See summarylib.writer.ranks.
    """
    ranks = check_ranks(ranks, "create_file_writer")
    logdir = os.fspath(logdir) if isinstance(logdir, os.PathLike) else logdir
    if isinstance(logdir, str):  # anything else: the writer says what is wrong with it
        logdir = run_logdir(logdir, ranks)
        if logdir is None:
            return NoopSummaryWriter()
    return SummaryWriter(
        logdir,
        max_queue,
        flush_millis,
        filename_suffix,
        name,
        max_queue_bytes,
        retain_seconds=retain_seconds,
        storage_options=storage_options,
    )
