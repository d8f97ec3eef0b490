"""Event files of many runs written by one writer's background thread, with a bounded
number of open descriptors.

torch's `add_scalars(main_tag, {name: value})` puts each series in a run of its own
(`log_dir/main_tag_name`), so TensorBoard draws them on one chart. torch opens a whole
FileWriter, with its own thread and queue, per series; here every series is an event
file of a `SeriesFiles` pool, written on the thread of the writer the events were
queued on. Files idle the longest give up their descriptors first and are reopened
for appending when their run logs again, so thousands of series do not exhaust the
process's file descriptors.

Like the run's own file, a series file that was deleted (its directory removed, the whole
logdir removed) is re-created with its directory at its next write, and reported: the
next `flush()` or `idle()` raises FileNotFoundError naming the lost files, which the writer
records as a background error.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from summarylib.format import records
from summarylib.writer.event_file import EventFile
from summarylib.writer.run_files import open_lasting_file
from summarylib.writer.segments import SegmentedEventFile

# A series's file keeps every event and can be suspended while idle (see run_files).
SeriesFile = EventFile | SegmentedEventFile

DEFAULT_MAX_OPEN = 32


class SeriesFiles:
    """One event file per run directory, created when the run first logs; at most
    `max_open` of them hold a descriptor at once."""

    def __init__(
        self,
        max_open: int = DEFAULT_MAX_OPEN,
        filename_suffix: str | None = None,
        storage_options: dict[str, Any] | None = None,
    ) -> None:
        if max_open < 1:
            raise ValueError(f"SeriesFiles: max_open must be at least 1, got {max_open}")
        self.max_open = max_open
        self.filename_suffix = filename_suffix
        self.storage_options = storage_options
        self._files: dict[str, SeriesFile] = {}
        self._open: OrderedDict[str, SeriesFile] = OrderedDict()  # least recently written first
        self._lock = threading.Lock()
        self._deleted: list[str] = []  # notices of re-created files, not yet reported
        self.closed = False
        _pools.add(self)

    def write(self, logdir: str, framed: bytes) -> None:
        """Append framed records to the file of run `logdir`."""
        with self._lock:
            if self.closed:
                raise RuntimeError(f"series file of {logdir}: written after close")
            event_file = self._files.get(logdir)
            if event_file is None:
                event_file = open_lasting_file(
                    logdir, self.filename_suffix, storage_options=self.storage_options
                )
                self._files[logdir] = event_file
            self._open[logdir] = event_file
            self._open.move_to_end(logdir)
            while len(self._open) > self.max_open:
                _, idle = self._open.popitem(last=False)
                idle.suspend()
            lost = event_file.reopen_if_deleted()
            if lost is not None:
                self._deleted.append(f"event file {lost} was deleted; writing to {event_file.path}")
            event_file.write(framed)

    def paths(self) -> dict[str, str]:
        """{run directory: event file path} of every run written so far."""
        with self._lock:
            return {logdir: event_file.path for logdir, event_file in self._files.items()}

    def open_count(self) -> int:
        """Descriptors held now."""
        with self._lock:
            return len(self._open)

    def flush(self) -> None:
        """Upload what the files on an object store gathered (local files have nothing
        to do); raises OSError for the first that fails, after trying them all. The
        writer the series are queued on calls this when it flushes (see Engine.attach)."""
        with self._lock:
            _each(list(self._files.values()), "flush")
            self._report()

    def idle(self) -> None:
        """Upload what is due on an object store (the writer calls this when it wakes);
        raises as flush() does."""
        with self._lock:
            _each(list(self._files.values()), "idle")
            self._report()

    def _report(self) -> None:
        """Raise FileNotFoundError naming the files deleted and re-created since the last
        report."""
        if self._deleted:
            notices, self._deleted = self._deleted, []
            raise FileNotFoundError("; ".join(notices))

    def _abandon_after_fork(self) -> None:
        """In a forked child: forget the parent's files without writing to them; the
        child's series start files of their own."""
        self._lock = threading.Lock()
        for event_file in self._files.values():
            event_file.abandon()
        self._files.clear()
        self._open.clear()

    def close(self) -> None:
        """Close every file (uploading the rest on an object store); idempotent."""
        with self._lock:
            self.closed = True
            self._open.clear()
            _each(list(self._files.values()), "close")


def _each(files: list, method: str) -> None:
    """Call `method` of every file; then raise the first OSError, if any."""
    failure = None
    for event_file in files:
        try:
            getattr(event_file, method)()
        except OSError as error:
            failure = failure or error
    if failure is not None:
        raise failure


def series_event(
    wall_time: float,
    step: int,
    series: SeriesFiles,
    logdir: str,
    make_event: Callable[..., bytes],
    args: tuple,
) -> None:
    """An event maker for a writer's queue that writes `make_event(wall_time, step,
    *args)` into run `logdir` of `series` instead of the writer's own file; returns None,
    so the writer writes nothing of its own for it. Runs on the writer's thread, in
    queue order, so a flush of the writer covers the series too."""
    series.write(logdir, records.frame(make_event(wall_time, step, *args)))


_pools: weakref.WeakSet = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for pool in list(_pools):
        pool._abandon_after_fork()


os.register_at_fork(after_in_child=_after_fork_in_child)
