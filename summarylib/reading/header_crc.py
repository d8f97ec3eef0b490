"""CRC32C of many record headers at once, with numpy, and the words that hold stored CRCs.

The reader's half of batch CRC checking. The payloads of many records of one length are
checked with summarylib.format.batch_crc (CRC32C is linear, so only the byte columns in which
they differ cost anything), which frames them the same way on the write side; the 8-byte
length fields of records of any length (the sparse ones, and candidates when resyncing past
corruption) are checked here, a byte at a time for all of them, with its byte table.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from summarylib.format.batch_crc import TABLE
from summarylib.format.records import masked


def header_crcs(data: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """The masked CRC32C of the 8 bytes at each position of `data`."""
    crcs = np.full(len(positions), 0xFFFFFFFF, np.uint32)
    for k in range(8):
        crcs = TABLE[(crcs ^ data[positions + k]) & 0xFF] ^ (crcs >> np.uint32(8))
    return masked(crcs ^ np.uint32(0xFFFFFFFF))


def uint32_at(data: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """The little-endian uint32 at each position of `data`."""
    return sliding_window_view(data, 4)[positions].copy().view("<u4").reshape(len(positions))
