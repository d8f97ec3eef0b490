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
- One table entry per cell folds both into an integer: adding the value's bits to it
  carries into the bucket number exactly at the edge's bit pattern, so a value's bucket
  is `(table[cell] + bits) >> low_bits`: one gather, one add, one shift, then
  `np.bincount`. Negative values count in a mirrored half (their magnitudes grow as they
  fall), folded back after counting.

The tables are built from the exact edges with numpy's own comparison (float32 and
float64 compare exactly in float64), so the counts equal `np.histogram`'s on every
finite value, signed zeros and subnormals included. float32 values are counted in their
own bits (a float16's convert exactly); everything else as float64, as torch converts it.

The same pass (`scan`) converts the values to float64, takes their min and max and sums
them and their squares, a block at a time while the block is in the caches. The sum is
numpy's pairwise sum bit for bit (torch's `values.sum()`): the blocks are the halves
numpy splits the array into (the first a multiple of 8 long) down to blocks of at most
65,536, each summed by numpy's add whole, and added up in numpy's order. The sum of
squares adds each block's sum of products (numpy's einsum: one pass, at half the cost of
squaring and then summing) in the same order; torch's is `values.dot(values)`, BLAS's
dot, whose order belongs to the BLAS build, the CPU and its thread count: the two agree
to the last bits (a relative 1e-14 or so), not always in them. Calling BLAS here would
match them, but BLAS splits a long vector between its threads, and on a machine whose
cores are busy (a training process) the writer's thread then waits milliseconds for
them: 100,000 values took 16 ms instead of 0.7 on two busy cores.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

import numpy as np

from summarylib.compat.legacy_histogram import BUCKET_LIMITS
from summarylib.compat.torch import compiled_scan
from summarylib.ops.histogram import compiled

# torch's default_bins: TF 1.x's limits without the outer ±DBL_MAX (the same loop builds both).
EDGES = BUCKET_LIMITS[1:-1].copy()
_EDGE_COUNT = EDGES.size
# Counting space: the rank of a non-negative value (0: below the first edge, i + 1: bucket
# i, EDGE_COUNT: beyond the last edge), then the ranks of negative values, mirrored.
_SLOTS = 2 * _EDGE_COUNT + 2
_LEAF = 65536  # the most values handled at a time: their temporaries stay in the caches


class _Cells(NamedTuple):
    """The cell table of one float width: `table[cell] + bits` (wrapping around), shifted
    right by `low_bits`, is a value's slot."""

    bits: type  # the unsigned integer type of the float's width
    low_bits: int  # the bits below a cell's 16
    table: np.ndarray  # of `bits`, indexed by the top 16 bits


class Scan(NamedTuple):
    """What one pass over the values finds (see `scan`)."""

    counts: np.ndarray | None  # np.histogram(values.astype(float), EDGES)[0], if asked for
    low: Any  # the least and the greatest value, in the values' dtype (NaN if any is)
    high: Any
    total: float  # values.astype(float).sum(), bit for bit: numpy's pairwise sum
    squares: float  # the sum of the squares, in the same blocks (torch's dot: to the last bits)


def _counted_type(values: np.ndarray) -> type:
    """The float type whose bits count `values`: float32 for float32 and float16 (which
    converts exactly), float64 for the rest (as torch converts them)."""
    return np.float32 if values.dtype in (np.float16, np.float32) else np.float64


def _ranks(values: np.ndarray) -> np.ndarray:
    """Where `np.histogram(values, EDGES)` counts each value: 0 below the first edge,
    i + 1 in bucket i, EDGE_COUNT beyond the last edge (the last bucket holds its right
    edge)."""
    ranks = np.searchsorted(EDGES, values, side="right")
    ranks[values == EDGES[-1]] = _EDGE_COUNT - 1
    return ranks


def _slots(patterns: np.ndarray, float_type: type) -> np.ndarray:
    """The counting slot of each bit pattern (as `float_type`'s unsigned integers)."""
    values: np.ndarray = patterns.view(float_type)
    ranks = _ranks(values.astype(np.float64))
    return np.where(np.signbit(values), 2 * _EDGE_COUNT + 1 - ranks, ranks)


@functools.cache
def _cells(float_type: type) -> _Cells:
    """The cell table of float32 or float64 (built once, on first use)."""
    bits = np.uint32 if float_type is np.float32 else np.uint64
    low_bits = np.dtype(bits).itemsize * 8 - 16
    tops = np.arange(1 << 16, dtype=np.uint64)
    firsts = (tops << np.uint64(low_bits)).astype(bits)
    lasts = firsts | bits((1 << low_bits) - 1)
    finite = np.isfinite(firsts.view(float_type))
    with np.errstate(invalid="ignore"):
        first_slots, last_slots = _slots(firsts, float_type), _slots(lasts, float_type)
    first_slots[~finite] = 0  # NaN and ±Inf: slot 0, a count no one reads
    steps = finite & (last_slots != first_slots)
    if (last_slots[steps] != first_slots[steps] + 1).any():
        raise AssertionError("a cell spans more than one edge")
    # Bisect each stepping cell for the first low bits in the next slot.
    low, high = np.zeros(steps.sum(), np.int64), np.full(steps.sum(), (1 << low_bits) - 1)
    while (high - low > 1).any():
        middle = (low + high) // 2
        moved = _slots(firsts[steps] | middle.astype(bits), float_type) != first_slots[steps]
        high, low = np.where(moved, middle, high), np.where(moved, low, middle)
    reach = np.full(tops.size, 1 << low_bits, np.uint64)  # no edge: never carries
    reach[steps] = high
    # (slot << low_bits) + low bits + 2**low_bits - reach, less the cell's own top bits: a
    # value's bits added carry into slot + 1 exactly from `reach` on (modulo 2**width).
    table = ((first_slots.astype(np.uint64) - tops) << np.uint64(low_bits)) + ((1 << low_bits) - reach)
    return _Cells(bits, low_bits, table.astype(bits))


class _Pass:
    """One pass over `values` in numpy's pairwise-sum blocks (see `scan`)."""

    def __init__(self, values: np.ndarray, count: bool) -> None:
        self.values = values
        size = min(values.size, _LEAF)
        self.buffer = np.empty(size)  # one block as float64
        self.lows: list[Any] = []
        self.highs: list[Any] = []
        self.counts = np.zeros(_SLOTS, np.intp) if count else None
        self.counted = _counted_type(values)
        self.cells = _cells(self.counted)
        self.slots: np.ndarray = np.empty(size, self.cells.bits)
        self.scratch: np.ndarray = np.empty(size, self.cells.bits)
        self.indices = np.empty(size, np.intp)

    def sums(self, start: int, size: int) -> tuple[float, float]:
        """numpy's pairwise sums of values[start:start + size] and of their squares, as
        float64, in numpy's own order: halves (the first a multiple of 8) down to blocks
        numpy's add sums whole."""
        if size > _LEAF:
            half = size // 2 - size // 2 % 8
            total, squares = self.sums(start, half)
            more, more_squares = self.sums(start + half, size - half)
            return total + more, squares + more_squares
        return self.block(start, size)

    def block(self, start: int, size: int) -> tuple[float, float]:
        """Converts, counts and sums one block while it is in the caches."""
        values = self.values[start : start + size]
        wide = values if values.dtype == np.float64 else self.buffer[:size]
        if wide is not values:
            np.copyto(wide, values)
        self.lows.append(values.min())
        self.highs.append(values.max())
        if self.counts is not None:
            counted = wide if self.counted is np.float64 else values.astype(np.float32, copy=False)
            self.count(counted)
        # einsum's sum of products: one pass, no squares in memory, and never BLAS (see above)
        return float(np.add.reduce(wide)), float(np.einsum("i,i->", wide, wide))

    def count(self, values: np.ndarray) -> None:
        """Adds the slots of a block of float32 or float64 values to the counts."""
        cells, n = self.cells, values.size
        patterns: np.ndarray = values.view(cells.bits)
        slots, scratch, indices = self.slots[:n], self.scratch[:n], self.indices[:n]
        np.copyto(indices, np.right_shift(patterns, cells.low_bits, out=scratch))
        np.take(cells.table, indices, mode="clip", out=slots)
        slots += patterns
        slots >>= cells.low_bits
        np.copyto(indices, slots)
        self.counts += np.bincount(indices, minlength=_SLOTS)  # type: ignore[operator]


def scan(values: np.ndarray, count: bool = True) -> Scan:
    """One pass over `values` (flat, contiguous, any real dtype): torch's default-bins
    counts (if `count`), min and max, and numpy's sums of the values as float64 and of
    their squares, each block of values converted, counted and summed while it is in the
    caches (in one compiled loop where numba is installed: see `compiled_scan`)."""
    if count and values.size >= compiled.COMPILED_FROM and compiled_scan.kernel() is not None:
        counted_type = _counted_type(values)
        cells = _cells(counted_type)
        counted: np.ndarray = values.astype(counted_type, copy=False)
        slots, total, squares = compiled_scan.slot_counts(counted, cells.table, cells.low_bits, _SLOTS)
        return Scan(_bucket_counts(slots), values.min(), values.max(), total, squares)
    return numpy_scan(values, count)


def numpy_scan(values: np.ndarray, count: bool = True) -> Scan:
    """`scan` in numpy's passes, a block at a time (where numba is not installed, the
    values are few, or no counts are asked for)."""
    found = _Pass(values, count)
    total, squares = found.sums(0, values.size)
    counts = None if found.counts is None else _bucket_counts(found.counts)
    return Scan(counts, np.min(found.lows), np.max(found.highs), total, squares)


def _bucket_counts(slots: np.ndarray) -> np.ndarray:
    """np.histogram's counts of EDGES from the counts of the slots (the negative values'
    ranks folded back onto the non-negative ones)."""
    ranks = slots[: _EDGE_COUNT + 1] + slots[_EDGE_COUNT + 1 :][::-1]
    return ranks[1:_EDGE_COUNT]
