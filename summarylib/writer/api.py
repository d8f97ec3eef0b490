"""The writer's public functions: `create_file_writer`, which makes a run's writer (or the
no-op writer on a distributed job's ranks that do not write), and `flush`."""

from __future__ import annotations

import os
from typing import Any

from summarylib.writer.context import DefaultWriter, default_writer, emit_pending_warnings
from summarylib.writer.ranks import Ranks, check_ranks, run_logdir
from summarylib.writer.summary_writer import NoopSummaryWriter, SummaryWriter


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
