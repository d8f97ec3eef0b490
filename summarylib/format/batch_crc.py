"""CRC32C of many equal-length records at once, with numpy.

CRC is linear over GF(2): two messages of one length differ in CRC by the xor of the
contributions of the bytes where they differ. Events of one tag differ only in wall time,
step and value, so the CRCs of thousands of them cost one CRC and a table lookup per
differing byte column. The writer frames batches of scalar events this way; the reader
checks batches of records this way. These are plain CRCs: TFRecord's mask is
summarylib.format.records'.
"""

from __future__ import annotations

import threading

import crc32c
import numpy as np

_POLYNOMIAL = 0x82F63B78  # reflected Castagnoli


def _crc_table() -> np.ndarray:
    """The byte table of reflected CRC32C."""
    table = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        table = np.where(table & 1, (table >> 1) ^ np.uint32(_POLYNOMIAL), table >> 1).astype(np.uint32)
    return table


TABLE = _crc_table()
_shifted = [TABLE]  # _shifted[d][b]: CRC contribution of byte b followed by d zero bytes
_shifted_lock = threading.Lock()


def byte_table(distance: int) -> np.ndarray:
    """The CRC contribution (no init, no final xor) of each byte value `distance` bytes
    before the end of a message."""
    with _shifted_lock:
        while len(_shifted) <= distance:
            last = _shifted[-1]
            _shifted.append((last >> 8) ^ TABLE[last & 0xFF])
        return _shifted[distance]


def row_crcs(rows: np.ndarray, length: int | None = None) -> np.ndarray:
    """The CRC32C of each row's first `length` bytes (all of them by default)."""
    data = rows if length is None else rows[:, :length]
    length = data.shape[1]
    first = data[0]
    crcs = np.full(len(data), crc32c.crc32c(first.tobytes()), np.uint32)
    for column in np.flatnonzero(data.min(axis=0) != data.max(axis=0)).tolist():
        crcs ^= byte_table(length - 1 - column)[data[:, column] ^ first[column]]
    return crcs
