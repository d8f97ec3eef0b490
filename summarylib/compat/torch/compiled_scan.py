"""The default-bins scan of large float32 and float64 snapshots as one compiled loop, where
numba is installed (`pip install -e '.[fast]'` from a clone); numpy's passes are the fallback.

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

import numpy as np

from summarylib.ops.histogram import compiled
from summarylib.ops.histogram.compiled import COUNTERS, compiled_loop
from summarylib.ops.histogram.shared_work import shared

_SHARED_LEVELS = compiled.SHARED_PIECES.bit_length() - 1  # halves of halves, SHARED_PIECES of them

Kernel = Callable[..., tuple[float, float]]


@functools.cache
def kernel() -> Kernel | None:
    """The compiled loop (summarylib.compat.torch.scan_loop), or None where numba does not
    serve (see numba_module); numba compiles it on its first call, or loads it from its
    cache."""
    return compiled_loop("summarylib.compat.torch.scan_loop", "pairwise_scan")


def slot_counts(
    values: np.ndarray, table: np.ndarray, low_bits: int, slots: int
) -> tuple[np.ndarray, float, float]:
    """The counts of each slot (as `default_bins` numbers them) of flat, contiguous float32
    or float64 `values` and their table, and numpy's pairwise sums of the values and of
    their squares as float64, from the compiled loop (which must exist: see `kernel`).

    From compiled.SHARED_FROM values on, the loop runs on numpy's halves of the halves (a subtree
    each of numpy's pairwise sum, so the sums are the same bit for bit), shared with a
    helper thread (see shared_work), and their sums are added as numpy adds them."""
    loop = kernel()
    assert loop is not None, "slot_counts without numba"
    bits_type = table.dtype.type
    bits, mask = values.view(bits_type), bits_type(np.iinfo(bits_type).max)

    def count(start: int, size: int) -> tuple[np.ndarray, float, float]:
        counts = np.zeros((COUNTERS, slots), np.int64)
        end = start + size
        total, squares = loop(values[start:end], bits[start:end], table, bits_type(low_bits), mask, counts)
        return counts, total, squares

    levels = _SHARED_LEVELS if values.size >= compiled.SHARED_FROM else 0
    pieces = _halves(0, values.size, levels)
    found = shared([functools.partial(count, start, size) for start, size in pieces])
    counts = np.sum([piece[0] for piece in found], axis=(0, 1))
    total, squares = _added(found, levels)
    return counts, 0.0 + total, squares  # numpy's sum starts from +0.0


def _halves(start: int, size: int, levels: int) -> list[tuple[int, int]]:
    """(start, size) of the pieces numpy's pairwise sum splits `size` values into,
    `levels` splits deep (each split: the first half a multiple of 8 long)."""
    if levels == 0:
        return [(start, size)]
    if size <= 128:  # numpy sums this many whole: SHARED_FROM keeps pieces above it
        raise AssertionError(f"{size} values split below numpy's blocks")
    half = size // 2 - (size // 2) % 8
    return _halves(start, half, levels - 1) + _halves(start + half, size - half, levels - 1)


def _added(found: list[tuple[np.ndarray, float, float]], levels: int) -> tuple[float, float]:
    """The pieces' sums (and sums of squares) added in the order of numpy's halves."""
    sums = [(total, squares) for _, total, squares in found]
    for _ in range(levels):
        sums = [(a[0] + b[0], a[1] + b[1]) for a, b in zip(sums[::2], sums[1::2], strict=True)]
    return sums[0]
