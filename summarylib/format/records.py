"""TFRecord framing: the container format of event files.

A record is the little-endian uint64 payload length, the masked CRC32C of those 8 bytes,
the payload, and the masked CRC32C of the payload. The mask makes a CRC of data that
itself contains CRCs less likely to collide; every TFRecord reader expects it.
"""

from __future__ import annotations

import struct

import crc32c as _crc32c
import numpy as np

from summarylib.format import batch_crc

_MASK_DELTA = 0xA282EAD8
_U32 = 0xFFFFFFFF
_LENGTH = struct.Struct("<Q")
_CRC = struct.Struct("<I")
_HEADER = struct.Struct("<QI")

HEADER_SIZE = _HEADER.size
FOOTER_SIZE = _CRC.size


def crc32c(data: bytes) -> int:
    """The plain CRC32C (Castagnoli) of `data`."""
    return _crc32c.crc32c(data)


def masked_crc32c(data: bytes) -> int:
    """The CRC32C of `data`, rotated and offset as TFRecord stores it."""
    crc = _crc32c.crc32c(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & _U32


def masked(crcs: np.ndarray) -> np.ndarray:
    """Many plain CRCs (see summarylib.format.batch_crc) masked as `masked_crc32c` masks one."""
    crcs = crcs.astype(np.uint32)
    return ((crcs >> np.uint32(15)) | (crcs << np.uint32(17))) + np.uint32(_MASK_DELTA)


def header(length: int) -> bytes:
    """The 12 bytes before a payload of `length` bytes."""
    packed = _LENGTH.pack(length)
    return packed + _CRC.pack(masked_crc32c(packed))


def frame(payload: bytes) -> bytes:
    """One complete record holding `payload`."""
    return b"".join((header(len(payload)), payload, _CRC.pack(masked_crc32c(payload))))


class Framer:
    """Frames records one by one, with headers cached by length (the events of one tag
    usually have one length)."""

    def __init__(self) -> None:
        self._headers: dict[int, bytes] = {}

    def frame(self, payload: bytes) -> tuple[bytes, bytes, bytes]:
        """The record of `payload`, as its three parts: header, payload, footer (joining
        them would copy the payload, which may be megabytes)."""
        size = len(payload)
        head = self._headers.get(size)
        if head is None:
            if len(self._headers) >= 4096:
                self._headers.clear()
            head = self._headers[size] = header(size)
        return head, payload, _CRC.pack(masked_crc32c(payload))


def frame_rows(rows: np.ndarray) -> np.ndarray:
    """The records of many payloads of one length, given and returned as rows of uint8."""
    count, length = rows.shape
    framed = np.empty((count, HEADER_SIZE + length + FOOTER_SIZE), np.uint8)
    framed[:, :HEADER_SIZE] = np.frombuffer(header(length), np.uint8)
    framed[:, HEADER_SIZE : HEADER_SIZE + length] = rows
    footers = masked(batch_crc.row_crcs(rows)).astype("<u4")
    framed[:, HEADER_SIZE + length :] = footers.view(np.uint8).reshape(count, FOOTER_SIZE)
    return framed


# Rows scattered at once by interleave: its index array takes 8 bytes per byte moved.
_SCATTER_ROWS = 2048


def interleave(groups: list[tuple[np.ndarray, np.ndarray]], count: int) -> bytes:
    """The rows of `groups`, `(positions, rows)` pairs covering positions 0..count-1 once,
    as one byte string in position order."""
    return interleaved(groups, count).tobytes()


def interleaved(groups: list[tuple[np.ndarray, np.ndarray]], count: int) -> np.ndarray:
    """`interleave` as a flat uint8 array, which a write joins without a copy to bytes
    first (one group's rows, already in order, are not copied at all)."""
    if len(groups) == 1:  # one tag: already in order
        return groups[0][1].reshape(-1)
    sizes = np.zeros(count, np.int64)
    for positions, rows in groups:
        sizes[positions] = rows.shape[1]
    offsets = np.cumsum(sizes) - sizes
    out = np.empty(int(sizes.sum()), np.uint8)
    for positions, rows in groups:
        columns = np.arange(rows.shape[1])
        for start in range(0, len(rows), _SCATTER_ROWS):  # bounded index arrays
            block = slice(start, start + _SCATTER_ROWS)
            out[offsets[positions[block]][:, np.newaxis] + columns] = rows[block]
    return out


def parse_header(header: bytes) -> tuple[int, bool]:
    """The payload length of a record header, and whether the header's CRC matches."""
    length, crc = _HEADER.unpack(header)
    return length, crc == masked_crc32c(header[:8])


def footer_matches(payload: bytes, footer: bytes) -> bool:
    """Whether `footer` is the masked CRC of `payload`."""
    return _CRC.unpack(footer)[0] == masked_crc32c(payload)
