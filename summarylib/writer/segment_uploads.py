"""The uploads of one segmented event file: sealed segments, uploaded oldest first by a
thread of their own, held in memory up to a bound and spilled to local disk beyond it.

One thread uploads one segment at a time, in the order they were sealed: an object is
created only once every older one of its run exists, so TensorBoard, which reads a run's
files in name order and never returns to an earlier one, misses none. The writer's thread
never waits for the store, except in `wait_uploaded` (a flush or close, which promise
uploaded data): a store that is down or slow never stops the training loop.

Memory: queued segments are held in memory up to `limit` bytes. A segment sealed when that
would be exceeded goes to the spill (segment_spill), and so does every later one until no
spilled segment is queued, so the queue is held segments first, then spilled ones, and a
spilled segment is read back (held while it uploads) only when it is the next to upload.
A failed flush moves the held segments to the spill too (`_spill_held`), so a process
that ends before the store is back leaves them on local disk. When the spill
cannot be written either (disk full), the segment is lost: its events, bytes, steps and
object name are added to `lost` and reported as an error.

A failed upload is retried after a backoff, FIRST_BACKOFF seconds doubling to MAX_BACKOFF,
or at once when a flush asks; the failure is reported once (`take_report`) until an upload
succeeds again.
"""

from __future__ import annotations

import posixpath
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from summarylib.writer.segment_contents import Contents
from summarylib.writer.segment_spill import Spill

FIRST_BACKOFF = 1.0
MAX_BACKOFF = 60.0
# How long the upload thread waits for a segment before it ends (a new one starts with the
# next segment): a writer of many runs (add_scalars series) keeps threads only for the
# runs that are uploading.
IDLE_SECONDS = 5.0
# How long a flush or close waits for the uploads (a hung store, a long backlog).
STALL_TIMEOUT = 30.0


@dataclass
class Segment:
    """A sealed segment: its object's path in the store, its size, and its bytes while
    held in memory (None once spilled, under the object's name)."""

    path: str
    size: int
    data: bytearray | None

    @property
    def name(self) -> str:
        return posixpath.basename(self.path)


class Uploads:
    """The queue of sealed segments of one run and the thread that uploads them to `fs`."""

    def __init__(
        self, fs: Any, directory: str, limit: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.fs = fs
        self.directory = directory
        self.limit = limit
        self._clock = clock
        self.bytes_uploaded = 0  # bytes of all objects uploaded, headers included
        self.last_uploaded: str | None = None
        self._reset()

    def _reset(self) -> None:
        self._cond = threading.Condition()
        self._queue: deque[Segment] = deque()
        self._held = 0  # bytes of queued segments in memory, and of one read back to upload
        self._spilled = 0  # queued segments in the spill
        self._thread: threading.Thread | None = None
        self._now = False  # a flush asked for an attempt now
        self._retry_at = 0.0
        self._backoff = FIRST_BACKOFF
        self._attempts = 0
        self._failure: OSError | None = None  # of the last attempt; None after a success
        self._reports: list[OSError] = []  # failures and losses not reported yet
        self._closing = False
        self.spill = Spill()
        self.lost = Contents()

    @property
    def held_bytes(self) -> int:
        """Memory the queued segments hold now."""
        return self._held

    def add(self, path: str, data: bytearray) -> None:
        """Queue a sealed segment, to become object `path`: held in memory if it fits,
        else spilled (or lost, and reported, if the spill fails)."""
        with self._cond:
            spill = self._spilled > 0 or self._held + len(data) > self.limit
            if not spill:
                self._append(Segment(path, len(data), data))
                self._held += len(data)
                return
            self._spilled += 1  # reserved: later segments spill too, behind this one
        segment = Segment(path, len(data), None)
        try:
            self.spill.put(segment.name, data)
        except OSError as error:
            with self._cond:
                self._spilled -= 1
                behind = self._failure or "uploads slower than the run logs"
                self._lose(
                    segment.name, data, f"no room to hold it ({behind}) and keeping it failed: {error!r}"
                )
            return
        with self._cond:
            self._append(segment)

    def _append(self, segment: Segment) -> None:
        self._queue.append(segment)
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name=f"summarylib-upload[{self.directory}]", daemon=True
            )
            self._thread.start()
        self._cond.notify_all()

    def _lose(self, name: str, data: bytes | bytearray, why: str) -> None:
        lost = Contents()
        lost.add(name, data)
        self.lost.merge(lost)
        self._reports.append(OSError(f"lost {lost} for {self.directory}: {why}"))

    def _lose_unread(self, segment: Segment, error: OSError) -> None:
        """Count a spilled segment whose file cannot be read back (its events unknown)."""
        self.lost.objects.append(segment.name)
        self.lost.bytes += segment.size
        self._reports.append(OSError(f"lost segment {segment.name}: its kept copy cannot be read: {error!r}"))

    def take_report(self) -> OSError | None:
        """A failure or loss not reported yet, once (the writer's thread reports it)."""
        with self._cond:
            return self._reports.pop(0) if self._reports else None

    def wait_uploaded(self, timeout: float | None = None) -> None:
        """Upload everything queued now; OSError when an attempt fails or the queue is not
        empty after `timeout` seconds (a hung store, or a backlog of spilled segments the
        store is still taking: the writer's thread goes on and uploading goes on). What
        is not uploaded stays queued, in the spill, and is retried. `timeout`: STALL_TIMEOUT
        when None."""
        timeout = STALL_TIMEOUT if timeout is None else timeout
        with self._cond:
            if not self._queue:
                return
            self._now = True
            self._cond.notify_all()
            attempts, deadline = self._attempts, self._clock() + timeout
            while self._queue:
                if self._attempts != attempts and self._failure is not None:
                    self._reports = [report for report in self._reports if report is not self._failure]
                    self._spill_held()  # on disk, should the process end before the store is back
                    raise OSError(f"{self._failure}; {self._waiting()}")
                attempts = self._attempts
                if self._clock() > deadline:
                    self._spill_held()
                    raise OSError(
                        f"uploads to {self.directory} did not finish in {timeout:g} s; {self._waiting()}"
                    )
                self._cond.wait(0.05)

    def _spill_held(self) -> None:
        """Move the queued segments held in memory to the spill (those it cannot take
        stay held)."""
        for segment in self._queue:
            if segment.data is not None:
                try:
                    self.spill.put(segment.name, segment.data)
                except OSError:
                    return
                self._held -= segment.size
                self._spilled += 1
                segment.data = None

    def _waiting(self) -> str:
        """What waits for the store, in a few words."""
        waiting = sum(segment.size for segment in self._queue)
        where = f", {self._spilled} of them kept in {self.spill.path}" if self._spilled else ""
        return f"{len(self._queue)} segment objects ({waiting} bytes) wait for the store{where}; retrying"

    def close(self, timeout: float | None = None) -> None:
        """Upload what is queued and stop. If the store is still failing, stop anyway and
        keep everything not uploaded in the spill: OSError saying what (events, bytes,
        steps, objects) and where; and what was lost."""
        try:
            self.wait_uploaded(timeout)
            failure = None
        except OSError as error:
            failure = error
        with self._cond:
            self._closing = True
            self._cond.notify_all()
            left, self._queue = list(self._queue), deque()
            self._held = self._spilled = 0
        kept = Contents()
        for segment in left:
            data: bytes | bytearray
            try:
                if segment.data is None:
                    data = self.spill.get(segment.name)
                else:
                    data = segment.data
                    self.spill.put(segment.name, data)
            except OSError as error:
                if segment.data is None:
                    self._lose_unread(segment, error)
                else:
                    self._lose(
                        segment.name, segment.data, f"the store failed and keeping it failed: {error!r}"
                    )
                continue
            kept.add(segment.name, data)
        self.spill.remove_if_empty()
        problems = []
        if failure is not None:
            problems.append(
                f"{kept} were not uploaded to {self.directory} ({failure}); they are kept in "
                f"{self.spill.path}, each file named as its object: copy them into {self.directory} "
                "to complete the run"
            )
        if self.lost.events or self.lost.bytes:
            problems.append(f"lost in all: {self.lost}")
        self._reports.clear()
        if problems:
            raise OSError("; ".join(problems))

    def abandon(self) -> None:
        """In a forked child: forget the parent's queue and spill (the parent uploads them)."""
        self._reset()

    # The upload thread ----------------------------------------------------------------

    def _next(self) -> Segment | None:
        """The oldest queued segment once it is due; None when closing, or when none came
        for IDLE_SECONDS (the thread ends; the next segment starts another)."""
        with self._cond:
            while not self._closing:
                if self._queue:
                    wait = 0.0 if self._now else self._retry_at - self._clock()
                    if wait <= 0:
                        self._now = False
                        return self._queue[0]
                    self._cond.wait(wait)
                elif not self._cond.wait(IDLE_SECONDS) and not self._queue:
                    break
            self._thread = None
            return None

    def _run(self) -> None:
        while (segment := self._next()) is not None:
            # A failed flush may spill the segment meanwhile: these bytes stay valid.
            data: bytes | bytearray | None = segment.data
            loaded = data is None
            if data is None:
                data = self._read_back(segment)
                if data is None:
                    continue
            try:
                self.fs.pipe_file(segment.path, data)
            except Exception as error:
                self._failed(OSError(f"uploading {segment.path} failed: {error!r}"))
                continue
            finally:
                if loaded:
                    with self._cond:
                        self._held -= len(data)
                del data
            self._uploaded(segment)

    def _read_back(self, segment: Segment) -> bytes | None:
        """The bytes of a spilled segment, counted as held while it is uploaded; None
        (and the segment lost) when its file cannot be read."""
        try:
            data = self.spill.get(segment.name)
        except OSError as error:
            with self._cond:
                if self._closing:  # close took the queue over
                    return None
                self._queue.popleft()
                self._spilled -= 1
                self._lose_unread(segment, error)
            return None
        with self._cond:
            self._held += len(data)
        return data

    def _failed(self, failure: OSError) -> None:
        with self._cond:
            if self._failure is None:  # one report per outage
                self._reports.append(failure)
            self._failure = failure
            self._retry_at = self._clock() + self._backoff
            self._backoff = min(MAX_BACKOFF, self._backoff * 2)
            self._attempts += 1
            self._cond.notify_all()

    def _uploaded(self, segment: Segment) -> None:
        with self._cond:
            if self._closing:  # close took the queue over (and kept this one too)
                return
            self._queue.popleft()
            if segment.data is None:
                self._spilled -= 1
                self.spill.remove(segment.name)
            else:
                self._held -= segment.size
            self.bytes_uploaded += segment.size
            self.last_uploaded = segment.path
            self._failure = None
            self._backoff, self._retry_at = FIRST_BACKOFF, 0.0
            self._attempts += 1
            self._cond.notify_all()
