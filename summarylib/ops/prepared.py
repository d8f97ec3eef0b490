"""The body the array ops share (histogram, image, audio, text, pr_curve): if recording,
check the name, prepare the data on the caller's thread with the op's encoding, and queue
the encoding's `summary` of what was prepared for the writer's thread."""

from __future__ import annotations

from types import ModuleType
from typing import Any

from summarylib.ops.errors import check_name
from summarylib.writer.queue import queue_summary, recording_writer


def log_prepared(op: str, name: str, step: Any, encoding: ModuleType, *options: Any) -> bool:
    """If recording, check `name`, `encoding.prepare(tag, *options)` on this thread, and
    queue `encoding.summary` of its result; whether anything will be written."""
    writer = recording_writer()
    if writer is None:
        return False
    tag = check_name(op, name)
    return queue_summary(writer, op, tag, step, encoding.summary, encoding.prepare(tag, *options))
