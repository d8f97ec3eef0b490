"""torch's default histogram buckets (`bins="tensorflow"`), counted as numpy counts them,
in one pass over the values with no sort and no search.

torch's writer builds `default_bins` as TensorBoard's generate_testdata does: 0 and
±1e-12 * 1.1**k (by repeated multiplication, the limits of TF 1.x's histogram without its
±DBL_MAX), about 1,550 edges up to 9.8e19, and hands them to `np.histogram` on the values
as float64: bucket i holds the values in [edge[i], edge[i + 1]), the last bucket also
its right edge; values beyond the outer edges are in no bucket (though in min, max and
the sums). numpy sorts the values to count them. Here each value's bucket is computed
from its bits, exactly:

- A float's top 16 bits (sign, exponent and the leading mantissa bits: 7 of a float32's,
  4 of a float64's) name a *cell*, a range of magnitudes at most 1/16 wide, less than
  the 10% between edges: at most one edge falls inside a cell. Its bucket is the cell's
  first bucket, plus one from the bit pattern at which the value reaches that edge.
- One table entry per cell folds both into an integer: adding the value's magnitude bits
  to it carries into the bucket number exactly at the edge's bit pattern, so a value's
  bucket is `(table[cell] + magnitude_bits) >> low_bits`: one gather, one add, one shift,
  then `np.bincount`. Negative values count in a mirrored half (their magnitudes grow
  as they fall), folded back after counting.

The tables are built from the exact edges with numpy's own comparison (float32 and
float64 compare exactly in float64), so the counts equal `np.histogram`'s on every
finite value, signed zeros and subnormals included. float32 values are counted in their
own bits (a float16's convert exactly); everything else as float64, as torch converts it.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from summarylib.compat.legacy_histogram import BUCKET_LIMITS

# torch's default_bins: TF 1.x's limits without the outer ±DBL_MAX (the same loop builds both).
EDGES = BUCKET_LIMITS[1:-1].copy()
_EDGE_COUNT = EDGES.size
# Counting space: the rank of a non-negative value (0: below the first edge, i + 1: bucket
# i, EDGE_COUNT: beyond the last edge), then the ranks of negative values, mirrored.
_SLOTS = 2 * _EDGE_COUNT + 2
_CHUNK = 65536  # values counted at a time: the temporaries stay in the caches


class _Cells(NamedTuple):
    """The cell table of one float width: `table[cell] + (bits & magnitude)`, shifted
    right by `low_bits`, is a value's slot."""

    bits: type  # the unsigned integer type of the float's width
    low_bits: int  # the bits below a cell's 16
    magnitude: np.unsignedinteger  # the mask of all bits but the sign
    table: np.ndarray  # of `bits` (sums wrap around), indexed by the top 16 bits


def _ranks(values: np.ndarray) -> np.ndarray:
    """Where `np.histogram(values, EDGES)` counts each value: 0 below the first edge,
    i + 1 in bucket i, EDGE_COUNT beyond the last edge (the last bucket holds its right
    edge)."""
    ranks = np.searchsorted(EDGES, values, side="right")
    ranks[values == EDGES[-1]] = _EDGE_COUNT - 1
    return ranks


def _slots(patterns: np.ndarray, float_type: type) -> np.ndarray:
    """The counting slot of each bit pattern (as `float_type`'s unsigned integers)."""
    values = patterns.view(float_type)
    ranks = _ranks(values.astype(np.float64))
    return np.where(np.signbit(values), 2 * _EDGE_COUNT + 1 - ranks, ranks)


@functools.cache
def _cells(float_type: type) -> _Cells:
    """The cell table of float32 or float64 (built once, on first use)."""
    bits = np.uint32 if float_type is np.float32 else np.uint64
    width = np.dtype(bits).itemsize * 8
    low_bits = width - 16
    tops = np.arange(1 << 16, dtype=np.uint64)
    firsts = (tops << np.uint64(low_bits)).astype(bits)
    lasts = firsts | bits((1 << low_bits) - 1)
    finite = np.isfinite(firsts.view(float_type))
    with np.errstate(invalid="ignore"):
        first_slots, last_slots = _slots(firsts, float_type), _slots(lasts, float_type)
    steps = finite & (last_slots != first_slots)
    if (last_slots[steps] != first_slots[steps] + 1).any():
        raise AssertionError("a cell spans more than one edge")
    # Bisect each stepping cell for the first low bits in the next slot.
    low, high = np.zeros(steps.sum(), np.int64), np.full(steps.sum(), (1 << low_bits) - 1)
    while (high - low > 1).any():
        middle = (low + high) // 2
        moved = _slots(firsts[steps] | middle.astype(bits), float_type) != first_slots[steps]
        high, low = np.where(moved, middle, high), np.where(moved, low, middle)
    reach = np.full(tops.size, 1 << low_bits, np.int64)  # no edge: never carries
    reach[steps] = high
    magnitude_tops = tops.astype(np.int64) & 0x7FFF
    table = ((first_slots - magnitude_tops) << low_bits) + ((1 << low_bits) - reach)
    table[~finite] = 0  # never looked up: only finite values are counted
    return _Cells(bits, low_bits, bits((1 << (width - 1)) - 1), table.astype(bits))


def _slot_counts(values: np.ndarray, cells: _Cells) -> np.ndarray:
    """How many of `values` (float32 or float64, contiguous) fall in each slot."""
    counts = np.zeros(_SLOTS, np.intp)
    size = min(values.size, _CHUNK)
    slots, scratch, indices = np.empty(size, cells.bits), np.empty(size, cells.bits), np.empty(size, np.intp)
    for start in range(0, values.size, _CHUNK):
        patterns = values[start : start + _CHUNK].view(cells.bits)
        n = patterns.size
        np.copyto(indices[:n], np.right_shift(patterns, cells.low_bits, out=scratch[:n]))
        np.take(cells.table, indices[:n], mode="clip", out=slots[:n])
        slots[:n] += np.bitwise_and(patterns, cells.magnitude, out=scratch[:n])
        slots[:n] >>= cells.low_bits
        np.copyto(indices[:n], slots[:n])
        counts += np.bincount(indices[:n], minlength=_SLOTS)
    return counts


def default_bins_counts(values: np.ndarray) -> np.ndarray:
    """`np.histogram(values.astype(float), EDGES)[0]` for finite `values`, a contiguous
    float32 or float64 array, without a sort."""
    cells = _cells(np.float32 if values.dtype == np.float32 else np.float64)
    slots = _slot_counts(values, cells)
    ranks = slots[: _EDGE_COUNT + 1] + slots[_EDGE_COUNT + 1 :][::-1]
    return ranks[1:_EDGE_COUNT]
