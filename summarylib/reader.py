"""Reading event files back: from an event file, a run directory or a whole logdir, fast.

    for value in summarylib.reader.iter_values("runs"):   # or Reader("runs") to follow a live run
        print(value.run, value.tag, value.step, value.value)
    table = summarylib.reader.load_table("runs")          # run, tag, step, wall_time, value

Files are read in big chunks and their records found with `struct` and numpy; CRCs are checked
for many records at once (CRC32C is linear, so records of one length differ in their CRCs
only through the bytes in which they differ); scalar events are read at the byte level (see
summarylib.decoding). A truncated last record (a file still being written, a killed writer)
or a zero-filled tail (a crash on some filesystems) ends a file cleanly and is reported as a
`Problem`; corruption in the middle raises `CorruptRecordError` naming the file and byte
offset, or, with `tolerant=True`, is reported and skipped up to the next valid record.
"""

from __future__ import annotations

import os
import struct
import threading
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from itertools import repeat
from operator import length_hint
from typing import Any, NamedTuple

import crc32c
import numpy as np
from google.protobuf.message import DecodeError
from numpy.lib.stride_tricks import sliding_window_view

from summarylib.decoding import Filters, Names, Rows, RunState, decode_records, decode_value
from summarylib.proto import event_pb2
from summarylib.writer import records as framing

CHUNK_SIZE = 64 << 20  # bytes read at once
TRUNCATED, ZERO_TAIL, CORRUPT = "truncated", "zero_tail", "corrupt"

_HEADER = struct.Struct("<QI")
_SLACK = 8  # zero bytes after a chunk, so rows of a record can be read in whole 8-byte words
_DENSE_MIN = 16  # records of one length that are checked and parsed together
_DENSE_MAX_LENGTH = 4096
_RESYNC_WINDOW = 4 << 20


class CorruptRecordError(ValueError):
    """A record in the middle of a file fails its CRC, is cut short, or is not an Event."""

    def __init__(self, path: str, offset: int, problem: str) -> None:
        super().__init__(f"{path}: corrupt record at byte offset {offset}: {problem}")
        self.path = path
        self.offset = offset


@dataclass(frozen=True)
class Problem:
    """Something wrong in a file: a `TRUNCATED` last record, a `ZERO_TAIL`, or a `CORRUPT`
    stretch (skipped in tolerant mode). `size`: the bytes it covers."""

    path: str
    offset: int
    kind: str
    detail: str
    size: int

    def __str__(self) -> str:
        return f"{self.path}: {self.detail} at byte offset {self.offset}"


@dataclass
class ReadStatus:
    """Filled in while iterating: where reading stopped and why."""

    records: int = 0
    # Byte offset just past the last complete record.
    end_offset: int = 0
    # Bytes at the end of the file that form no complete record (cut short, or zeros).
    truncated_bytes: int = 0
    # Where reading continues once the file has grown (past skipped corruption, at a tail).
    next_offset: int = 0
    problems: list[Problem] = field(default_factory=list)


# CRC32C of many records at once ------------------------------------------------------------


def _crc_table() -> np.ndarray:
    """The byte table of reflected CRC32C (Castagnoli polynomial)."""
    table = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        table = np.where(table & 1, (table >> 1) ^ np.uint32(0x82F63B78), table >> 1).astype(np.uint32)
    return table


_TABLE = _crc_table()
_SHIFTED = [_TABLE]  # _SHIFTED[d][b]: CRC contribution of byte b followed by d zero bytes
_SHIFTED_LOCK = threading.Lock()


def _byte_table(distance: int) -> np.ndarray:
    """The CRC contribution (no init, no final xor) of each byte value `distance` bytes
    before the end of a message."""
    with _SHIFTED_LOCK:
        while len(_SHIFTED) <= distance:
            last = _SHIFTED[-1]
            _SHIFTED.append((last >> 8) ^ _TABLE[last & 0xFF])
        return _SHIFTED[distance]


def _masked(crc: np.ndarray) -> np.ndarray:
    """Masked CRCs, as TFRecord stores them."""
    crc = crc.astype(np.uint32)
    return ((crc >> np.uint32(15)) | (crc << np.uint32(17))) + np.uint32(0xA282EAD8)


def _group_crcs(rows: np.ndarray, length: int) -> np.ndarray:
    """The CRC32C of each row's first `length` bytes. CRC is linear: two messages of one length
    differ in CRC by the xor of their differing bytes' contributions, so only the columns
    where rows differ (wall time, step and value, for scalar events) cost anything."""
    data = rows[:, :length]
    first = data[0]
    crcs = np.full(len(rows), crc32c.crc32c(first.tobytes()), np.uint32)
    for column in np.flatnonzero(data.min(axis=0) != data.max(axis=0)).tolist():
        crcs ^= _byte_table(length - 1 - column)[data[:, column] ^ first[column]]
    return crcs


def _header_crcs(data: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """The masked CRC32C of the 8 bytes at each position of `data`."""
    crcs = np.full(len(positions), 0xFFFFFFFF, np.uint32)
    for k in range(8):
        crcs = _TABLE[(crcs ^ data[positions + k]) & 0xFF] ^ (crcs >> np.uint32(8))
    return _masked(crcs ^ np.uint32(0xFFFFFFFF))


def _words(data: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """The little-endian uint32 at each position of `data`."""
    return sliding_window_view(data, 4)[positions].copy().view("<u4").reshape(len(positions))


# Records in memory ------------------------------------------------------------------------


@dataclass
class _Group:
    """The records of one payload length in a chunk, when there are many (a dense group)."""

    length: int
    indices: np.ndarray  # ascending
    spacing: int  # bytes from each record to the next, when constant; else 0
    rows: np.ndarray | None = None  # payloads as rows


class Records:
    """Complete records of a stretch of one file, held in memory."""

    def __init__(
        self, path: str, buffer: memoryview, base: int, starts: np.ndarray, lengths: np.ndarray
    ) -> None:
        self.path = path
        self.base = base  # file offset of buffer[0]
        self.starts = starts  # int64: record starts in the buffer
        self.lengths = lengths  # int64: payload lengths
        self.bytes = np.frombuffer(buffer, np.uint8)
        self._view = buffer
        self._groups: list[_Group] | None = None
        self._sparse = np.zeros(0, np.int64)

    def __len__(self) -> int:
        return len(self.starts)

    @property
    def end(self) -> int:
        """File offset just past the last record."""
        return self.base + int(self.starts[-1] + self.lengths[-1]) + 16 if len(self) else self.base

    def payload(self, index: int) -> bytes:
        """The payload of record `index`."""
        start = int(self.starts[index]) + 12
        return bytes(self._view[start : start + int(self.lengths[index])])

    def offset(self, index: int) -> int:
        """File offset of record `index`."""
        return self.base + int(self.starts[index])

    def offsets(self) -> np.ndarray:
        """File offsets of all records."""
        return self.starts + self.base

    def record_size(self, index: int) -> int:
        """Bytes of record `index` on disk, framing included."""
        return int(self.lengths[index]) + 16

    def groups(self) -> list[_Group]:
        """The dense groups: many records of one (short) payload length, with their rows."""
        self._group_all()
        return self._groups

    def dense_groups(self) -> list[tuple[int, np.ndarray, np.ndarray]]:
        """(length, record indices, payload rows) for lengths shared by many records; rows are
        uint8, one payload a row, padded to whole 8-byte words, read-only."""
        return [(group.length, group.indices, group.rows) for group in self.groups()]

    def sparse_indices(self) -> np.ndarray:
        """Indices of the records not in a dense group, ascending."""
        self._group_all()
        return self._sparse

    def _group_all(self) -> None:
        if self._groups is not None:
            return
        self._groups = []
        sparse = [np.zeros(0, np.int64)]
        for length, indices in _by_length(self.lengths):
            if len(indices) >= _DENSE_MIN and 0 < length <= _DENSE_MAX_LENGTH:
                self._groups.append(self._group(length, indices))
            else:
                sparse.append(indices)
        self._sparse = np.sort(np.concatenate(sparse))

    def words(self, group: _Group, at: int) -> np.ndarray:
        """The little-endian uint32 at byte `at` of each record of `group`."""
        if group.spacing:
            start = int(self.starts[group.indices[0]]) + at
            return np.ndarray((len(group.indices),), "<u4", self._view, start, (group.spacing,))
        return _words(self.bytes, self.starts[group.indices] + at)

    def _group(self, length: int, indices: np.ndarray) -> _Group:
        starts = self.starts[indices]
        spacing = np.diff(starts)
        even = len(spacing) and (spacing == spacing[0]).all()
        group = _Group(length, indices, int(spacing[0]) if even else 0)
        group.rows = self._rows(group)
        return group

    def _rows(self, group: _Group) -> np.ndarray:
        """The payloads of a group as rows of whole 8-byte words: a view of the buffer when
        they lie evenly spaced (one tag logged alone or in a fixed rhythm), else a copy."""
        width = (group.length + 7) // 8 * 8
        payloads = self.starts[group.indices] + 12
        if group.spacing:
            rows = np.ndarray(
                (len(payloads), width), np.uint8, self._view, int(payloads[0]), (group.spacing, 1)
            )
        else:
            rows = sliding_window_view(self.bytes, width)[payloads]
        rows.flags.writeable = False
        return rows


def _by_length(lengths: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """Record indices grouped by payload length (ascending within each group); lengths of few
    records come together in one group of length -1."""
    if not len(lengths):
        return []
    if lengths.min() == lengths.max():
        return [(int(lengths[0]), np.arange(len(lengths)))]
    values, inverse, counts = np.unique(lengths, return_inverse=True, return_counts=True)
    common = counts >= _DENSE_MIN
    inverse = np.where(common[inverse], inverse, len(values))  # the rare ones last
    order = np.argsort(inverse, kind="stable")
    groups = np.split(order, np.cumsum(counts[common]))
    return [*zip(values[common].tolist(), groups[:-1], strict=True), (-1, groups[-1])]


def _first_bad(records: Records) -> tuple[int, str] | None:
    """The first record whose length or payload fails its CRC, with what failed."""
    header_ok = np.ones(len(records), bool)
    payload_ok = np.ones(len(records), bool)
    for group in records.groups():
        indices, length = group.indices, group.length
        header_ok[indices] = records.words(group, 8) == framing.masked_crc32c(struct.pack("<Q", length))
        payload_ok[indices] = _masked(_group_crcs(group.rows, length)) == records.words(group, 12 + length)
    sparse = records.sparse_indices()
    starts = records.starts[sparse]
    header_ok[sparse] = _header_crcs(records.bytes, starts) == _words(records.bytes, starts + 8)
    footers = _words(records.bytes, starts + 12 + records.lengths[sparse])
    for index, footer in zip(sparse.tolist(), footers.tolist(), strict=True):
        payload_ok[index] = framing.masked_crc32c(records.payload(index)) == footer
    ok = header_ok & payload_ok
    if ok.all():
        return None
    bad = int(np.argmin(ok))
    return bad, "length CRC mismatch" if not header_ok[bad] else "payload CRC mismatch"


# Walking the records of a chunk -------------------------------------------------------------


def _walk(buffer: memoryview, end: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Starts and payload lengths of the records that lie wholly in `buffer[:end]`, following
    length fields from 0 (unchecked), and where the walk stopped. Stretches where record
    lengths repeat with a short period are followed with numpy, the rest in Python."""
    starts: list[Any] = []
    lengths: list[Any] = []
    position, budget = 0, 64
    while True:
        walked, sizes, position, stopped = _walk_some(buffer, position, end, budget)
        starts.append(np.array(walked, np.int64))
        lengths.append(np.array(sizes, np.int64))
        if stopped:
            break
        guessed = _walk_periodic(buffer, position, end, sizes)
        if guessed is None:
            budget = min(budget * 2, 1 << 14)
            continue
        starts.append(guessed[0])
        lengths.append(guessed[1])
        position, budget = guessed[2], 64
    return np.concatenate(starts), np.concatenate(lengths), position


def _walk_some(buffer: memoryview, position: int, end: int, count: int) -> tuple[list, list, int, bool]:
    """Up to `count` records from `position`: starts, lengths, where it stopped, and whether it
    stopped early (the next record does not fit, or its header is all zeros)."""
    unpack = _HEADER.unpack_from
    starts, lengths = [], []
    for _ in range(count):
        if position + 12 > end:
            return starts, lengths, position, True
        length, crc = unpack(buffer, position)
        following = position + length + 16
        if following > end or (length == 0 and crc == 0):
            return starts, lengths, position, True
        starts.append(position)
        lengths.append(length)
        position = following
    return starts, lengths, position, False


def _period(lengths: list[int]) -> int | None:
    """The shortest period (up to 32) with which all of `lengths` repeat, if any."""
    for period in range(1, min(32, len(lengths) // 2) + 1):
        if lengths[period:] == lengths[:-period] and min(lengths[-period:]) > 0:
            return period
    return None


def _walk_periodic(
    buffer: memoryview, position: int, end: int, recent: list[int]
) -> tuple[np.ndarray, np.ndarray, int] | None:
    """Records from `position` as long as their lengths continue the period of `recent`:
    starts, lengths and where it stopped; None when there is no period."""
    period = _period(recent)
    if period is None:
        return None
    block = np.array(recent[-period:], np.int64)
    sizes = block + 16
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    stride = int(sizes.sum())
    found, repeats = [], 256
    while True:
        count = min(repeats, (end - position) // stride)
        if count <= 0:
            break
        matches = np.empty((count, period), bool)
        for j in range(period):
            view = np.ndarray((count,), "<u8", buffer, position + int(offsets[j]), (stride,))
            np.equal(view, block[j], out=matches[:, j])
        flat = matches.reshape(-1)
        good = len(flat) if flat.all() else int(np.argmin(flat))
        found.append((position + np.arange(count)[:, None] * stride + offsets).reshape(-1)[:good])
        position += good // period * stride + int(sizes[: good % period].sum())
        if good < len(flat):
            break
        repeats *= 8
    accepted = sum(len(f) for f in found)
    if not accepted:
        return None
    return np.concatenate(found), np.tile(block, -(-accepted // period))[:accepted], position


# Scanning a file ---------------------------------------------------------------------------


def _read(file: Any, position: int, count: int) -> tuple[memoryview, int]:
    """`count` bytes from `position` (fewer at the end), followed by `_SLACK` zero bytes."""
    file.seek(position)
    buffer = np.empty(count + _SLACK, np.uint8)  # not zero-filled: most of it is read into
    view = memoryview(buffer)
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
    length, crc = _HEADER.unpack_from(buffer, stop)
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


def _header_candidates(buffer: memoryview, count: int) -> list[int]:
    """Positions in `buffer[:count]` where a record header with a matching CRC starts."""
    data = np.frombuffer(buffer, np.uint8, count)
    positions = count - 11
    if positions <= 0:
        return []
    high = (
        data[4 : 4 + positions] | data[5 : 5 + positions] | data[6 : 6 + positions] | data[7 : 7 + positions]
    )
    candidates = np.flatnonzero(high == 0)
    matching = _header_crcs(data, candidates) == _words(data, candidates + 8)
    return candidates[matching].tolist()


def _record_at(file: Any, position: int, size: int) -> bool:
    """Whether a whole record with matching CRCs starts at `position`."""
    file.seek(position)
    header = file.read(12)
    length, header_ok = framing.parse_header(header)
    if not header_ok or position + length + 16 > size:
        return False
    rest = file.read(length + 4)
    return len(rest) == length + 4 and framing.footer_matches(rest[:length], rest[length:])


def _resync(file: Any, position: int, size: int, window: int = _RESYNC_WINDOW) -> int | None:
    """The offset of the next valid record at or after `position`, if any; looks at `window`
    bytes at a time."""
    while position + 16 <= size:
        buffer, count = _read(file, position, min(window, size - position))
        for candidate in _header_candidates(buffer, count):
            if _record_at(file, position + candidate, size):
                return position + candidate
        if position + count >= size:
            return None
        position += count - 11
    return None


def _scan(
    path: str,
    status: ReadStatus,
    start: int = 0,
    check_crc: bool = True,
    tolerant: bool = False,
    chunk_size: int = CHUNK_SIZE,
) -> Iterator[Records]:
    """The complete records of a file from `start`, in chunks; `status` says where and why
    reading stopped. Raises CorruptRecordError at corruption unless `tolerant`."""
    with open(path, "rb") as file:
        size = os.fstat(file.fileno()).st_size
        position = status.end_offset = status.next_offset = start
        want = chunk_size
        while position < size:
            buffer, count = _read(file, position, min(want, size - position))
            if not count:
                break  # the file shrank
            starts, lengths, stop = _walk(buffer, count)
            chunk = Records(path, buffer, position, starts, lengths)
            failure = None
            if check_crc and len(starts):
                bad = _first_bad(chunk)
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
            resumed = _end_of_data(file, path, status, position, size, verdict, detail, tolerant)
            if resumed is None:
                return
            position, want = resumed, chunk_size
        status.next_offset = position


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
    record (its offset; None when there is none)."""
    if _zeros_to_end(file, position, size):
        verdict, detail = ZERO_TAIL, f"zero-filled tail ({size - position} bytes)"
    if verdict != CORRUPT:
        status.problems.append(Problem(path, position, verdict, detail, size - position))
        status.truncated_bytes = size - position
        return None
    if not tolerant:
        status.problems.append(Problem(path, position, CORRUPT, detail, 0))
        raise CorruptRecordError(path, position, detail)
    found = _resync(file, position + 1, size)
    skipped = (found or size) - position
    status.problems.append(Problem(path, position, CORRUPT, f"{detail}, {skipped} bytes skipped", skipped))
    if found is None:
        status.next_offset = size
    return found


def iter_records(
    path: str | os.PathLike, status: ReadStatus | None = None, check_crc: bool = True, tolerant: bool = False
) -> Iterator[bytes]:
    """The payloads of the records of one file, in order.

    A final record cut short (or a zero-filled tail) ends iteration cleanly; `status` then
    says how many bytes were left and why. A CRC mismatch raises CorruptRecordError with the
    offset, or with `tolerant` is recorded in `status.problems` and skipped.
    """
    status = status if status is not None else ReadStatus()
    for chunk in _scan(os.fspath(path), status, 0, check_crc, tolerant):
        for index in range(len(chunk)):
            yield chunk.payload(index)


def iter_events(
    path: str | os.PathLike, status: ReadStatus | None = None, check_crc: bool = True, tolerant: bool = False
) -> Iterator[event_pb2.Event]:
    """The Events of one event file; see `iter_records`. A record that is not an Event is
    corruption too."""
    status = status if status is not None else ReadStatus()
    path = os.fspath(path)
    for chunk in _scan(path, status, 0, check_crc, tolerant):
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


# Runs ------------------------------------------------------------------------------------


def is_event_file(name: str) -> bool:
    """Whether TensorBoard reads a file of this name for summaries."""
    base = os.path.basename(name)
    return "tfevents" in base and not base.endswith(".profile-empty")


def find_runs(logdir: str | os.PathLike) -> dict[str, list[str]]:
    """The runs of a logdir as TensorBoard finds them: every directory (the logdir included)
    that directly holds a file with "tfevents" in its name, named by its path relative to
    the logdir ("." for the logdir itself), with its event files in the order TensorBoard
    reads them (sorted by name, which starts with the creation time)."""
    logdir = os.fspath(logdir)
    runs = {}
    for directory, subdirectories, names in os.walk(logdir):
        subdirectories.sort()
        if any("tfevents" in name for name in names):
            files = sorted(os.path.join(directory, name) for name in names if is_event_file(name))
            runs[os.path.relpath(directory, logdir)] = files
    return dict(sorted(runs.items()))


def find_sources(path: str | os.PathLike) -> dict[str, list[str]]:
    """{run: event files} of an event file (run "."), a run directory or a logdir; empty when
    the path does not exist."""
    path = os.fspath(path)
    if os.path.isfile(path):
        return {".": [path]}
    return find_runs(path) if os.path.isdir(path) else {}


# Values ----------------------------------------------------------------------------------


class Value(NamedTuple):
    """One summary value, decoded (see `summarylib.decoding.decode_value`): a float for
    scalars, arrays for histograms and tensors, `Images`, `Audio`, str or `PrCurve`."""

    run: str
    tag: str
    step: int
    wall_time: float
    plugin: str
    value: Any


@dataclass
class _Cursor:
    """Where reading of one file continues: an offset, and how many values of the record
    there were already handed out."""

    path: str
    offset: int = 0
    skip: int = 0
    tail: Problem | None = None


@dataclass
class Batch:
    """The values of one stretch of one file of one run, as `Rows`."""

    run: str
    path: str
    rows: Rows
    end: int  # file offset where reading continues once these rows are handed out
    cursor: _Cursor

    def commit(self, handed_out: int | None = None) -> None:
        """Record that the first `handed_out` rows (all by default) have been handed out."""
        rows, cursor = self.rows, self.cursor
        if handed_out is None or handed_out >= len(rows):
            cursor.offset, cursor.skip = self.end, 0
            return
        offset = int(rows.offset[handed_out])
        done = int(np.count_nonzero(rows.offset[:handed_out] == offset))
        cursor.skip = (cursor.skip if offset == cursor.offset else 0) + done
        cursor.offset = offset


def _name_set(names: str | Collection[str] | None) -> frozenset[str] | None:
    return frozenset([names] if isinstance(names, str) else names) if names is not None else None


class Reader:
    """Summary values of an event file, a run directory or a logdir; follows live runs.

    Each call of `values()` (or iteration) or `table()` hands out the values that are new since
    the previous call: the first call reads everything, later ones continue every file where
    the last stopped (a record not yet completely written is read once it is), and pick up
    new files and runs. No value is handed out twice or skipped, even when iteration stops
    early. Runs, tags and plugins filter values before they are decoded.

    `check_crc`: verify record CRCs (the default; fast). `tolerant`: report corruption in
    `problems` and skip to the next valid record, instead of raising CorruptRecordError.
    """

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        runs: str | Collection[str] | None = None,
        tags: str | Collection[str] | None = None,
        plugins: str | Collection[str] | None = None,
        check_crc: bool = True,
        tolerant: bool = False,
    ) -> None:
        self.path = os.fspath(path)
        self.names = Names()
        self.check_crc = check_crc
        self.tolerant = tolerant
        self._runs = _name_set(runs)
        self._filters = Filters(_name_set(tags), _name_set(plugins))
        self._states: dict[str, RunState] = {}
        self._cursors: dict[str, _Cursor] = {}
        self._corruption: dict[tuple[str, int], Problem] = {}

    @property
    def problems(self) -> list[Problem]:
        """Corruption skipped so far, and each file's truncated or zero-filled tail as of the
        last read."""
        tails = [cursor.tail for cursor in self._cursors.values() if cursor.tail is not None]
        return list(self._corruption.values()) + tails

    def plugins(self, run: str) -> dict[str, str]:
        """{tag: plugin} of a run as read so far (each tag's first metadata)."""
        return dict(self._states[run].plugins) if run in self._states else {}

    def runs(self) -> dict[str, list[str]]:
        """{run: event files} as they are now, filtered by run."""
        found = find_sources(self.path)
        return {run: files for run, files in found.items() if self._runs is None or run in self._runs}

    def __iter__(self) -> Iterator[Value]:
        return self.values()

    def values(self) -> Iterator[Value]:
        """The values that are new since the last call, run by run, in file order."""
        for batch in self.batches():
            values, error = self._decode_protos(batch)
            steps = iter(batch.rows.step.tolist())
            handed_out = None
            try:
                yield from self._values(batch, steps, values)
                handed_out = len(values)
                if error is not None:
                    raise error
            finally:
                # Iterators left unfinished say how many values went out.
                batch.commit(handed_out if handed_out is not None else len(batch.rows) - length_hint(steps))

    def table(self, as_dataframe: bool | None = None) -> Any:
        """The values that are new since the last call as a table; see `load_table`."""
        pieces = []
        run_names: list[str] = []
        for batch in self.batches():
            if batch.run not in run_names:
                run_names.append(batch.run)
            pieces.append((run_names.index(batch.run), batch.rows, self._table_values(batch)))
            batch.commit()
        return _make_table(pieces, run_names, self.names.tags, as_dataframe)

    def batches(self, keep_events: bool = False) -> Iterator[Batch]:
        """The new values as Rows, a stretch of a file at a time; each batch must be committed
        once handed out. `keep_events` keeps the non-summary events too (for inspection)."""
        for run, files in self.runs().items():
            state = self._states.setdefault(run, RunState())
            for path in files:
                cursor = self._cursors.setdefault(path, _Cursor(path))
                yield from self._file_batches(run, cursor, state, keep_events)

    def _file_batches(self, run: str, cursor: _Cursor, state: RunState, keep_events: bool) -> Iterator[Batch]:
        status = ReadStatus()
        try:
            for chunk in _scan(cursor.path, status, cursor.offset, self.check_crc, self.tolerant):
                rows = _without_handed_out(
                    decode_records(chunk, state, self.names, self._filters, keep_events), cursor
                )
                rows, end, error = self._unparsable(chunk, rows)
                yield Batch(run, cursor.path, rows, end, cursor)
                if error is not None:
                    raise error
        finally:
            for problem in status.problems:
                if problem.kind == CORRUPT and self.tolerant:
                    self._corruption[problem.path, problem.offset] = problem
        cursor.offset, cursor.skip = status.next_offset, 0
        cursor.tail = next((p for p in status.problems if p.kind != CORRUPT), None)

    def _unparsable(self, chunk: Records, rows: Rows) -> tuple[Rows, int, CorruptRecordError | None]:
        """Deal with records that are not Events: in tolerant mode report them; else keep the
        rows before the first and return the error to raise once they are handed out."""
        if not rows.bad:
            return rows, chunk.end, None
        if self.tolerant:
            for offset, why in rows.bad:
                size = int(chunk.lengths[np.searchsorted(chunk.offsets(), offset)]) + 16
                problem = Problem(chunk.path, offset, CORRUPT, f"{why}, {size} bytes skipped", size)
                self._corruption[chunk.path, offset] = problem
            return rows, chunk.end, None
        offset, why = rows.bad[0]
        return rows.take(rows.offset < offset), offset, CorruptRecordError(chunk.path, offset, why)

    def _values(self, batch: Batch, steps: Iterator[int], values: list) -> Iterator[Value]:
        """Value tuples of a batch's rows, built without a Python loop (this is per value)."""
        rows = batch.rows
        fields = zip(
            repeat(batch.run),
            map(self.names.tags.__getitem__, rows.tag.tolist()),
            steps,
            rows.wall_time.tolist(),
            map(self.names.plugins.__getitem__, rows.plugin.tolist()),
            values,
        )
        return map(tuple.__new__, repeat(Value), fields)

    def _decode_protos(self, batch: Batch) -> tuple[list, ValueError | None]:
        """The value of each row: the number of scalars read at the byte level, the others
        decoded; cut before the first that cannot be decoded, with its error."""
        rows = batch.rows
        values = rows.number.tolist()
        for position, proto in sorted(rows.protos.items(), key=lambda item: item[0]):
            try:
                values[position] = decode_value(proto, self.names.plugins[rows.plugin[position]])
            except ValueError as error:
                offset = int(rows.offset[position])
                where = f"{batch.path}: value of tag {proto.tag!r} in the record at byte offset {offset}"
                return values[:position], ValueError(f"{where}: {error}")
        return values, None

    def _table_values(self, batch: Batch) -> np.ndarray:
        """The value column of a batch: float64 when every value is a float, else objects."""
        rows = batch.rows
        if not rows.protos:
            return rows.number
        values, error = self._decode_protos(batch)
        if error is not None:
            raise error
        if all(isinstance(values[position], float) for position in rows.protos):
            return np.array(values, np.float64)
        column = np.empty(len(values), object)
        column[:] = values
        return column


def _without_handed_out(rows: Rows, cursor: _Cursor) -> Rows:
    """`rows` less the values of the cursor's record that were already handed out."""
    if not cursor.skip:
        return rows
    positions = np.flatnonzero(rows.offset == cursor.offset)[: cursor.skip]
    keep = np.ones(len(rows), bool)
    keep[positions] = False
    return rows.take(keep)


def _make_table(pieces: list, run_names: list[str], tags: list[str], as_dataframe: bool | None) -> Any:
    """Columns run, tag, step, wall_time, value from (run id, rows, values) pieces."""
    run = np.concatenate(
        [np.full(len(rows), run_id, np.int32) for run_id, rows, _ in pieces] or [np.zeros(0, np.int32)]
    )
    tag, tags = _used_only(
        np.concatenate([rows.tag for _, rows, _ in pieces] or [np.zeros(0, np.int32)]), tags
    )
    step = np.concatenate([rows.step for _, rows, _ in pieces] or [np.zeros(0, np.int64)])
    wall_time = np.concatenate([rows.wall_time for _, rows, _ in pieces] or [np.zeros(0)])
    values = [column for _, _, column in pieces]
    value = np.concatenate(values) if values else np.zeros(0)
    if as_dataframe is None:
        as_dataframe = _pandas_installed()
    if as_dataframe:
        pandas = _import_pandas()
        return pandas.DataFrame(
            {
                "run": pandas.Categorical.from_codes(run, categories=run_names),
                "tag": pandas.Categorical.from_codes(tag, categories=tags),
                "step": step,
                "wall_time": wall_time,
                "value": value,
            }
        )
    return {
        "run": np.array(run_names, object)[run] if run_names else np.zeros(0, object),
        "tag": np.array(tags, object)[tag] if tags else np.zeros(0, object),
        "step": step,
        "wall_time": wall_time,
        "value": value,
    }


def _used_only(codes: np.ndarray, names: list[str]) -> tuple[np.ndarray, list[str]]:
    """Codes into `names` renumbered into the names that occur, and those names."""
    present = np.bincount(codes, minlength=len(names)) > 0
    renumbered = (np.cumsum(present) - 1).astype(np.int32)
    return renumbered[codes] if len(codes) else codes, [
        name for name, used in zip(names, present, strict=True) if used
    ]


def _pandas_installed() -> bool:
    try:
        import pandas  # noqa: F401
    except ImportError:
        return False
    return True


def _import_pandas() -> Any:
    try:
        import pandas
    except ImportError as error:
        raise ImportError("as_dataframe=True needs pandas: pip install pandas") from error
    return pandas


def _existing(path: str | os.PathLike) -> str:
    """`path` as a str; FileNotFoundError when it does not exist."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no event file or directory at {path}")
    return path


def iter_values(
    path: str | os.PathLike,
    *,
    runs: str | Collection[str] | None = None,
    tags: str | Collection[str] | None = None,
    plugins: str | Collection[str] | None = None,
    check_crc: bool = True,
    tolerant: bool = False,
    problems: list[Problem] | None = None,
) -> Iterator[Value]:
    """Every summary value of an event file, a run directory or a logdir, decoded, run by run
    in file order; see `Reader`. Truncated or zero-filled tails (and, with `tolerant`,
    skipped corruption) are appended to `problems` once iteration is done."""
    reader = Reader(
        _existing(path), runs=runs, tags=tags, plugins=plugins, check_crc=check_crc, tolerant=tolerant
    )

    def generate() -> Iterator[Value]:
        yield from reader.values()
        if problems is not None:
            problems.extend(reader.problems)

    return generate()


def load_table(
    path: str | os.PathLike,
    *,
    runs: str | Collection[str] | None = None,
    tags: str | Collection[str] | None = None,
    plugins: str | Collection[str] | None = "scalars",
    check_crc: bool = True,
    tolerant: bool = False,
    as_dataframe: bool | None = None,
) -> Any:
    """The values of an event file, a run directory or a logdir as one table with columns run,
    tag, step, wall_time and value, in file order (not sorted by step).

    A pandas DataFrame (run and tag categorical) when pandas is installed or `as_dataframe`
    is True, else a dict of numpy arrays (run and tag as object arrays of str). By default
    only the scalars plugin's values are loaded and value is float64; with other plugins
    (`plugins=None` for all), value holds the decoded objects (see `Value`) when any is not
    a float.
    """
    reader = Reader(
        _existing(path), runs=runs, tags=tags, plugins=plugins, check_crc=check_crc, tolerant=tolerant
    )
    return reader.table(as_dataframe)
