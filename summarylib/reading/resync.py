"""Finding the next record after damage: record headers whose CRC matches, anywhere in a
stretch of bytes (with numpy, many positions at once), and whether a whole valid record starts
at one of them, or a header whose record runs past the end of the file (one being written)."""

from __future__ import annotations

from typing import Any

import numpy as np

from summarylib.format import records as framing
from summarylib.reading.header_crc import header_crcs, uint32_at

_WINDOW = 4 << 20


def _read(file: Any, position: int, count: int) -> tuple[np.ndarray, int]:
    """`count` bytes from `position` (fewer at the end), and how many there were."""
    file.seek(position)
    data = file.read(count)
    return np.frombuffer(data, np.uint8), len(data)


def header_candidates(buffer: Any, count: int) -> list[int]:
    """Positions in `buffer[:count]` where a record header with a matching CRC starts (of a
    payload under 4 GiB: a longer one is taken for damage). Twelve zero bytes are no header
    (the CRC of a zero length is not zero): a run of zeros costs no CRCs."""
    data = np.frombuffer(buffer, np.uint8, count)
    positions = count - 11
    if positions <= 0:
        return []
    high = np.zeros(positions, np.uint8)
    for k in range(4, 8):
        high |= data[k : k + positions]
    rest = np.zeros(positions, np.uint8)
    for k in (0, 1, 2, 3, 8, 9, 10, 11):
        rest |= data[k : k + positions]
    candidates = np.flatnonzero((high == 0) & (rest != 0))
    matching = header_crcs(data, candidates) == uint32_at(data, candidates + 8)
    return candidates[matching].tolist()


def _record_at(file: Any, position: int, size: int) -> str | None:
    """ "whole" when a whole record with matching CRCs starts at `position`, "cut" when a header
    with a matching CRC does whose record runs past `size`, else None."""
    file.seek(position)
    length, header_ok = framing.parse_header(file.read(12))
    if not header_ok:
        return None
    if position + length + 16 > size:
        return "cut"
    rest = file.read(length + 4)
    whole = len(rest) == length + 4 and framing.footer_matches(rest[:length], rest[length:])
    return "whole" if whole else None


def next_record(file: Any, position: int, size: int, window: int = _WINDOW) -> tuple[int | None, int | None]:
    """The offset of the next whole valid record at or after `position`, if any, and when there
    is none, that of the first header whose record runs past the end of the file, if any;
    looks at `window` bytes at a time."""
    cut = None
    while position + 12 <= size:
        data, count = _read(file, position, min(window, size - position))
        for candidate in header_candidates(data, count):
            found = _record_at(file, position + candidate, size)
            if found == "whole":
                return position + candidate, None
            if found == "cut" and cut is None:
                cut = position + candidate
        if position + count >= size:
            break
        position += count - 11
    return None, cut


def resync(file: Any, position: int, size: int, window: int = _WINDOW) -> int | None:
    """The offset of the next whole valid record at or after `position`, if any."""
    return next_record(file, position, size, window)[0]
