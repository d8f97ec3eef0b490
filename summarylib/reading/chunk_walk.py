"""Finding the records in a chunk of a file by following their length fields.

Only where records start and how long they are: CRCs are checked afterwards, for all the
records of a chunk at once (records.first_bad). Stretches where record lengths repeat with a
short period (tags logged in a fixed rhythm) are followed with numpy, the rest in Python.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

RECORD_HEADER = struct.Struct("<QI")  # payload length, masked CRC32C of the length


def walk(buffer: memoryview, end: int) -> tuple[np.ndarray, np.ndarray, int]:
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


def _walk_some(
    buffer: memoryview, position: int, end: int, count: int
) -> tuple[list[int], list[int], int, bool]:
    """Up to `count` records from `position`: starts, lengths, where it stopped, and whether it
    stopped early (the next record does not fit, or its header is all zeros)."""
    unpack = RECORD_HEADER.unpack_from
    starts: list[int] = []
    lengths: list[int] = []
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
