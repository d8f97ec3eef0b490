"""Event files on disk: their names, exclusive creation, and the first record.

TensorBoard finds event files by the `tfevents` in their names and orders the files of a
run by name, so the name carries the creation second first. Files are opened with
O_EXCL: a writer that would reuse a name moves on to the next counter instead of
truncating a file another writer owns.
"""

from __future__ import annotations

import itertools
import os
import socket
import time
from collections.abc import Callable, Iterator

from summarylib.proto import event_pb2
from summarylib.writer import records

FILE_VERSION = "brain.Event:2"
WRITER_NAME = "summarylib"
DEFAULT_SUFFIX = ".v2"

_file_counter = itertools.count()


def event_file_name(seconds: int, hostname: str, pid: int, counter: int, suffix: str) -> str:
    """The v2 event-file name TensorBoard and TensorFlow 2 use."""
    return f"events.out.tfevents.{seconds:010d}.{hostname}.{pid}.{counter}{suffix}"


def v2_file_names(seconds: int, hostname: str, suffix: str | None) -> Iterator[str]:
    """Candidate names of a v2 file: the per-process counter tells them apart."""
    suffix = DEFAULT_SUFFIX if suffix is None else suffix
    while True:
        yield event_file_name(seconds, hostname, os.getpid(), next(_file_counter), suffix)


def v1_file_names(seconds: int, hostname: str, suffix: str | None) -> Iterator[str]:
    """Candidate names of a TF 1.x file, `events.out.tfevents.{seconds}.{hostname}{suffix}`;
    when that is taken, `.1`, `.2`, ... after the hostname tell them apart."""
    suffix = suffix or ""
    yield f"events.out.tfevents.{seconds:010d}.{hostname}{suffix}"
    for number in itertools.count(1):
        yield f"events.out.tfevents.{seconds:010d}.{hostname}.{number}{suffix}"


FileNames = Callable[[int, str, "str | None"], Iterator[str]]


def first_event(wall_time: float) -> bytes:
    """The serialized Event every file starts with: format version and writer name."""
    event = event_pb2.Event(wall_time=float(int(wall_time)), file_version=FILE_VERSION)
    event.source_metadata.writer = WRITER_NAME
    return event.SerializeToString()


class EventFile:
    """An event file opened for appending framed records, owned by one writer."""

    def __init__(self, logdir: str, suffix: str | None = None, file_names: FileNames = v2_file_names) -> None:
        self.logdir = logdir
        self.suffix = suffix
        self._file_names = file_names
        self.bytes_written = 0
        self._fd = -1
        self._create()

    def _create(self) -> None:
        now = time.time()
        for name in self._file_names(int(now), socket.gethostname(), self.suffix):
            path = os.path.join(self.logdir, name)
            try:
                self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o666)
                break
            except FileExistsError:
                continue
        self.path = path
        self.write(records.frame(first_event(now)))

    def write(self, data: bytes) -> None:
        """Hand `data` to the OS, all of it (os.write may write less than asked)."""
        if self._fd < 0:
            self._resume()
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]
        self.bytes_written += len(data)

    def reopen_if_deleted(self) -> str | None:
        """If the file (or its directory) was deleted, continue in a new file in a
        re-created logdir, so later events are not written into a file no one can see;
        returns the lost file's path, else None."""
        if os.fstat(self._fd).st_nlink > 0:
            return None
        lost = self.path
        os.close(self._fd)
        self._fd = -1
        os.makedirs(self.logdir, exist_ok=True)
        self._create()
        return lost

    def suspend(self) -> None:
        """Let go of the descriptor while the file is idle; the next write reopens it
        for appending (a pool of many files keeps few descriptors open this way)."""
        self.close()

    def _resume(self) -> None:
        try:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
        except FileNotFoundError:  # deleted while suspended: continue in a new file
            os.makedirs(self.logdir, exist_ok=True)
            self._create()

    def abandon(self) -> None:
        """In a forked child: let go of the inherited descriptor, writing nothing."""
        self.close()

    def flush(self) -> None:
        """Nothing gathered: every write went to the OS."""

    def idle(self) -> None:
        """Nothing to do while the writer waits."""

    def sync(self) -> None:
        """Make what was written durable on disk."""
        os.fsync(self._fd)

    def close(self) -> None:
        """Close the file; idempotent."""
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            os.close(fd)
