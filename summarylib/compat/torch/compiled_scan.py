"""The default-bins scan of large float32 and float64 snapshots as one compiled loop, where
numba is installed (`pip install summarylib[fast]`); numpy's passes are the fallback.

numpy counts a block of values in seven passes over memory (a shift, two integer
conversions, a table lookup, an add, a shift and a bincount: about 2.2 ns a value on this
project's machines), then converts, sums and squares it in three more. Here one loop does
what `default_bins` does with the same cell table, while each run of at most 128 values
is in the registers and the first-level cache: about 1.5 ns a value for all of it.

- Counting: a value's slot is `((table[bits >> low_bits] + bits) mod 2**width) >>
  low_bits`, as in `default_bins`, into four count arrays taking turns.
- The sum is numpy's pairwise sum of the values as float64, bit for bit: the same halves
  (the first a multiple of 8 long) down to runs of at most 128, each summed in eight
  accumulators combined as numpy combines them, or in order below 8 values. The
  recursion is a loop over an explicit stack: numba's calls between compiled functions
  count references to every array they pass, and thousands of them cost more than the
  loop.
- The sum of squares is the same pairwise sum of the squares (torch's is BLAS's dot:
  equal to the last bits or so, as numpy's path is).
- min and max stay numpy's (vectorised, and NaN as numpy finds it).

When numba compiles it, where its machine code is cached, which snapshots it serves
(`COMPILED_FROM` values or more) and how to turn it off (`SUMMARYLIB_NUMBA=0`): as for
every compiled count, see summarylib.ops.histogram.compiled.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from summarylib.ops.histogram.compiled import COUNTERS, numba_module

_STACK = 64  # halves deep: more than any array's log2(size / 128)

Kernel = Callable[..., tuple[float, float]]


def _kernel_source(numba: Any) -> Kernel:
    """The compiled loop: counts each value's slot into `counts` (shape (4, slots)) and
    returns numpy's pairwise sums of the values and of their squares, as float64."""

    @numba.njit(inline="always")
    def combined(accumulators):
        """numpy's sum of its eight accumulators, in its order."""
        first, second = accumulators[0] + accumulators[1], accumulators[2] + accumulators[3]
        third, fourth = accumulators[4] + accumulators[5], accumulators[6] + accumulators[7]
        return (first + second) + (third + fourth)

    @numba.njit(nogil=True, cache=True)
    def pairwise_scan(values, bits, table, low_bits, mask, counts):
        starts = np.empty(_STACK, np.int64)
        sizes = np.empty(_STACK, np.int64)
        lefts = np.empty(_STACK, np.float64)  # a half's sums, once its left half is done
        left_squares = np.empty(_STACK, np.float64)
        left_done = np.zeros(_STACK, np.bool_)
        sums, sums_of_squares = np.empty(8), np.empty(8)  # numpy's eight accumulators
        top = 0
        starts[0], sizes[0] = 0, values.size
        while True:
            start, n = starts[top], sizes[top]
            if n > 128:  # split as numpy does, and do the left half first
                half = n // 2 - (n // 2) % 8
                left_done[top] = False
                top += 1
                starts[top], sizes[top] = start, half
                continue
            end = start + n
            quads = start + n - n % COUNTERS
            for j in range(start, quads, COUNTERS):
                for k in range(COUNTERS):
                    p = bits[j + k]
                    counts[k, ((table[p >> low_bits] + p) & mask) >> low_bits] += 1
            for j in range(quads, end):
                p = bits[j]
                counts[0, ((table[p >> low_bits] + p) & mask) >> low_bits] += 1
            if n < 8:  # numpy sums a short run in order, from -0.0
                total, squares = -0.0, -0.0
                i = start
            else:  # eight accumulators, then the rest in order
                for k in range(8):
                    x = np.float64(values[start + k])
                    sums[k], sums_of_squares[k] = x, x * x
                i = start + 8
                eights = end - n % 8
                while i < eights:
                    for k in range(8):
                        x = np.float64(values[i + k])
                        sums[k] += x
                        sums_of_squares[k] += x * x
                    i += 8
                total, squares = combined(sums), combined(sums_of_squares)
            while i < end:
                x = np.float64(values[i])
                total += x
                squares += x * x
                i += 1
            while True:  # hand the sums up: a left half waits for its right one
                if top == 0:
                    return total, squares
                top -= 1
                if left_done[top]:
                    total, squares = lefts[top] + total, left_squares[top] + squares
                    continue
                lefts[top], left_squares[top] = total, squares
                left_done[top] = True
                half = sizes[top] // 2 - (sizes[top] // 2) % 8
                starts[top + 1], sizes[top + 1] = starts[top] + half, sizes[top] - half
                top += 1
                break

    return pairwise_scan


@functools.cache
def kernel() -> Kernel | None:
    """The compiled loop, or None where numba does not serve (see numba_module); numba
    compiles it on its first call."""
    numba = numba_module()
    return None if numba is None else _kernel_source(numba)


def slot_counts(
    values: np.ndarray, table: np.ndarray, low_bits: int, slots: int
) -> tuple[np.ndarray, float, float]:
    """The counts of each slot (as `default_bins` numbers them) of flat, contiguous float32
    or float64 `values` and their table, and numpy's pairwise sums of the values and of
    their squares as float64, from the compiled loop (which must exist: see `kernel`)."""
    loop = kernel()
    assert loop is not None, "slot_counts without numba"
    bits_type = table.dtype.type
    counts = np.zeros((COUNTERS, slots), np.int64)
    total, squares = loop(
        values,
        values.view(bits_type),
        table,
        bits_type(low_bits),
        bits_type(np.iinfo(bits_type).max),
        counts,
    )
    return counts.sum(axis=0), 0.0 + total, squares  # numpy's sum starts from +0.0
