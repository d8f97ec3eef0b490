"""The background half of a writer: a queue of pending events and the thread that drains it.

The caller's thread only appends a small tuple to a deque, or a plain scalar's five
values to the scalar lane (see scalar_stream.py; both atomic under the GIL, so many
threads can log at once without a lock); the worker thread turns queued items into
serialized events, frames them and hands them to the OS in large writes. Encoders that
spend their time in numpy, zlib or PNG code release the GIL, so this work runs on a
second core while the training loop goes on. A flush is a marker in the same queue, so
it returns only after everything queued before it.

Queue items are `(wall_time, step, args, make_event, nbytes, mark)` (see drain.py).

The queue is bounded in bytes: every item counts ITEM_BYTES (an event of the scalar lane
LANE_EVENT_BYTES) plus its arrays. A caller
that finds it full waits for the worker; nothing is dropped. It is bounded in age too: a
caller that outpaces the worker waits while the oldest queued item is more than a quarter
flush interval old (see backlog.py), and the worker writes what it encoded at least every
half interval (see output.py). So SIGKILL loses about the last flush interval of scalars
(plus the time to encode one batch); array items that the worker encodes more slowly than
callers queue them (histograms, images) can add what the queue holds, within its bounds.

An event that fails to encode is dropped alone (a batch is then encoded one by one),
counted in `stats().events_dropped` and recorded as an error naming its op and tag;
events whose write fails are counted in `stats().events_lost` (see outcomes.py).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import numpy as np

from summarylib.format import records
from summarylib.writer.backlog import Backlog
from summarylib.writer.drain import FLUSH, Drain
from summarylib.writer.outcomes import WriterError, WriterStats, dropped, error_text
from summarylib.writer.output import Output
from summarylib.writer.run_files import RunFile
from summarylib.writer.scalar_stream import FIELDS, LANE_EVENT_BYTES, ScalarStream

__all__ = ["Engine", "WriterError", "WriterStats"]

log = logging.getLogger("summarylib")


# Pending events that make the worker write without waiting for its timer.
DEFAULT_MAX_QUEUE = 1000
# How often the worker writes when few events come: a running TensorBoard sees data
# about this long after it was logged.
DEFAULT_FLUSH_MILLIS = 2000
# Memory the queue may hold before callers wait for the worker.
DEFAULT_MAX_QUEUE_BYTES = 64 << 20
# What one queued item costs beyond its arrays, at most: the tuples, two floats, the step
# and the lane mark (see scalar_stream.LANE_EVENT_BYTES for an event of the scalar lane),
# measured in tests/test_engine_queue.py.
ITEM_BYTES = 288
# Array bytes pending that wake the worker at once: encoding images, audio and histograms
# (numpy and zlib, which release the GIL) then overlaps the caller's loop on a second core.
_WAKE_ARRAY_BYTES = 1 << 20
# How long close() waits for a worker that makes no progress.
DEFAULT_CLOSE_TIMEOUT = 30.0


class Engine(Drain):
    """Owns the event file, the queue and the worker thread of one logdir's writers."""

    def __init__(
        self,
        name: str,
        event_file: RunFile,
        max_queue: int = DEFAULT_MAX_QUEUE,
        flush_millis: int = DEFAULT_FLUSH_MILLIS,
        max_queue_bytes: int = DEFAULT_MAX_QUEUE_BYTES,
    ) -> None:
        self.name = name
        self.file = event_file
        self.queue: deque = deque()
        self.max_queue = max_queue
        self.max_queue_bytes = max_queue_bytes
        # Queue length at which a submit wakes the worker or may have reached the bound.
        self._check_at = max(1, min(max_queue, max_queue_bytes // ITEM_BYTES))
        self.lane = ScalarStream()
        # What the fast callers extend (see scalar_stream), and its length at which they
        # call scalars_full(): 0 while arrays are queued (each call then checks the byte
        # bound, as submit does) or a write failure waits to be logged.
        self.scalars = self.lane.events
        self._lane_cap = FIELDS * max(1, max_queue_bytes // LANE_EVENT_BYTES)
        self.scalar_limit = min(self._check_at * FIELDS, self._lane_cap)
        self._flush_secs = flush_millis / 1000.0
        self._framer = records.Framer()
        self._backlog = Backlog(self._flush_secs)  # how far behind the caller the worker is
        self.progressed_at = time.monotonic()  # when the worker last encoded an event (see Output)
        self._slow_calls = 0  # submits that took the slow path
        self._wake = threading.Event()
        self.room_made = threading.Event()  # set when the worker frees queue room
        self._array_bytes_lock = threading.Lock()
        self._array_bytes = 0  # bytes of the arrays that queued items hold
        self._stopping = False
        self.closed = False
        self._dequeued = 0
        self._written = 0
        self._lost = 0  # writing them failed
        self._dropped = 0  # they failed to encode
        self._high_water = 0
        self._errors = 0
        self._last_error: BaseException | None = None
        self._unraised_error: BaseException | None = None
        self.warn_pending = False
        self._side_files: list[Any] = []
        self._thread = threading.Thread(target=self._run, name=f"summarylib-writer[{name}]", daemon=True)
        self._thread.start()

    # Caller's side -------------------------------------------------------------------

    def submit(
        self, make_event: Callable[..., bytes], args: tuple, wall_time: float, step: int, nbytes: int = 0
    ) -> None:
        """Queue one event, `make_event(wall_time, step, *args)`; waits only while the
        queue is at its bound."""
        self.queue.append((wall_time, step, args, make_event, nbytes, self.lane.mark()))
        if nbytes:
            with self._array_bytes_lock:
                self._array_bytes += nbytes
                self.scalar_limit = 0
        if self.pending() >= self._check_at or self._array_bytes:
            self._on_full_queue()
        if self.warn_pending:
            self._warn_once()

    def scalars_full(self) -> None:
        """What a caller that extended `scalars` to `scalar_limit` calls: wake the worker,
        wait while the queue is full, log a write failure once."""
        self._on_full_queue(sampled=False)
        if self.warn_pending:
            self._warn_once()
        with self._array_bytes_lock:  # the next check a chunk later, while the worker catches up
            self._set_scalar_limit(len(self.scalars))

    def pending(self) -> int:
        """Events queued now, in the queue and the scalar lane."""
        return len(self.queue) + len(self.scalars) // FIELDS

    def pending_bytes(self) -> int:
        """Memory the queue holds now, as the bound counts it."""
        return len(self.queue) * ITEM_BYTES + len(self.lane) * LANE_EVENT_BYTES + self._array_bytes

    def arrays_encoded(self, nbytes: int) -> None:
        """Count `nbytes` of queued arrays as encoded (the worker's side of submit)."""
        with self._array_bytes_lock:
            self._array_bytes -= nbytes
            self._set_scalar_limit()
        self.room_made.set()

    def _set_scalar_limit(self, queued: int = 0) -> None:
        """`scalar_limit` for the engine's state now, `queued` values in the lane at a
        caller's check: the next check comes `_check_at` events later, before the lane
        alone could pass the byte bound. Called holding _array_bytes_lock."""
        if self._array_bytes or self.warn_pending:
            self.scalar_limit = 0
        else:
            self.scalar_limit = min(queued + self._check_at * FIELDS, self._lane_cap)

    def _on_full_queue(self, sampled: bool = True) -> None:
        """Wake the worker when there is work enough, and wait while the queue is full;
        `sampled`: check the queue's age only every 64th call (a call per queued item)."""
        pending = self.pending_bytes()
        if pending > self._high_water:
            self._high_water = pending
        if (
            self.pending() >= self.max_queue or self._array_bytes >= _WAKE_ARRAY_BYTES
        ) and not self._wake.is_set():
            self._wake.set()
        while self.pending_bytes() > self.max_queue_bytes and self._thread.is_alive():
            self.room_made.clear()
            self._wake.set()
            self.room_made.wait(0.05)
        self._slow_calls += 1
        if self._array_bytes or not sampled or not self._slow_calls & 63:  # a scalar's: sampled
            self._wait_while_behind()

    def _wait_while_behind(self) -> None:
        """Wait while the queue's oldest item is too old (see backlog.py), unless the
        worker has encoded nothing for a flush interval (a stuck disk, a huge item: the
        byte bound holds then)."""
        backlog = self._backlog
        backlog.mark(self._dequeued + self.pending())
        while (
            backlog.too_old(self._dequeued)
            and time.monotonic() - self.progressed_at < self._flush_secs
            and self._thread.is_alive()
        ):
            self.room_made.clear()
            self._wake.set()
            self.room_made.wait(0.005)  # a short poll: the worker signals writes, not progress

    def _warn_once(self) -> None:
        with self._array_bytes_lock:
            self.warn_pending = False
            self._set_scalar_limit()
        error = self._last_error  # set with warn_pending, by the failure to warn about
        log.warning(
            "summarylib writer %s: writing events failed: %s. Logging goes on; "
            "flush() and close() will raise this error; stats() counts the failures.",
            self.name,
            error_text(error) if error is not None else "an error",
        )

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
