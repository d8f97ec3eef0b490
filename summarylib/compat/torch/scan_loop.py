"""compat.torch's default-bins scan as one loop compiled by numba (imported only where
numba is installed: see compiled_scan, which says what the loop does and why)."""

from __future__ import annotations

import numba
import numpy as np

from summarylib.ops.histogram.compiled import COUNTERS

_STACK = 64  # halves deep: more than any array's log2(size / 128)


@numba.njit(inline="always")
def combined(accumulators):
    """numpy's sum of its eight accumulators, in its order."""
    first, second = accumulators[0] + accumulators[1], accumulators[2] + accumulators[3]
    third, fourth = accumulators[4] + accumulators[5], accumulators[6] + accumulators[7]
    return (first + second) + (third + fourth)


@numba.njit(nogil=True, cache=True)
def pairwise_scan(values, bits, table, low_bits, mask, counts):
    """Counts each value's slot into `counts` (shape (COUNTERS, slots)) and returns
    numpy's pairwise sums of the values and of their squares, as float64."""
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
