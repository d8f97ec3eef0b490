"""Scanning one file: its complete records, chunk by chunk, and why reading stopped.

Reads big chunks, walks them (chunk_walk), checks their CRCs (records) and tells apart what
stops a walk: a record that continues past the chunk, a truncated last record, a zero-filled
tail, or corruption, which raises `CorruptRecordError` or, in tolerant mode, is skipped by
resyncing to the next valid record. `iter_records` and `iter_events` read one file this way.

A record whose length runs past the end of the file is a truncated tail (a live writer is
mid-write, or a crash cut it) only when no valid record follows it; when one does, its length
was forged or damaged, and it is corruption like any other.

A file followed from an offset past its end was cut back since (a run restarted into the
same file, a copy tool rewriting it): that is a `SHRUNK` problem, and reading goes on from
the last record boundary of what the file holds now, so what is appended after the cut is
read.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Generator, Iterator
from concurrent.futures import Future
from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from summarylib.format import records as framing
from summarylib.format import storage
from summarylib.proto import event_pb2
from summarylib.reading.chunk_walk import RECORD_HEADER, walk
from summarylib.reading.problems import (
    CORRUPT,
    SHRUNK,
    TRUNCATED,
    ZERO_TAIL,
    CorruptRecordError,
    Problem,
    ReadStatus,
)
from summarylib.reading.records import Records, first_bad
from summarylib.reading.resync import next_record

CHUNK_SIZE = 64 << 20  # bytes read at once
_SLACK = 8  # zero bytes after a chunk, so rows of a record can be read in whole 8-byte words


def _read(file: Any, position: int, count: int) -> tuple[memoryview, int]:
    """`count` bytes from `position` (fewer at the end), followed by `_SLACK` zero bytes."""
    file.seek(position)
    buffer = np.empty(count + _SLACK, np.uint8)  # not zero-filled: most of it is read into
    view = buffer.data
    got = file.readinto(view[:count]) or 0
    buffer[got:] = 0
    return view, got


def _classify_stop(
    buffer: memoryview, stop: int, count: int, position: int, size: int, check_crc: bool
) -> tuple[str, str, int]:
    """Why the walk of a chunk stopped at `stop` (file offset `position`): ("more", "", bytes
    needed) when the record continues past the chunk, else (TRUNCATED or CORRUPT, detail, 0)."""
    if count - stop < 12:
        if position + 12 <= size:
            return "more", "", 12
        return TRUNCATED, f"record header cut short ({size - position} of 12 bytes)", 0
    length, crc = RECORD_HEADER.unpack_from(buffer, stop)
    if length == 0 and crc == 0:
        return CORRUPT, "zero bytes where a record header should be", 0
    if check_crc and crc != framing.masked_crc32c(bytes(buffer[stop : stop + 8])):
        return CORRUPT, "length CRC mismatch", 0
    if position + length + 16 <= size:
        return "more", "", length + 16
    return TRUNCATED, f"last record cut short ({size - position} of {length + 16} bytes)", 0


def _zeros_to_end(file: Any, position: int, size: int) -> bool:
    """Whether every byte from `position` to `size` is zero."""
    while position < size:
        buffer, count = _read(file, position, min(16 << 20, size - position))
        if not count or np.frombuffer(buffer, np.uint8, count).any():
            return False
        position += count
    return True


def scan(
    path: str,
    status: ReadStatus,
    start: int = 0,
    check_crc: bool = True,
    tolerant: bool = False,
    chunk_size: int = CHUNK_SIZE,
    head: Future[bytes] | None = None,
    tolerate: Collection[int] = (),
    storage_options: storage.StorageOptions = None,
) -> Generator[Records, None, None]:
    """The complete records of a file from `start`, in chunks (a generator: the caller closes
    it); `status` says where and why reading stopped. Raises CorruptRecordError at corruption
    unless `tolerant`, or unless it starts at an offset in `tolerate` (a strict Reader raises
    each corruption only once). `head`: the request for a remote file's first block, if
    already made (see `storage.open_binary`); `storage_options`: for a URL's filesystem."""
    with storage.open_binary(path, head, storage_options) as (file, size):
        if start > size:
            start = _cut_back(file, path, status, start, size, chunk_size)
        position = status.end_offset = status.next_offset = start
        want = chunk_size
        while position < size:
            buffer, count = _read(file, position, min(want, size - position))
            if not count:
                break  # the file shrank
            starts, lengths, stop = walk(buffer, count)
            chunk = Records(path, buffer, position, starts, lengths)
            failure = None
            if check_crc and len(starts):
                bad = first_bad(chunk)
                if bad is not None:
                    stop, failure = int(starts[bad[0]]), bad[1]
                    chunk = Records(path, buffer, position, starts[: bad[0]], lengths[: bad[0]])
            if len(chunk):
                yield chunk
                status.records += len(chunk)
            position = status.end_offset = status.next_offset = position + stop
            if failure is None and stop == count:
                want = chunk_size
                continue
            verdict, detail, need = (
                (CORRUPT, failure, 0)
                if failure
                else _classify_stop(buffer, stop, count, position, size, check_crc)
            )
            if verdict == "more":
                want = max(chunk_size, need)
                continue
            skips = tolerant or position in tolerate
            resumed = _end_of_data(file, path, status, position, size, verdict, detail, skips)
            if resumed is None:
                return
            position, want = resumed, chunk_size
        status.next_offset = position


def _last_boundary(file: Any, size: int, chunk_size: int) -> int:
    """The offset just past the last complete record among the file's first `size` bytes."""
    position, want = 0, chunk_size
    while position < size:
        buffer, count = _read(file, position, min(want, size - position))
        _, _, stop = walk(buffer, count)
        if not stop:
            if count < want or position + count >= size:
                break  # a record cut short at the end, or none: the boundary is here
            want *= 2  # one record longer than the chunk
            continue
        position, want = position + stop, chunk_size
    return position


def _cut_back(file: Any, path: str, status: ReadStatus, start: int, size: int, chunk_size: int) -> int:
    """Record that the file holds fewer bytes than where reading had reached (`start`);
    where reading goes on: the last record boundary of what it holds now."""
    boundary = _last_boundary(file, size, chunk_size)
    detail = (
        f"file cut back to {size} bytes, below byte {start} where reading had reached (rewritten or "
        f"restarted); reading goes on at byte {boundary}"
    )
    status.problems.append(Problem(path, boundary, SHRUNK, detail, start - size))
    return boundary


def _end_of_data(
    file: Any,
    path: str,
    status: ReadStatus,
    position: int,
    size: int,
    verdict: str,
    detail: str,
    tolerant: bool,
) -> int | None:
    """Deal with what stopped reading at `position`: a zero-filled tail or truncated record
    ends the file (None); corruption raises, or in tolerant mode is skipped to the next valid
    record (its offset; None when there is none). A record cut short that a valid record
    follows is corruption.

    When no valid record follows corruption, reading goes on later (`status.next_offset`) at
    the first record header that promises more than the file holds (a record being written),
    else within the last 11 bytes (where such a header may be half written), so that a Reader
    following the file misses no record written after the damage."""
    found = pending = None
    if _zeros_to_end(file, position, size):
        verdict, detail = ZERO_TAIL, f"zero-filled tail ({size - position} bytes)"
    elif verdict == TRUNCATED:
        found, pending = next_record(file, position + 1, size)
        if found is not None:
            verdict, detail = CORRUPT, f"{detail}, but a valid record follows at byte offset {found}"
    if verdict != CORRUPT:
        status.problems.append(Problem(path, position, verdict, detail, size - position))
        status.truncated_bytes = size - position
        return None
    if not tolerant:
        status.problems.append(Problem(path, position, CORRUPT, detail, 0))
        raise CorruptRecordError(path, position, detail)
    if found is None:
        found, pending = next_record(file, position + 1, size)
    skipped = (found or size) - position
    status.problems.append(Problem(path, position, CORRUPT, f"{detail}, {skipped} bytes skipped", skipped))
    if found is None:
        status.next_offset = pending if pending is not None else max(position + 1, size - 11)
    return found


def _one_file(function: str, path: str | os.PathLike, options: storage.StorageOptions) -> str:
    """`path` as a str, checked at the call to be one file: a directory gets a ValueError that
    says what reads one (a generator would only fail at its first value, and with the OS's
    IsADirectoryError)."""
    path = os.fspath(path)
    found = storage.kind(path, options=options)
    if found is None:
        raise FileNotFoundError(f"summarylib.reader.{function}: no event file at {path}")
    if found == "directory":
        raise ValueError(
            f"summarylib.reader.{function}: argument 'path': expected one event file, got the directory "
            f"{path} (iter_values or Reader read a run or logdir; find_sources lists its event files)"
        )
    return path


def iter_records(
    path: str | os.PathLike,
    status: ReadStatus | None = None,
    check_crc: bool = True,
    tolerant: bool = False,
    storage_options: storage.StorageOptions = None,
) -> Iterator[bytes]:
    """The payloads of the records of one file, in order.

    A final record cut short (or a zero-filled tail) ends iteration cleanly; `status` then
    says how many bytes were left and why. A CRC mismatch raises CorruptRecordError with the
    offset, or with `tolerant` is recorded in `status.problems` and skipped.
    """
    path = _one_file("iter_records", path, storage_options)
    chunks = scan(
        path,
        status if status is not None else ReadStatus(),
        0,
        check_crc,
        tolerant,
        storage_options=storage_options,
    )
    return (chunk.payload(index) for chunk in chunks for index in range(len(chunk)))


def iter_events(
    path: str | os.PathLike,
    status: ReadStatus | None = None,
    check_crc: bool = True,
    tolerant: bool = False,
    storage_options: storage.StorageOptions = None,
) -> Iterator[event_pb2.Event]:
    """The Events of one event file; see `iter_records`. A record that is not an Event is
    corruption too."""
    path = _one_file("iter_events", path, storage_options)
    return _events(path, status if status is not None else ReadStatus(), check_crc, tolerant, storage_options)


def _events(
    path: str, status: ReadStatus, check_crc: bool, tolerant: bool, options: storage.StorageOptions
) -> Iterator[event_pb2.Event]:
    for chunk in scan(path, status, 0, check_crc, tolerant, storage_options=options):
        for index in range(len(chunk)):
            try:
                event = event_pb2.Event.FromString(chunk.payload(index))
            except DecodeError as error:
                problem = Problem(path, chunk.offset(index), CORRUPT, f"record is not an Event ({error})", 0)
                status.problems.append(problem)
                if not tolerant:
                    raise CorruptRecordError(path, problem.offset, problem.detail) from error
                continue
            yield event
