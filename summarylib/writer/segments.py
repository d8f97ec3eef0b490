"""A run's events on an object store (S3, GCS, Azure Blob, any fsspec filesystem), as a
sequence of complete, immutable event-file objects.

Object stores cannot append: TensorFlow's writer re-uploads the whole growing file at
each flush, so a long run uploads quadratically many bytes. Here framed records gather
in memory and are uploaded as a new object, a *segment*, once per upload interval (and
at once on `flush()`/`close()`): each byte is uploaded once, plus one small header
record per segment; a segment is also sealed early once it gathers a quarter of the
file's memory bound (below). Segment names share the writer's prefix and end in a zero-padded
counter, so they sort in creation order: TensorBoard reads a run's files in name order
and never returns to an earlier one, so it reads every segment exactly once, and since
a segment is complete before anyone can see it, a reader never sees a partial record.
After SIGKILL every uploaded segment is whole and spilled ones (below) stay on local
disk; what was only in memory (at most one interval, within the bound) is lost.

Uploads run on a thread of their own (segment_uploads), oldest segment first, so a store
that is down or slow never stops the writer's thread or the training loop. Memory is
bounded: a segment is sealed once it gathers a quarter of `max_held_bytes` (default
DEFAULT_MAX_HELD_BYTES, 64 MiB) even before its interval, and sealed segments waiting for
the store are held in memory only up to the rest of that bound; beyond it they wait in a
local spill directory (segment_spill, under TMPDIR), each as the complete event file its
object will be, and are uploaded from there when the store comes back. So the file holds
at most `max_held_bytes` plus one write of the engine, whatever the store does, and local
disk takes what the store cannot take yet. A failed upload is reported through the
writer's error path once per outage and retried with backoff (1 s doubling to a minute),
or at once at a flush. A flush waits for the uploads at most STALL_TIMEOUT (30 s): past
that, or when an upload fails, it raises OSError saying what waits and where, and moves
every held segment to the spill, so a process that ends before the store is back leaves
its events on local disk. `close()` while the store is still down (or still taking a
backlog after 30 s) raises OSError naming the events, steps, bytes and objects not
uploaded and the directory that keeps them, each file named as its object (copy them
into the run's prefix to complete the run; a copy of an object that did arrive after all
is the same bytes under the same name). Only when the spill cannot be written either
(local disk full) are events lost: `events_lost` and the error say how many, which steps
and which objects.

The file interface is the one the writer engine uses for local files (`write`, `flush`,
`idle`, `sync`, `close`, ...). A writer's segments are named after the run's newest
object, also when the clock stepped back (`event_file.name_seconds`).
"""

from __future__ import annotations

import itertools
import os
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from summarylib.format import records
from summarylib.writer.event_file import DEFAULT_SUFFIX, first_event, name_seconds
from summarylib.writer.segment_uploads import Uploads

# Memory one segmented file may hold in events not yet uploaded (beyond one write of the
# engine): a quarter gathering the next segment, the rest sealed segments waiting.
DEFAULT_MAX_HELD_BYTES = 64 << 20
_segment_writers = itertools.count()


def _names(fs: Any, directory: str) -> list[str]:
    """The names of the objects in `directory` (none where it cannot be listed): a new
    writer's segments are named after the run's newest (see `event_file.name_seconds`)."""
    try:
        return [os.path.basename(str(path).rstrip("/")) for path in fs.ls(directory, detail=False)]
    except (OSError, ValueError):
        return []


class SegmentedEventFile:
    """Event files of one writer in `directory` of `fs`, one object per segment."""

    def __init__(
        self,
        fs: Any,
        directory: str,
        suffix: str | None,
        upload_interval: float,
        clock: Callable[[], float] = time.monotonic,
        max_held_bytes: int | None = None,
    ) -> None:
        self.fs = fs
        self.directory = directory.rstrip("/")
        self.logdir = directory
        self.upload_interval = upload_interval
        self._clock = clock
        suffix = DEFAULT_SUFFIX if suffix is None else suffix
        # Filled in at each seal: the process (a forked child's differs) and the number.
        self._name = (
            f"events.out.tfevents.{name_seconds(time.time(), _names(fs, self.directory)):010d}."
            f"{socket.gethostname()}.{{pid}}."
            f"{next(_segment_writers)}.{{number:08d}}{suffix}"
        )
        self._segments = itertools.count()
        self.max_held_bytes = DEFAULT_MAX_HELD_BYTES if max_held_bytes is None else max_held_bytes
        self._segment_bytes = max(1, self.max_held_bytes // 4)
        self._uploads = Uploads(fs, self.directory, self.max_held_bytes - self._segment_bytes, clock)
        self._gathered = bytearray()
        self._last_seal = clock()
        self.bytes_written = 0  # event bytes handed to this file
        self.held_high_water = 0  # the most memory held in events not yet uploaded
        # The writer's thread writes and seals; a close that gave up waiting for it seals
        # from the caller's thread.
        self._lock = threading.Lock()

    @property
    def path(self) -> str:
        """The URL of the newest object uploaded (the first one's before any is): a URL, as
        the writer was given, so it can be read back as it is (`iter_events(writer.path)`)."""
        return str(self.fs.unstrip_protocol(self._uploads.last_uploaded or self._object_path(0)))

    @property
    def bytes_uploaded(self) -> int:
        """Bytes of all objects uploaded, headers included."""
        return self._uploads.bytes_uploaded

    @property
    def events_lost(self) -> int:
        """Events neither uploaded nor kept on local disk (the spill could not be written)."""
        return self._uploads.lost.events

    @property
    def spill_path(self) -> str | None:
        """The local directory keeping segments the store has not taken yet, if any."""
        return self._uploads.spill.path

    def _object_path(self, number: int) -> str:
        return f"{self.directory}/{self._name.format(pid=os.getpid(), number=number)}"

    def write(self, data: bytes) -> None:
        """Gather framed records; seal them into a segment once they fill one or the
        upload interval has passed."""
        with self._lock:
            gathered = self._gathered
            if not gathered:
                gathered += records.frame(first_event(time.time()))
            gathered += data
            self.bytes_written += len(data)
            held = len(gathered) + self._uploads.held_bytes
            if held > self.held_high_water:
                self.held_high_water = held
            if (
                len(gathered) >= self._segment_bytes
                or self._clock() - self._last_seal >= self.upload_interval
            ):
                self._seal()

    def _seal(self) -> None:
        """Hand what is gathered to the uploads as the next segment."""
        if self._gathered:
            self._uploads.add(self._object_path(next(self._segments)), self._gathered)
            self._gathered = bytearray()
        self._last_seal = self._clock()

    def idle(self) -> None:
        """Seal what is gathered if the upload interval has passed (the writer calls this
        whenever its thread wakes); raise a failure or loss of the uploads not reported
        yet, once, so the writer warns of it and counts it."""
        if self._gathered and self._clock() - self._last_seal >= self.upload_interval:
            with self._lock:
                self._seal()
        self._raise_report()

    def _raise_report(self) -> None:
        report = self._uploads.take_report()
        if report is not None:
            raise report

    def flush(self) -> None:
        """Upload everything gathered and waiting now; OSError if the store fails (what
        is not uploaded waits in the spill and is retried)."""
        with self._lock:
            self._seal()
        self._uploads.wait_uploaded()
        self._raise_report()

    def sync(self) -> None:
        """Durable means uploaded."""
        self.flush()

    def reopen_if_deleted(self) -> None:
        """Objects are immutable once uploaded: nothing to reopen."""
        return None

    def suspend(self) -> None:
        """No descriptor is held between uploads."""

    def abandon(self) -> None:
        """In a forked child: drop the parent's gathered and waiting segments (the parent
        uploads them)."""
        self._lock = threading.Lock()
        self._gathered = bytearray()
        self._uploads.abandon()

    def close(self) -> None:
        """Upload what is left and stop uploading; OSError naming what was not uploaded
        (and where it is kept) or lost (the writer reports it)."""
        with self._lock:
            self._seal()
        self._uploads.close()
