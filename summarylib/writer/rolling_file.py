"""A run's events in a sequence of event files that keeps only the last N seconds on disk,
for live views that write large images every step for days.

Events go to the newest file; every `roll_seconds` it is closed and a new one begins
(between two writes, so a file always ends on a record boundary), and files whose last
event is older than `retain_seconds` are deleted. TensorBoard reads a run's files in
name order and follows the newest, so it keeps showing the newest data while old files
go; what it already loaded stays in its memory until it restarts.

A roll that cannot create its new file (no free inode, a logdir that is not a directory
for a while) keeps writing to the current file and tries again at the next write; the
failure is reported (raised by the next `idle()` or `flush()`, which the writer's engine
records as a background error) without costing an event.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections import deque
from collections.abc import Callable

from summarylib.writer.event_file import EventFile, FileNames

# How often a new file begins, as a fraction of the retained time: disk use stays under
# about (1 + 1 / ROLLS_PER_RETENTION) times the retained data.
ROLLS_PER_RETENTION = 4
MIN_ROLL_SECONDS = 1.0


class RollingEventFile:
    """The EventFile interface the writer engine uses, over rolling files of one run."""

    def __init__(
        self,
        logdir: str,
        suffix: str | None,
        file_names: FileNames,
        retain_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.logdir = logdir
        self._suffix = suffix
        self._file_names = file_names
        self.retain_seconds = retain_seconds
        self.roll_seconds = max(MIN_ROLL_SECONDS, retain_seconds / ROLLS_PER_RETENTION)
        self._clock = clock
        self._finished: deque[tuple[float, str]] = deque()  # (last write time, path), oldest first
        self._current = EventFile(logdir, suffix, file_names)
        self._started = clock()
        self._roll_failure: OSError | None = None  # not yet reported

    @property
    def path(self) -> str:
        """The file being written now."""
        return self._current.path

    @property
    def bytes_written(self) -> int:
        """Bytes written over all the run's files, deleted ones included."""
        return self._current.bytes_written

    def write(self, data: bytes) -> None:
        """Write whole records to the newest file, after rolling and pruning if due."""
        now = self._clock()
        if now - self._started >= self.roll_seconds:
            self._roll(now)
        self._prune(now)
        self._current.write(data)

    def _roll(self, now: float) -> None:
        """Continue in a new file; if it cannot be created, in the current one (and try
        again at the next write)."""
        try:
            old = self._current.start_new_file()
        except OSError as error:
            self._roll_failure = error
            return
        self._finished.append((now, old))
        self._started = now

    def _report(self) -> None:
        """Raise a roll failure not yet reported."""
        error, self._roll_failure = self._roll_failure, None
        if error is not None:
            raise OSError(error.errno, f"could not begin a new event file in {self.logdir}: {error.strerror}")

    def _prune(self, now: float) -> None:
        while self._finished and now - self._finished[0][0] > self.retain_seconds:
            _, path = self._finished.popleft()
            with contextlib.suppress(FileNotFoundError):
                os.remove(path)

    def files(self) -> list[str]:
        """The run's files still on disk, oldest first."""
        return [path for _, path in self._finished] + [self._current.path]

    def reopen_if_deleted(self) -> str | None:
        """As EventFile.reopen_if_deleted, for the newest file."""
        return self._current.reopen_if_deleted()

    def abandon(self) -> None:
        """In a forked child: let go of the inherited descriptor, writing nothing."""
        self._current.close()

    def flush(self) -> None:
        """Nothing gathered (every write went to the OS); raises a roll failure not yet
        reported."""
        self._report()

    def idle(self) -> None:
        """Raise a roll failure not yet reported (the writer calls this when it wakes)."""
        self._report()

    def sync(self) -> None:
        """Make what was written to the newest file durable (older ones were closed)."""
        self._current.sync()

    def close(self) -> None:
        """Close the newest file; idempotent. The retained files stay on disk."""
        self._current.close()
