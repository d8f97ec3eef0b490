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

from summarylib.ops.histogram.compiled import COUNTERS, numba_module

Kernel = Callable[..., tuple[float, float]]


@functools.cache
def kernel() -> Kernel | None:
    """The compiled loop (summarylib.compat.torch.scan_loop), or None where numba does not
    serve (see numba_module); numba compiles it on its first call, or loads it from its
    cache."""
    if numba_module() is None:
        return None
    from summarylib.compat.torch.scan_loop import pairwise_scan

    return pairwise_scan


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
