"""The writer resource users hold: where events go, and the context that makes it default."""

from __future__ import annotations

import contextlib
import os
import weakref
from collections.abc import Iterator
from typing import Any

from summarylib.writer import context
from summarylib.writer.engine import (
    DEFAULT_CLOSE_TIMEOUT,
    DEFAULT_FLUSH_MILLIS,
    DEFAULT_MAX_QUEUE,
    Engine,
    WriterStats,
)
from summarylib.writer.event_file import EventFile


def _positive_int(value: Any, argument: str, default: int) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"create_file_writer: {argument} must be a positive int, got {value!r}")
    return value


class SummaryWriter:
    """Writes the events of one run into a new event file in `logdir`.

    Make it the default with `as_default()` (or `set_as_default()`) and the ops write
    through it. Closing it (explicitly, as a context manager, when it is garbage
    collected or at interpreter exit) writes everything logged so far.
    """

    def __init__(
        self,
        logdir: str | os.PathLike,
        max_queue: int | None = None,
        flush_millis: int | None = None,
        filename_suffix: str | None = None,
        name: str | None = None,
    ) -> None:
        if logdir is None or not isinstance(logdir, (str, os.PathLike)):
            raise ValueError(
                f"create_file_writer: logdir must be a non-empty str or os.PathLike, got {logdir!r}"
            )
        logdir = os.fspath(logdir)
        if not logdir:
            raise ValueError("create_file_writer: logdir must be a non-empty path, got ''")
        if filename_suffix is not None and not isinstance(filename_suffix, str):
            raise TypeError(
                f"create_file_writer: filename_suffix must be a str, got {type(filename_suffix).__name__}"
            )
        max_queue = _positive_int(max_queue, "max_queue", DEFAULT_MAX_QUEUE)
        flush_millis = _positive_int(flush_millis, "flush_millis", DEFAULT_FLUSH_MILLIS)
        os.makedirs(logdir, exist_ok=True)
        self.logdir = logdir
        self.name = name or logdir
        self._engine = Engine(self.name, EventFile(logdir, filename_suffix), max_queue, flush_millis)
        # What ops call to queue an event; close() swaps it for one that raises.
        self.submit = self._engine.submit
        self._finalizer = weakref.finalize(self, self._engine.close)

    @property
    def path(self) -> str:
        """The event file this writer appends to."""
        return self._engine.file.path

    @property
    def closed(self) -> bool:
        """Whether close() was called."""
        return not self._finalizer.alive

    def _check_open(self, what: str) -> None:
        if not self._finalizer.alive:
            raise RuntimeError(f"summarylib writer {self.name}: {what} on a closed writer")

    @contextlib.contextmanager
    def as_default(self, step: Any = None) -> Iterator[SummaryWriter]:
        """Make this the default writer (and `step` the default step) inside the block.

        Nestable: leaving the block restores the previous default writer and step. The
        writer is flushed on the way out, also when an exception unwinds the block.
        """
        self._check_open("as_default()")
        step_token = None if step is None else context.default_step.set(context.coerce_step(step))
        writer_token = context.default_writer.set(self)
        try:
            yield self
        finally:
            context.default_writer.reset(writer_token)
            if step_token is not None:
                context.default_step.reset(step_token)
            self.flush()

    def set_as_default(self, step: Any = None) -> None:
        """Make this the default writer of this thread or task until another is set."""
        self._check_open("set_as_default()")
        if step is not None:
            context.set_step(step)
        context.default_writer.set(self)

    def flush(self, fsync: bool = False) -> None:
        """Return once every event logged so far is written to the OS (to disk with fsync).

        Raises `WriterError` if writing failed in the background since the last report.
        A no-op on a closed writer.
        """
        self._engine.flush(fsync)

    def close(self, timeout: float = DEFAULT_CLOSE_TIMEOUT) -> None:
        """Write everything logged and close the file; idempotent.

        Raises `WriterError` if writing failed, or if the background writer makes no
        progress for `timeout` seconds.
        """
        if self._finalizer.detach() is not None:
            self.submit = self._submit_after_close
            self._engine.close(timeout)

    def _submit_after_close(self, *args: object) -> None:
        self._check_open("an op wrote")

    def stats(self) -> WriterStats:
        """Counters: events queued and written, bytes written, queue high-water, errors."""
        return self._engine.stats()

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"<summarylib.SummaryWriter {self.name!r} {state}>"


class NoopSummaryWriter:
    """A writer that writes nothing: as default, every op returns False."""

    name = "noop"
    closed = False

    @contextlib.contextmanager
    def as_default(self, step: Any = None) -> Iterator[NoopSummaryWriter]:
        """Make no writer the default inside the block, so ops are no-ops."""
        step_token = None if step is None else context.default_step.set(context.coerce_step(step))
        writer_token = context.default_writer.set(None)
        try:
            yield self
        finally:
            context.default_writer.reset(writer_token)
            if step_token is not None:
                context.default_step.reset(step_token)

    def set_as_default(self, step: Any = None) -> None:
        """Make no writer the default of this thread or task."""
        if step is not None:
            context.set_step(step)
        context.default_writer.set(None)

    def flush(self, fsync: bool = False) -> None:
        """Nothing to flush."""

    def close(self, timeout: float = DEFAULT_CLOSE_TIMEOUT) -> None:
        """Nothing to close."""

    def __enter__(self) -> NoopSummaryWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
