"""The writer resource users hold: where events go, and the context that makes it default."""

from __future__ import annotations

import contextlib
import os
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from summarylib.checks import input_error
from summarylib.format.storage import is_url
from summarylib.writer import context, lifecycle
from summarylib.writer import writer_arguments as arguments
from summarylib.writer.engine import DEFAULT_CLOSE_TIMEOUT, DEFAULT_FLUSH_MILLIS, Engine, WriterStats
from summarylib.writer.event_codec import raw_event
from summarylib.writer.event_file import FileNames, v2_file_names
from summarylib.writer.intake import DEFAULT_MAX_QUEUE, DEFAULT_MAX_QUEUE_BYTES
from summarylib.writer.run_files import DEFAULT_UPLOAD_MILLIS, open_run_file


@dataclass(frozen=True)
class WriterSettings:
    """What a writer was created with: enough to re-create it in another process."""

    logdir: str
    max_queue: int
    flush_millis: int
    filename_suffix: str | None
    name: str
    max_queue_bytes: int
    file_names: FileNames = v2_file_names
    retain_seconds: float | None = None
    storage_options: dict[str, Any] | None = None


class SummaryWriter:
    """Writes the events of one run into an event file in `logdir`: a local path, or an
    fsspec URL (`s3://bucket/run`, `gs://...`, `memory://...`), where the run is a
    sequence of segment objects uploaded every `flush_millis` (default 30 s there) and
    at `flush()`/`close()` (see summarylib.writer.segments).

    Make it the default with `as_default()` (or `set_as_default()`) and the ops write
    through it. Closing it (explicitly, as a context manager, when it is garbage
    collected, at interpreter exit or on SIGTERM) writes everything logged so far.

    Writers of one logdir in one process share one event file, so that TensorBoard,
    which follows only the newest file of a run, shows the data of all of them. A writer
    inherited through fork, or passed to a spawned process, opens its own new file in the
    same logdir when that process first logs through it.
    """

    def __init__(
        self,
        logdir: str | os.PathLike,
        max_queue: int | None = None,
        flush_millis: int | None = None,
        filename_suffix: str | None = None,
        name: str | None = None,
        max_queue_bytes: int | None = None,
        *,
        file_names: FileNames = v2_file_names,
        retain_seconds: float | None = None,
        storage_options: dict[str, Any] | None = None,
    ) -> None:
        logdir = arguments.check_logdir(logdir)
        filename_suffix = arguments.check_suffix(filename_suffix)
        name = arguments.check_name(name)
        storage_options = arguments.check_storage_options(storage_options)
        on_object_store = is_url(logdir)
        if on_object_store and retain_seconds is not None:
            raise input_error(
                ValueError,
                arguments.API,
                None,
                "retain_seconds",
                f"is for local logdirs, got the URL {logdir!r}",
            )
        default_flush = DEFAULT_UPLOAD_MILLIS if on_object_store else DEFAULT_FLUSH_MILLIS
        self._setup(
            WriterSettings(
                logdir=logdir,
                max_queue=arguments.positive_int_or_default(max_queue, "max_queue", DEFAULT_MAX_QUEUE),
                flush_millis=arguments.positive_int_or_default(flush_millis, "flush_millis", default_flush),
                filename_suffix=filename_suffix,
                name=name or logdir,
                max_queue_bytes=arguments.positive_int_or_default(
                    max_queue_bytes, "max_queue_bytes", DEFAULT_MAX_QUEUE_BYTES
                ),
                file_names=file_names,
                retain_seconds=arguments.optional_positive_seconds(retain_seconds, "retain_seconds"),
                storage_options=storage_options,
            )
        )
        self._open_engine()  # the file and its first event exist as soon as the writer does

    def _setup(self, settings: WriterSettings) -> None:
        self.settings = settings
        self.logdir = settings.logdir
        self.name = settings.name
        self._closed = False
        self._engine: Engine | None = None
        self._finalizer: weakref.finalize | None = None
        self._attached: list[Any] = []  # side files flushed with the engine, whichever it is
        # What ops call to queue an event: the engine's submit once it is open.
        self.submit = self._submit_lazily
        # The engine whose scalar lane the scalar ops extend (see scalar_stream), while
        # it is open; None sends them through `submit`.
        self.scalar_engine: Engine | None = None
        lifecycle.reopen_after_fork(self)

    def _new_engine(self) -> Engine:
        settings = self.settings
        event_file = open_run_file(
            settings.logdir,
            settings.filename_suffix,
            settings.file_names,
            settings.retain_seconds,
            settings.storage_options,
            settings.flush_millis / 1000,
            settings.max_queue_bytes,
        )
        return Engine(
            settings.name,
            event_file,
            settings.max_queue,
            settings.flush_millis,
            settings.max_queue_bytes,
            settings.filename_suffix,
        )

    def _open_engine(self) -> Engine:
        engine = lifecycle.acquire(self.logdir, self._new_engine)
        if (engine.filename_suffix or None) != (self.settings.filename_suffix or None):
            context.warn_user(
                f"summarylib writer {self.logdir}: filename_suffix {self.settings.filename_suffix!r} not "
                f"used: this process already writes the run to {engine.file.path} (named with "
                f"{engine.filename_suffix!r}), which its writers share: one event file a run and "
                "process, since TensorBoard follows only the newest file of a run",
                UserWarning,
            )
        self._engine = engine
        self.submit = engine.submit
        self.scalar_engine = engine
        for files in self._attached:  # again after fork, on the child's own engine
            engine.attach(files)
        # Garbage collection and interpreter exit close quietly: a failure is a warning.
        self._finalizer = weakref.finalize(
            self, lifecycle.release_when_collected, self.logdir, engine, DEFAULT_CLOSE_TIMEOUT, True
        )
        return engine

    def _submit_lazily(self, *item: Any) -> None:
        self._open_engine().submit(*item)

    def attach(self, files: Any) -> None:
        """Flush and idle `files` (see Engine.attach) with this writer's engine, and with
        the engine it opens after a fork."""
        self._attached.append(files)
        if self._engine is not None:
            self._engine.attach(files)

    def write_event(self, event: bytes) -> None:
        """Queue an already serialized Event (session logs, graphs, v1 events)."""
        self.submit(raw_event, (event,), 0, 0)

    def _submit_after_close(self, *item: Any) -> None:
        self._check_open("an op wrote")

    def forget_engine_after_fork(self) -> None:
        """In a forked child: let go of the parent's engine; reopen on the first event."""
        if self._finalizer is not None:
            self._finalizer.detach()
        self._engine = self._finalizer = self.scalar_engine = None
        if not self._closed:
            self.submit = self._submit_lazily

    def __reduce__(self) -> tuple:
        return (_unpickle_writer, (self.settings,))

    @property
    def path(self) -> str | None:
        """The event file this writer appends to (None until it writes, after fork)."""
        return None if self._engine is None else self._engine.file.path

    @property
    def closed(self) -> bool:
        """Whether close() was called."""
        return self._closed

    def _check_open(self, what: str) -> None:
        if self._closed:
            raise RuntimeError(f"summarylib writer {self.name}: {what} on a closed writer")

    @contextlib.contextmanager
    def as_default(self, step: Any = None) -> Iterator[SummaryWriter]:
        """Make this the default writer (and `step` the default step) inside the block.

        Nestable: leaving the block restores the previous default writer and step. The
        writer is flushed on the way out, also when an exception unwinds the block. That
        flush never raises into the loop: a background write failure (a full disk) is
        logged once as a warning and kept for the next explicit `flush()` or `close()`,
        which raise it as `WriterError`.
        """
        self._check_open("as_default()")
        with context.defaults(self, step):
            try:
                yield self
            finally:
                if self._engine is not None:
                    self._engine.flush(quiet=True)

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
        if self._engine is not None:
            self._engine.flush(fsync)
        if context.pending_warnings:
            context.emit_pending_warnings()

    def close(self, timeout: float = DEFAULT_CLOSE_TIMEOUT) -> None:
        """Write everything logged and close the file (once no other writer of this
        logdir uses it); idempotent.

        Raises `WriterError` if writing failed, or if the background writer makes no
        progress for `timeout` seconds.
        """
        if self._closed:
            return
        self._closed = True
        self.submit = self._submit_after_close
        self.scalar_engine = None
        engine = self._engine
        if engine is not None and self._finalizer is not None and self._finalizer.detach() is not None:
            lifecycle.release(self.logdir, engine, timeout)
        if context.pending_warnings:
            context.emit_pending_warnings()

    def stats(self) -> WriterStats | None:
        """Counters of this writer's engine: events queued and written, bytes written,
        queue high-water mark, errors (None before it opened its file, after fork)."""
        return None if self._engine is None else self._engine.stats()

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<summarylib.SummaryWriter {self.name!r} {state}>"


def _unpickle_writer(settings: WriterSettings) -> SummaryWriter:
    """A writer like the pickled one, opening its own file when it first writes."""
    writer = SummaryWriter.__new__(SummaryWriter)
    writer._setup(settings)
    return writer


class NoopSummaryWriter:
    """A writer that writes nothing: as default, every op returns False. What
    `create_file_writer` gives the ranks of a distributed job that do not write."""

    name = "noop"
    closed = False
    scalar_engine = None  # the scalar ops call submit, which drops the event
    logdir = None
    path = None

    def submit(self, *item: Any) -> None:
        """Drop an event (layers that queue events themselves, such as compat.torch)."""

    def write_event(self, event: bytes) -> None:
        """Drop an already serialized event."""

    def stats(self) -> None:
        """No counters: nothing is written."""

    @contextlib.contextmanager
    def as_default(self, step: Any = None) -> Iterator[NoopSummaryWriter]:
        """Make no writer the default inside the block, so ops are no-ops."""
        with context.defaults(None, step):
            yield self

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
