"""The v2 ops bound to the default writer: each validates and snapshots its input on the
caller's thread, queues an encoder call, and returns whether anything will be written."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from google.protobuf.message import DecodeError

from summarylib.ops import scalar as scalar_encoding
from summarylib.ops.convert import as_array, as_float, snapshot
from summarylib.ops.errors import check_description, check_name, op_error
from summarylib.ops.summary import summary_bytes
from summarylib.ops.tensor import make_tensor_proto
from summarylib.proto import summary_pb2
from summarylib.writer.context import default_writer, evaluate, record_condition, resolve_step
from summarylib.writer.summary_writer import SummaryWriter


def recording_writer() -> SummaryWriter | None:
    """The default writer if an op called now should write, else None."""
    writer = default_writer.get()
    if writer is None:
        return None
    condition = record_condition.get()
    if condition is not True and not evaluate(condition):
        return None
    return writer


def scalar(name: str, data: Any, step: Any = None, description: str | None = None) -> bool:
    """Write a scalar for TensorBoard's scalars dashboard, as `tf.summary.scalar` does.

    `data` is a real number: a Python number, numpy scalar, 0-d array or tensor. NaN and
    ±Inf are written as they are. Returns False, without looking at `data`, when there is
    no default writer or recording is off.
    """
    writer = recording_writer()
    if writer is None:
        return False
    tag = name if type(name) is str and name else check_name("scalar", name)
    value = as_float("scalar", tag, "data", data)
    step = resolve_step("scalar", tag, step)
    if description is not None:
        check_description("scalar", tag, description)
    writer.submit(scalar_encoding.scalar_summary, (tag, value, description), time.time(), step)
    return True


def _tensor_summary(tag: str, array: Any, metadata: bytes) -> bytes:
    parsed = summary_pb2.SummaryMetadata.FromString(metadata) if metadata else None
    return summary_bytes(tag, make_tensor_proto(array), parsed)


def _metadata_bytes(tag: str, metadata: Any) -> bytes:
    if metadata is None:
        return b""
    if isinstance(metadata, bytes):
        serialized = metadata
    elif callable(getattr(metadata, "SerializeToString", None)):
        serialized = metadata.SerializeToString()  # ours, or another library's proto
    else:
        raise op_error(
            TypeError,
            "write",
            tag,
            "metadata",
            f"expected a SummaryMetadata or bytes, got {type(metadata).__name__}",
        )
    try:
        summary_pb2.SummaryMetadata.FromString(serialized)
    except DecodeError as error:
        raise op_error(
            ValueError, "write", tag, "metadata", f"not a serialized SummaryMetadata ({error})"
        ) from None
    return serialized


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
    serialized_metadata = _metadata_bytes(tag, metadata)
    step = resolve_step("write", tag, step)
    data = tensor() if callable(tensor) else tensor
    array = as_array("write", tag, "tensor", data)
    if array.dtype.kind not in "biufcSU" and not (
        array.dtype.kind == "O" and all(isinstance(e, (str, bytes)) for e in array.reshape(-1).tolist())
    ):
        raise op_error(TypeError, "write", tag, "tensor", f"cannot write dtype {array.dtype} as a tensor")
    writer.submit(_tensor_summary, (tag, snapshot(array, data), serialized_metadata), time.time(), step)
    return True


def _as_is(summary: bytes) -> bytes:
    return summary


def write_raw_pb(serialized_summary: bytes | summary_pb2.Summary, step: Any = None) -> bool:
    """Write an already serialized Summary proto (from any library) as one event."""
    writer = recording_writer()
    if writer is None:
        return False
    if callable(getattr(serialized_summary, "SerializeToString", None)):
        serialized_summary = serialized_summary.SerializeToString()
    if not isinstance(serialized_summary, bytes):
        raise TypeError(
            "summarylib.write_raw_pb: argument 'serialized_summary': expected bytes or a Summary, "
            f"got {type(serialized_summary).__name__}"
        )
    try:
        summary_pb2.Summary.FromString(serialized_summary)
    except DecodeError as error:
        raise ValueError(
            f"summarylib.write_raw_pb: argument 'serialized_summary': not a serialized Summary ({error})"
        ) from None
    step = resolve_step("write_raw_pb", "<raw>", step)
    writer.submit(_as_is, (serialized_summary,), time.time(), step)
    return True


def flush(writer: SummaryWriter | None = None) -> None:
    """Flush `writer`, or the default writer of this thread or task if None."""
    writer = writer if writer is not None else default_writer.get()
    if writer is not None:
        writer.flush()


def create_file_writer(
    logdir: Any,
    max_queue: int | None = None,
    flush_millis: int | None = None,
    filename_suffix: str | None = None,
    name: str | None = None,
) -> SummaryWriter:
    """A writer into a new event file in `logdir` (created if missing).

    `max_queue`: pending events that make the background writer write at once (default
    1000). `flush_millis`: longest time logged data waits before it is written to the OS
    (default 2000, so a running TensorBoard sees it within about two seconds).
    """
    return SummaryWriter(logdir, max_queue, flush_millis, filename_suffix, name)
