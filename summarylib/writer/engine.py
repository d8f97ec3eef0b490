"""The background half of a writer: the thread that drains its queue, its file, flushes,
close, and the account of what was written, lost and dropped.

Callers queue events (intake.py: the queue, the scalar lane and their bounds); the worker
thread turns queued items into serialized events, frames them and hands them to the OS
in large writes. Encoders that spend their time in numpy, zlib or PNG code release the
GIL, so this work runs on a second core while the training loop goes on. A flush is a
marker in the same queue, so it returns only after everything queued before it.

An event that fails to encode is dropped alone (a batch is then encoded one by one),
counted in `stats().events_dropped` and recorded as an error naming its op and tag;
events whose write fails are counted in `stats().events_lost` (see outcomes.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from summarylib.format import records
from summarylib.writer.drain import FLUSH, Drain
from summarylib.writer.intake import DEFAULT_MAX_QUEUE, DEFAULT_MAX_QUEUE_BYTES, Intake
from summarylib.writer.outcomes import WriterError, WriterStats, dropped, error_text
from summarylib.writer.output import Output
from summarylib.writer.run_files import RunFile

__all__ = ["Engine", "WriterError", "WriterStats"]

# How often the worker writes when few events come: a running TensorBoard sees data
# about this long after it was logged.
DEFAULT_FLUSH_MILLIS = 2000
# How long close() waits for a worker that makes no progress.
DEFAULT_CLOSE_TIMEOUT = 30.0


class Engine(Intake, Drain):
    """Owns the event file, the queue and the worker thread of one logdir's writers."""

    def __init__(
        self,
        name: str,
        event_file: RunFile,
        max_queue: int = DEFAULT_MAX_QUEUE,
        flush_millis: int = DEFAULT_FLUSH_MILLIS,
        max_queue_bytes: int = DEFAULT_MAX_QUEUE_BYTES,
        filename_suffix: str | None = None,
    ) -> None:
        super().__init__(max_queue, max_queue_bytes, flush_millis / 1000.0)
        self.name = name
        self.file = event_file
        self.filename_suffix = filename_suffix  # what its file was named with, for later writers
        self._framer = records.Framer()
        self.progressed_at = time.monotonic()  # when the worker last encoded an event (see Output)
        self._stopping = False
        self.closed = False
        self._dequeued = 0
        self._written = 0
        self._lost = 0  # writing them failed
        self._dropped = 0  # they failed to encode
        self._errors = 0
        self._last_error: BaseException | None = None
        self._unraised_error: BaseException | None = None
        self._side_files: list[Any] = []
        self._thread = threading.Thread(target=self._run, name=f"summarylib-writer[{name}]", daemon=True)
        self._thread.start()

    # Caller's side (queueing: see Intake) ----------------------------------------------

    def flush(self, fsync: bool = False, timeout: float = DEFAULT_CLOSE_TIMEOUT, quiet: bool = False) -> None:
        """Return once everything queued so far is with the OS (and on disk with fsync).

        Raises WriterError for a failure since the last report; `quiet` (the implicit
        flushes: leaving `as_default()`, garbage collection, exit) logs it as the
        once-only warning instead and keeps it for the next explicit flush or close.
        """
        if self.closed:
            return
        done = threading.Event()
        self.queue.append((0, 0, (fsync, done), FLUSH, 0, self.lane.mark()))
        self._wake.set()
        self._settle(lambda: self._wait_for_worker(done.wait, "flush", timeout), quiet)

    def _settle(self, wait: Callable[[], None], quiet: bool) -> None:
        """Run `wait()`, then raise a pending failure, or when `quiet` only warn of it."""
        if not quiet:
            wait()
            self._raise_unraised()
            return
        try:
            wait()
        except WriterError as error:
            self._record_error(error)
        if self.warn_pending:
            self._warn_once()

    def abandon_after_fork(self) -> None:
        """In a forked child: drop the parent's queued events and the child's copies of
        its files (a descriptor, an object store's gathered bytes), writing nothing; the
        parent's worker goes on writing them."""
        self.queue.clear()
        self.lane.abandon_after_fork()
        self.closed = True
        self.file.abandon()

    def attach(self, files: Any) -> None:
        """Have `files` (an object with `flush()` and `idle()`: the side files of
        torch's `add_scalars`, written on this engine's thread) flushed whenever this
        engine flushes, closes or idles, so an object store's uploads follow the run's."""
        self._side_files.append(files)

    def close(self, timeout: float = DEFAULT_CLOSE_TIMEOUT, quiet: bool = False) -> None:
        """Drain the queue, stop the worker and close the file; idempotent.

        Raises WriterError when the worker makes no progress for `timeout` seconds (a
        hung disk) or has died, and when writing failed since the last report; `quiet`
        (garbage collection, exit) logs that as a warning instead.
        """
        if self.closed:
            return
        self._stopping = True
        self._wake.set()

        def wait() -> None:
            try:
                self._wait_for_worker(self._joined, "close", timeout)
            finally:
                self.closed = True
                self._flush_files(close=True)  # an object store's file uploads the rest here

        self._settle(wait, quiet)

    def stats(self) -> WriterStats:
        """A snapshot of the counters."""
        return WriterStats(
            events_queued=self._dequeued + self.pending(),
            events_written=self._written,
            bytes_written=self.file.bytes_written,
            queue_high_water_bytes=max(self._high_water, self.pending_bytes()),
            errors=self._errors,
            last_error=None if self._last_error is None else error_text(self._last_error),
            path=self.file.path,
            events_lost=self._lost
            + sum(getattr(f, "events_lost", 0) for f in (self.file, *self._side_files)),
            events_dropped=self._dropped,
        )

    def _joined(self, timeout: float) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _wait_for_worker(self, wait: Callable[[float], bool], what: str, timeout: float) -> None:
        """Call `wait(seconds)` until it returns True, as long as the worker lives and
        makes progress."""
        progress, since = self._dequeued, time.monotonic()
        while not wait(0.05):
            if not self._thread.is_alive():
                raise WriterError(
                    f"summarylib writer {self.name}: the background writer has stopped; "
                    f"{what} cannot complete and {self.pending()} queued events are not written"
                )
            if self._dequeued != progress:
                progress, since = self._dequeued, time.monotonic()
            elif time.monotonic() - since > timeout:
                raise WriterError(
                    f"summarylib writer {self.name}: the background writer made no progress for "
                    f"{timeout:g} s (a hung disk?); {what} gave up with {self.pending()} events queued"
                )

    def _raise_unraised(self) -> None:
        """Raise the first failure not yet reported; a later one (an object store's account
        at close of what it kept and where) is named too."""
        error, self._unraised_error = self._unraised_error, None
        if error is not None:
            last = self._last_error
            latest = "" if last is None or last is error else f"; latest: {error_text(last)}"
            counts = self.stats()
            raise WriterError(
                f"summarylib writer {self.name}: writing events failed: {error_text(error)}{latest} (so far "
                f"{counts.events_lost} events lost, {counts.events_dropped} dropped; see stats())"
            ) from error

    # Worker's side -------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            self._wake.wait(self._flush_secs)
            self._wake.clear()
            try:
                self._drain(Output(self, self._flush_secs / 2, self._framer))
            except Exception as error:  # a bug here must cost events, not the writer
                self._record_error(error)
            for files in (self.file, *self._side_files):
                try:  # an object store's file uploads when its interval has passed
                    files.idle()
                except Exception as error:  # each file on its own
                    self._record_error(error)
            self.room_made.set()
            if self._stopping and not self.pending():
                return

    def written_elsewhere(self) -> None:
        """Count one event its maker wrote to a file of its own (series_files)."""
        self._written += 1

    def event_failed(self, make_event: Callable[..., Any], args: tuple, error: Exception) -> None:
        """Count and record one event whose maker failed: lost when it was writing a file
        of its own (an OSError of series_files), else dropped, its op and tag named."""
        if isinstance(error, OSError):
            self._lost += 1
            self._record_error(error)
        else:
            self._dropped += 1
            self._record_error(dropped(make_event, args, error))

    def write_records(self, parts: list[bytes | np.ndarray], count: int) -> None:
        """Write framed records (`count` events) to the file; errors are recorded."""
        try:
            replaced = self.file.reopen_if_deleted()
            if replaced:
                self._record_error(
                    FileNotFoundError(f"event file {replaced} was deleted; writing to {self.file.path}")
                )
            # bytes.join takes any buffer; numpy's stubs do not say an ndarray is one.
            self.file.write(b"".join(parts))  # type: ignore[arg-type]
        except OSError as error:  # the file keeps its whole records only (see EventFile)
            self._lost += count
            self._record_error(error)
            return
        finally:
            self.room_made.set()
        self._written += count

    def _flush_files(self, close: bool = False) -> None:
        """Flush the side files and flush (or close) the run's file, each on its own: a
        failure is recorded and does not keep the others from going."""
        for call in (
            *(files.flush for files in self._side_files),
            self.file.close if close else self.file.flush,
        ):
            try:
                call()
            except OSError as error:
                self._record_error(error)

    def _complete_flush(self, fsync: bool, done: threading.Event) -> None:
        try:
            self._flush_files()  # an object store's files upload what they gathered
            if fsync:
                self.file.sync()
        except OSError as error:
            self._record_error(error)
        finally:
            done.set()

    def _record_error(self, error: BaseException) -> None:
        self._errors += 1
        self._last_error = error
        if self._unraised_error is None:
            self._unraised_error = error
            with self._array_bytes_lock:
                self.warn_pending = True
                self.scalar_limit = 0  # the lane's next caller logs it (see _warn_once)
