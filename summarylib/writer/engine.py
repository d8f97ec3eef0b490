"""The background half of a writer: a queue of pending events and the thread that drains it.

The caller's thread only appends a small tuple to a deque (atomic under the GIL, so many
threads can log at once without a lock); the worker thread turns queued items into
serialized events, frames them and hands them to the OS in large writes. A flush is a
marker in the same queue, so it returns only after everything queued before it.

Queue items are `(make_summary, args, wall_time, step)`: the worker calls
`make_summary(*args)` for the serialized Summary. Two markers reuse the shape:
`(RAW_EVENT, event_bytes, 0, 0)` writes an already serialized Event, and
`(FLUSH, (fsync, done_event), 0, 0)` completes a flush.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from summarylib.writer import records
from summarylib.writer.event_codec import summary_event
from summarylib.writer.event_file import EventFile

log = logging.getLogger("summarylib")

RAW_EVENT = object()
FLUSH = object()

# Pending events that make the worker write without waiting for its timer.
DEFAULT_MAX_QUEUE = 1000
# How often the worker writes when few events come: a running TensorBoard sees data
# about this long after it was logged.
DEFAULT_FLUSH_MILLIS = 2000
# Pending events at which a caller waits for the worker instead of growing the queue.
DEFAULT_MAX_PENDING = 100_000
# Bytes gathered before one write to the OS.
_WRITE_CHUNK = 1 << 20
# How long close() waits for a worker that makes no progress.
DEFAULT_CLOSE_TIMEOUT = 30.0


class WriterError(RuntimeError):
    """Writing events failed in the background; raised by flush() and close()."""


@dataclass
class WriterStats:
    """Counters of one writer, for monitoring a long run."""

    events_queued: int
    events_written: int
    bytes_written: int
    queue_high_water: int
    errors: int
    last_error: str | None


class Engine:
    """Owns the event file, the queue and the worker thread of one writer."""

    def __init__(
        self,
        name: str,
        event_file: EventFile,
        max_queue: int = DEFAULT_MAX_QUEUE,
        flush_millis: int = DEFAULT_FLUSH_MILLIS,
        max_pending: int = DEFAULT_MAX_PENDING,
    ) -> None:
        self.name = name
        self.file = event_file
        self.queue: deque = deque()
        self.max_queue = max_queue
        self._flush_secs = flush_millis / 1000.0
        self._max_pending = max(max_pending, max_queue)
        self._wake = threading.Event()
        self._drained = threading.Event()
        self._framer = records.Framer()
        self._stopping = False
        self._closed = False
        self._dequeued = 0
        self._written = 0
        self._high_water = 0
        self._errors = 0
        self._last_error: BaseException | None = None
        self._unraised_error: BaseException | None = None
        self.warn_pending = False
        self._thread = threading.Thread(target=self._run, name=f"summarylib-writer[{name}]", daemon=True)
        self._thread.start()

    # Caller's side -------------------------------------------------------------------

    def submit(self, make_summary: Callable[..., bytes], args: Any, wall_time: float, step: int) -> None:
        """Queue one summary event; blocks only while the queue is at its bound."""
        queue = self.queue
        queue.append((make_summary, args, wall_time, step))
        pending = len(queue)
        if pending >= self.max_queue:
            self._on_long_queue(pending)
        if self.warn_pending:
            self._warn_once()

    def submit_event(self, event: bytes) -> None:
        """Queue an already serialized Event."""
        self.submit(RAW_EVENT, event, 0, 0)

    def _on_long_queue(self, pending: int) -> None:
        if pending > self._high_water:
            self._high_water = pending
        if not self._wake.is_set():
            self._wake.set()
        while len(self.queue) > self._max_pending and self._thread.is_alive():
            self._drained.clear()
            self._wake.set()
            self._drained.wait(0.05)

    def _warn_once(self) -> None:
        self.warn_pending = False
        log.warning(
            "summarylib writer %s: writing events failed: %s. Logging goes on; "
            "flush() and close() will raise this error; stats() counts the failures.",
            self.name,
            self._last_error,
        )

    def flush(self, fsync: bool = False, timeout: float | None = None) -> None:
        """Return once everything queued so far is with the OS (and on disk with fsync)."""
        if self._closed:
            return
        done = threading.Event()
        self.queue.append((FLUSH, (fsync, done), 0, 0))
        self._wake.set()
        self._wait_for(done, "flush", timeout)
        self._raise_unraised()

    def close(self, timeout: float = DEFAULT_CLOSE_TIMEOUT) -> None:
        """Drain the queue, stop the worker and close the file; idempotent."""
        if self._closed:
            return
        self._stopping = True
        self._wake.set()
        try:
            self._thread.join(timeout)
            if self._thread.is_alive():
                raise WriterError(
                    f"summarylib writer {self.name}: the background writer made no progress "
                    f"for {timeout:.0f} s; {len(self.queue)} events were not written"
                )
        finally:
            self._closed = True
            self.file.close()
        self._raise_unraised()

    def stats(self) -> WriterStats:
        """A snapshot of the counters."""
        return WriterStats(
            events_queued=self._dequeued + len(self.queue),
            events_written=self._written,
            bytes_written=self.file.bytes_written,
            queue_high_water=max(self._high_water, len(self.queue)),
            errors=self._errors,
            last_error=None if self._last_error is None else repr(self._last_error),
        )

    def _wait_for(self, done: threading.Event, what: str, timeout: float | None) -> None:
        deadline = None if timeout is None else time.monotonic() + timeout
        while not done.wait(0.1):
            if not self._thread.is_alive():
                raise WriterError(
                    f"summarylib writer {self.name}: the background writer stopped; {what} cannot complete"
                )
            if deadline is not None and time.monotonic() > deadline:
                raise WriterError(f"summarylib writer {self.name}: {what} did not complete in {timeout} s")

    def _raise_unraised(self) -> None:
        error, self._unraised_error = self._unraised_error, None
        if error is not None:
            raise WriterError(f"summarylib writer {self.name}: writing events failed: {error!r}") from error

    # Worker's side -------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            self._wake.wait(self._flush_secs)
            self._wake.clear()
            self._drain()
            self._drained.set()
            if self._stopping and not self.queue:
                return

    def _drain(self) -> None:
        queue = self.queue
        append_record = self._framer.append
        parts: list[bytes] = []
        size = 0
        count = 0
        while queue:
            make_summary, args, wall_time, step = queue.popleft()
            if make_summary is FLUSH:
                self._write(parts, count)
                parts, size, count = [], 0, 0
                self._complete_flush(*args)
                continue
            self._dequeued += 1
            try:
                if make_summary is RAW_EVENT:
                    event = args
                else:
                    event = summary_event(wall_time, step, make_summary(*args))
            except Exception as error:  # an encoder bug must not kill the worker
                self._record_error(error)
                continue
            size += append_record(parts, event)
            count += 1
            if size >= _WRITE_CHUNK:
                self._write(parts, count)
                parts, size, count = [], 0, 0
        self._write(parts, count)

    def _write(self, chunks: list[bytes], count: int) -> None:
        if not chunks:
            return
        try:
            self.file.write(b"".join(chunks))
        except OSError as error:
            self._record_error(error)
            return
        self._written += count

    def _complete_flush(self, fsync: bool, done: threading.Event) -> None:
        try:
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
            self.warn_pending = True
