"""Records of one length matched against scalar shapes: `match_scalars`.

The second half of the byte-level fast path: rows of records of one length whose bytes agree
with a `ScalarShape` everywhere except in the wall time, step and value have its structure.
Rows are grouped by a hash of the bytes a shape fixes and compared a word at a time, so the
scalar events of one tag or of many are found with a few numpy operations; the rest is left
to protobuf.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from summarylib.reading.scalar_shapes import ScalarShape, scalar_shape

_SIMPLE_ROUNDS = 16  # layouts looked for one at a time in a group of records of one length
_MAX_LAYOUTS = 1024  # layouts looked for at once afterwards (many tags of one length)


def _hashes(words: np.ndarray, positions: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A 64-bit hash of the bytes under `mask` of each row at `positions`."""
    every_row = len(positions) == len(words)
    hashed = np.zeros(len(positions), np.uint64)
    for column, bits in enumerate(mask.tolist()):
        if bits:
            hashed *= np.uint64(0x9E3779B97F4A7C15)
            hashed ^= (words[:, column] if every_row else words[positions, column]) & np.uint64(bits)
    return hashed


def match_scalars(
    rows: np.ndarray, payload: Callable[[int], bytes]
) -> tuple[list[tuple[ScalarShape, np.ndarray]], np.ndarray]:
    """Split records of one length into scalar events by layout and the rest.

    `rows` holds one record payload per row (uint8, zero padded to a multiple of 8 bytes);
    `payload(i)` gives row i's bytes. Returns [(shape, row positions)] and the positions
    of the rows left to protobuf.
    """
    words = rows.view("<u8")
    everything = np.arange(len(rows))
    shape = scalar_shape(payload(0))
    if shape is not None and _fits(rows, words, everything, shape).all():
        return [(shape, everything)], everything[:0]  # one layout for them all: the common case
    found: list[tuple[ScalarShape, np.ndarray]] = []
    rest = [everything[:0]]
    for positions in _by_prefix(rows):
        more, left = _match_positions(rows, words, positions, payload)
        found += more
        rest.append(left)
    return found, np.sort(np.concatenate(rest))


def _by_prefix(rows: np.ndarray) -> list[np.ndarray]:
    """Row positions grouped by where the summary starts (whether there is a wall time, and
    how wide the step is), so that each group is likely to share one layout."""
    count, width = rows.shape
    everything = np.arange(count)
    if width < 24:
        return [everything]
    wall = rows[:, 0] == 0x09
    start = np.where(wall, 9, 0)
    step_width = np.zeros(count, np.int64)
    going = rows[everything, start] == 0x10
    for k in range(10):
        if not going.any():
            break
        step_width += going
        going &= rows[everything, start + 1 + k] >= 0x80
    key = wall * 16 + step_width
    if key.min() == key.max():
        return [everything]
    _, inverse = np.unique(key, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    return np.split(order, np.cumsum(np.bincount(inverse))[:-1])


def _match_positions(
    rows: np.ndarray, words: np.ndarray, positions: np.ndarray, payload: Callable[[int], bytes]
) -> tuple[list[tuple[ScalarShape, np.ndarray]], np.ndarray]:
    """`match_scalars` for the rows at `positions`. Round after round, the layout of the first
    undecided row is looked for among the rows with the same hash of its fixed bytes (one
    tag each); after `_SIMPLE_ROUNDS`, the rest is grouped by hash at once."""
    undecided = positions
    found: list[tuple[ScalarShape, np.ndarray]] = []
    rest: list[int] = []
    hashed, hashed_for = np.zeros(0, np.uint64), None
    for _ in range(_SIMPLE_ROUNDS):
        if not undecided.size:
            break
        shape = scalar_shape(payload(int(undecided[0])))
        if shape is None:
            rest.append(int(undecided[0]))
            undecided, hashed = undecided[1:], hashed[1:]
            continue
        if hashed_for != shape.variable:
            hashed, hashed_for = _hashes(words, undecided, shape.mask), shape.variable
        same = np.flatnonzero(hashed == hashed[0])
        fitting = same[_fits(rows, words, undecided[same], shape)]
        found.append((shape, undecided[fitting]))
        keep = np.ones(len(undecided), bool)
        keep[fitting] = False
        undecided, hashed = undecided[keep], hashed[keep]
    if undecided.size:
        undecided = _match_many(rows, words, undecided, payload, found)
    return found, np.concatenate([np.array(rest, np.int64), undecided]).astype(np.int64)


def _match_many(
    rows: np.ndarray,
    words: np.ndarray,
    undecided: np.ndarray,
    payload: Callable[[int], bytes],
    found: list[tuple[ScalarShape, np.ndarray]],
) -> np.ndarray:
    """The layouts of many tags at once: rows grouped by the hash of the fixed bytes of the
    first one's layout, each group tried with its first row's; appends to `found` and
    returns the rows left."""
    shape = scalar_shape(payload(int(undecided[0])))
    if shape is None:
        return undecided
    _, first, inverse = np.unique(
        _hashes(words, undecided, shape.mask), return_index=True, return_inverse=True
    )
    groups = np.split(np.argsort(inverse, kind="stable"), np.cumsum(np.bincount(inverse))[:-1])
    keep = np.ones(len(undecided), bool)
    for index in np.argsort(first)[:_MAX_LAYOUTS].tolist():
        group = undecided[groups[index]]
        candidate = scalar_shape(payload(int(group[0])))
        if candidate is not None and candidate.variable == shape.variable:
            fitting = _fits(rows, words, group, candidate)
            found.append((candidate, group[fitting]))
            keep[groups[index][fitting]] = False
    return undecided[keep]


def _fits(rows: np.ndarray, words: np.ndarray, positions: np.ndarray, shape: ScalarShape) -> np.ndarray:
    """Per row at `positions`, whether it has the layout of `shape`: its fixed bytes, and a
    step varint of the same width (a word at a time, so no temporary exceeds a column)."""
    every_row = len(positions) == len(words)
    fits = shape.varints_end_at_width(rows, positions)
    for column, (mask, pattern) in enumerate(zip(shape.mask.tolist(), shape.pattern.tolist(), strict=True)):
        if mask:
            word = words[:, column] if every_row else words[positions, column]
            fits &= (word & np.uint64(mask)) == np.uint64(pattern)
    return fits
