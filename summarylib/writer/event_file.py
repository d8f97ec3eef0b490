"""Event files on disk: their names, exclusive creation, and the first record.

TensorBoard finds event files by the `tfevents` in their names and orders the files of a
run by name, so the name carries the creation second first. Files are opened with
O_EXCL: a writer that would reuse a name moves on to the next counter instead of
truncating a file another writer owns.

A new file is never named before the run's newest file: its second is the larger of the
clock's and one past the newest name's. A clock stepped back (NTP, a VM resumed) would
otherwise name it earlier, and TensorBoard, which follows a run's files in name order
and never goes back to an earlier name, would never read it.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import socket
import time
from collections.abc import Callable, Iterable, Iterator

from summarylib.format import records
from summarylib.proto import event_pb2

FILE_VERSION = "brain.Event:2"
WRITER_NAME = "summarylib"
DEFAULT_SUFFIX = ".v2"

_file_counter = itertools.count()
_NAME_SECONDS = re.compile(r"events\.out\.tfevents\.(\d+)\.")


def name_seconds(now: float, names: Iterable[str]) -> int:
    """The second a run's next event file is named by: `now`'s, or one past the newest
    of the run's event files `names` when that is later (a clock stepped back)."""
    newest = max((int(match.group(1)) for name in names if (match := _NAME_SECONDS.match(name))), default=-1)
    return max(int(now), newest + 1)


def _listed(logdir: str) -> list[str]:
    try:
        return os.listdir(logdir)
    except OSError:
        return []


def event_file_name(seconds: int, hostname: str, pid: int, counter: int, suffix: str) -> str:
    """The v2 event-file name TensorBoard and TensorFlow 2 use, with the per-process
    counter zero-padded: TensorBoard follows a run's files in name order, and a file
    begun in the same second as the one before it (a rolling file, a writer reopened)
    must sort after it, also when the counter passes 9 or 99 (TensorFlow's unpadded
    `.10` sorts before `.9`, so a TensorBoard that is following `.9` never reads `.10`)."""
    return f"events.out.tfevents.{seconds:010d}.{hostname}.{pid}.{counter:06d}{suffix}"


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
    """An event file opened for appending framed records, owned by one writer.

    A failed write never leaves a partial record behind a later one: the file is cut back
    (ftruncate) to its size before the write, its last record boundary, so what follows
    the failure continues a readable file (TensorBoard stops reading a file at its first
    partial record). Truncation, rather than a new file for each failure, keeps one file
    per run across a disk-full episode. If the cut fails too, the file is left behind
    (its partial record then at its end) and the next write begins a new file.

    The object always has a file to go on with: a file that cannot be created (a logdir
    that is not a directory for a while, no free inode) is an OSError for the write that
    needed it, and the next write tries again.
    """

    def __init__(self, logdir: str, suffix: str | None = None, file_names: FileNames = v2_file_names) -> None:
        self.logdir = logdir
        self.suffix = suffix
        self._file_names = file_names
        self.bytes_written = 0
        self._size = 0  # bytes in the file now: its last record boundary
        self._fresh = False  # the next write begins a new file (the last one is lost or unusable)
        self._fd, self.path = self._new_file()

    def _new_file(self) -> tuple[int, str]:
        """Create the next file of the run and write its first event: (descriptor, path).
        On failure nothing is left open and no partial file is left behind."""
        os.makedirs(self.logdir, exist_ok=True)
        now = time.time()
        seconds = name_seconds(now, _listed(self.logdir))
        for name in self._file_names(seconds, socket.gethostname(), self.suffix):
            path = os.path.join(self.logdir, name)
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o666)
                break
            except FileExistsError:
                continue
        first = records.frame(first_event(now))
        try:
            _write_all(fd, first)
        except OSError:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.remove(path)
            raise
        self._size = len(first)
        self.bytes_written += len(first)
        return fd, path

    def write(self, data: bytes) -> None:
        """Hand `data`, whole records, to the OS: all of it, or (raising OSError) none."""
        if self._fd < 0:
            self._open()
        try:
            _write_all(self._fd, data)
        except OSError:
            self._cut_back()
            raise
        self._size += len(data)
        self.bytes_written += len(data)

    def _cut_back(self) -> None:
        """Truncate the file to its last record boundary after a failed write; when even
        that fails, let the file go and begin a new one at the next write."""
        try:
            os.ftruncate(self._fd, self._size)
        except OSError:
            self.close()
            self._fresh = True

    def _open(self) -> None:
        """Reopen the suspended file for appending, or begin a new file when it is gone
        or unusable."""
        if not self._fresh:
            try:
                self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
                self._size = os.fstat(self._fd).st_size
                return
            except FileNotFoundError:  # deleted while suspended
                pass
        self._fd, self.path = self._new_file()
        self._fresh = False

    def reopen_if_deleted(self) -> str | None:
        """If the file (or its directory) was deleted, continue in a new file in a
        re-created logdir, so later events are not written into a file no one can see;
        returns the lost file's path, else None. Raises OSError when the new file cannot
        be created; the next write tries again."""
        if self._fd >= 0:
            if os.fstat(self._fd).st_nlink > 0:
                return None
            self.close()
        elif self._fresh or os.path.exists(self.path):
            return None  # suspended, or already known lost: the next write opens a file
        self._fresh = True
        lost = self.path
        self._open()
        return lost

    def start_new_file(self) -> str:
        """Close this file and continue in a new one; returns the closed file's path. When
        the new file cannot be created this raises OSError and goes on with the old one."""
        fd, path = self._new_file()
        old = self.path
        self.close()
        self._fd, self.path, self._fresh = fd, path, False
        return old

    def suspend(self) -> None:
        """Let go of the descriptor while the file is idle; the next write reopens it
        for appending (a pool of many files keeps few descriptors open this way)."""
        self.close()

    def abandon(self) -> None:
        """In a forked child: let go of the inherited descriptor, writing nothing."""
        self.close()

    def flush(self) -> None:
        """Nothing gathered: every write went to the OS."""

    def idle(self) -> None:
        """Nothing to do while the writer waits."""

    def sync(self) -> None:
        """Make what was written durable on disk."""
        if self._fd >= 0:
            os.fsync(self._fd)

    def close(self) -> None:
        """Close the file; idempotent."""
        if self._fd >= 0:
            fd, self._fd = self._fd, -1
            os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    """Write all of `data` (os.write may write less than asked)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
