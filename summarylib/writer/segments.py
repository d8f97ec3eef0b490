"""A run's events on an object store (S3, GCS, Azure Blob, any fsspec filesystem), as a
sequence of complete, immutable event-file objects.

Object stores cannot append: TensorFlow's writer re-uploads the whole growing file at
each flush, so a long run uploads quadratically many bytes. Here framed records gather
in memory and are uploaded as a new object, a *segment*, once per upload interval (and
at once on `flush()`/`close()`): each byte is uploaded once, plus one small header
record per segment. Segment names share the writer's prefix and end in a zero-padded
counter, so they sort in creation order: TensorBoard reads a run's files in name order
and never returns to an earlier one, so it reads every segment exactly once, and since
a segment is complete before anyone can see it, a reader never sees a partial record.
After SIGKILL every uploaded segment is whole; what was not yet uploaded (at most one
interval) is lost.

A failed upload keeps its data, is reported through the writer's error path, and is
retried with backoff (1 s doubling to a minute) at the next write, flush or timer tick,
so the writer catches up when the store comes back. The file interface is the one the
writer engine uses for local files (`write`, `flush`, `idle`, `sync`, `close`, ...).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from summarylib.writer import records
from summarylib.writer.event_file import DEFAULT_SUFFIX, first_event

_MAX_BACKOFF = 60.0
# How long a flush waits for an upload in progress on another thread.
_LOCK_TIMEOUT = 30.0
_segment_writers = itertools.count()


class SegmentedEventFile:
    """Event files of one writer in `directory` of `fs`, one object per upload."""

    def __init__(
        self,
        fs: Any,
        directory: str,
        suffix: str | None,
        upload_interval: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.fs = fs
        self.directory = directory.rstrip("/")
        self.logdir = directory
        self.upload_interval = upload_interval
        self._clock = clock
        suffix = DEFAULT_SUFFIX if suffix is None else suffix
        now = time.time()
        # Filled in at each upload: the process (a forked child's differs) and the number.
        self._name = (
            f"events.out.tfevents.{int(now):010d}.{socket.gethostname()}.{{pid}}."
            f"{next(_segment_writers)}.{{number:08d}}{suffix}"
        )
        self._segments = itertools.count()
        self._pending = bytearray()
        self._last_upload = clock()
        self._retry_at = 0.0
        self._backoff = 1.0
        self.bytes_written = 0  # event bytes handed to this file
        self.bytes_uploaded = 0  # bytes of all objects uploaded, headers included
        self.uploads: list[str] = []
        self.path = self._object_path(0)
        # The writer's thread writes and uploads; a close that gave up waiting for it
        # uploads from the caller's thread: one at a time, never the same bytes twice.
        self._lock = threading.Lock()

    def _object_path(self, number: int) -> str:
        return f"{self.directory}/{self._name.format(pid=os.getpid(), number=number)}"

    def write(self, data: bytes) -> None:
        """Gather framed records; upload them if the interval has passed."""
        with self._locked():
            self._pending += data
            self.bytes_written += len(data)
        self.idle()

    def idle(self) -> None:
        """Upload what is gathered if the upload interval has passed (the writer calls
        this whenever its thread wakes)."""
        now = self._clock()
        if self._pending and now - self._last_upload >= self.upload_interval and now >= self._retry_at:
            self.flush()

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        if not self._lock.acquire(timeout=_LOCK_TIMEOUT):
            raise OSError(f"an upload to {self.directory} has not returned for {_LOCK_TIMEOUT:g} s")
        try:
            yield
        finally:
            self._lock.release()

    def flush(self) -> None:
        """Upload what is gathered now, as one new object; OSError if the store fails
        (the data stays gathered for the next try)."""
        with self._locked():
            self._upload()

    def _upload(self) -> None:
        if not self._pending:
            return
        number = next(self._segments)
        path = self._object_path(number)
        body = records.frame(first_event(time.time())) + bytes(self._pending)
        try:
            self.fs.pipe_file(path, body)
        except Exception as error:
            self._retry_at = self._clock() + self._backoff
            self._backoff = min(_MAX_BACKOFF, self._backoff * 2)
            self._segments = itertools.chain([number], self._segments)  # reuse the number
            raise OSError(f"uploading {path} failed: {error!r}") from error
        self._pending.clear()
        self._last_upload = self._clock()
        self._backoff, self._retry_at = 1.0, 0.0
        self.bytes_uploaded += len(body)
        self.uploads.append(path)
        self.path = path

    def sync(self) -> None:
        """Durable means uploaded."""
        self.flush()

    def reopen_if_deleted(self) -> None:
        """Objects are immutable once uploaded: nothing to reopen."""
        return None

    def suspend(self) -> None:
        """No descriptor is held between uploads."""

    def abandon(self) -> None:
        """In a forked child: drop the parent's gathered bytes (the parent uploads them)."""
        self._lock = threading.Lock()
        self._pending.clear()

    def close(self) -> None:
        """Upload what is left; OSError if that fails (the writer reports it)."""
        self.flush()
