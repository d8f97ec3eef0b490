"""`Records`: the complete records of a stretch of one file, held in memory, and their CRC check.

Records of one short payload length that are many (a dense group: typically the scalar
events of one tag) are also seen as rows of a numpy array, so that their CRCs are checked
(summarylib.format.batch_crc) and their values read (scalar_matching) for all of them at
once; the headers of the other records are checked together too (header_crc).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from summarylib.format import records as framing
from summarylib.format.batch_crc import row_crcs
from summarylib.format.records import masked
from summarylib.reading.header_crc import header_crcs, uint32_at

_DENSE_MIN = 16  # records of one length that are checked and parsed together
_DENSE_MAX_LENGTH = 4096


@dataclass
class _Group:
    """The records of one payload length in a chunk, when there are many (a dense group)."""

    length: int
    indices: np.ndarray  # ascending
    spacing: int  # bytes from each record to the next, when constant; else 0
    rows: np.ndarray  # payloads as rows


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
        return self._group_all()

    def dense_groups(self) -> list[tuple[int, np.ndarray, np.ndarray]]:
        """(length, record indices, payload rows) for lengths shared by many records; rows are
        uint8, one payload a row, padded to whole 8-byte words, read-only."""
        return [(group.length, group.indices, group.rows) for group in self.groups()]

    def sparse_indices(self) -> np.ndarray:
        """Indices of the records not in a dense group, ascending."""
        self._group_all()
        return self._sparse

    def _group_all(self) -> list[_Group]:
        """The dense groups, found on first use (with the sparse indices of the others)."""
        if self._groups is not None:
            return self._groups
        groups = []
        sparse = [np.zeros(0, np.int64)]
        for length, indices in _by_length(self.lengths):
            if len(indices) >= _DENSE_MIN and 0 < length <= _DENSE_MAX_LENGTH:
                groups.append(self._group(length, indices))
            else:
                sparse.append(indices)
        self._groups = groups
        self._sparse = np.sort(np.concatenate(sparse))
        return groups

    def words(self, group: _Group, at: int) -> np.ndarray:
        """The little-endian uint32 at byte `at` of each record of `group`."""
        if group.spacing:
            start = int(self.starts[group.indices[0]]) + at
            return np.ndarray((len(group.indices),), "<u4", self._view, start, (group.spacing,))
        return uint32_at(self.bytes, self.starts[group.indices] + at)

    def _group(self, length: int, indices: np.ndarray) -> _Group:
        starts = self.starts[indices]
        spacing = np.diff(starts)
        even = len(spacing) and (spacing == spacing[0]).all()
        every = int(spacing[0]) if even else 0
        return _Group(length, indices, every, self._rows(length, indices, every))

    def _rows(self, length: int, indices: np.ndarray, spacing: int) -> np.ndarray:
        """The payloads of records `indices` (of one `length`, `spacing` apart or 0) as rows of
        whole 8-byte words: a view of the buffer when they lie evenly spaced (one tag logged
        alone or in a fixed rhythm), else a copy."""
        width = (length + 7) // 8 * 8
        payloads = self.starts[indices] + 12
        if spacing:
            rows = np.ndarray((len(payloads), width), np.uint8, self._view, int(payloads[0]), (spacing, 1))
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


def first_bad(records: Records) -> tuple[int, str] | None:
    """The first record whose length or payload fails its CRC, with what failed."""
    header_ok = np.ones(len(records), bool)
    payload_ok = np.ones(len(records), bool)
    for group in records.groups():
        indices, length = group.indices, group.length
        header_ok[indices] = records.words(group, 8) == framing.masked_crc32c(struct.pack("<Q", length))
        payload_ok[indices] = masked(row_crcs(group.rows, length)) == records.words(group, 12 + length)
    sparse = records.sparse_indices()
    starts = records.starts[sparse]
    header_ok[sparse] = header_crcs(records.bytes, starts) == uint32_at(records.bytes, starts + 8)
    footers = uint32_at(records.bytes, starts + 12 + records.lengths[sparse])
    for index, footer in zip(sparse.tolist(), footers.tolist(), strict=True):
        payload_ok[index] = framing.masked_crc32c(records.payload(index)) == footer
    ok = header_ok & payload_ok
    if ok.all():
        return None
    bad = int(np.argmin(ok))
    return bad, "length CRC mismatch" if not header_ok[bad] else "payload CRC mismatch"
