"""The generic ops bound to the default writer: `write` (a tensor with any metadata) and
`write_raw_pb` (an already serialized Summary)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from summarylib.ops.errors import check_name, check_serialized, op_error
from summarylib.ops.tensor import encoding
from summarylib.proto import summary_pb2
from summarylib.writer.context import emit_pending_warnings, pending_warnings, resolve_step
from summarylib.writer.event_codec import event_of_summary
from summarylib.writer.queue import queue_summary, recording_writer


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
    args = encoding.prepare("write", tag, tensor() if callable(tensor) else tensor, metadata)
    return queue_summary(writer, "write", tag, step, encoding.summary, args)


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
    check_serialized(summary_pb2.Summary, serialized_summary, "write_raw_pb", None, "serialized_summary")
    step = resolve_step("write_raw_pb", None, step)
    writer.submit(event_of_summary, (bytes, serialized_summary), time.time(), step)
    if pending_warnings:
        emit_pending_warnings()
    return True
