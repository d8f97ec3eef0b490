"""How an op hands its work to the default writer: `recording_writer` (the writer an op
called now writes to, if any) and `queue_summary` / `queue_task`, which queue an encoder
call or a file task for the writer's thread with the bytes its snapshots hold, and hand
those snapshots back to the pool once done. Every op that queues a Summary (v2 ops, compat
layers, integrations) goes through here."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, cast

import numpy as np

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
from summarylib.writer.snapshots import snapshot_pool
from summarylib.writer.summary_writer import SummaryWriter


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
