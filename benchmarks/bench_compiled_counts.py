"""What a compiled loop would save on torch's default histogram buckets: the evidence for
issue 32's next step, not a dependency.

    pip install numba   # in a scratch environment beside summarylib's
    python benchmarks/bench_compiled_counts.py [--values 1000000] [--repeats 30]

compat.torch counts `bins="tensorflow"` buckets with numpy (summarylib.compat.torch.
default_bins): per block of values, a shift, two integer conversions, a table lookup, an
add, a shift and a bincount, each one pass over memory (about 2.2 ns a value in all). The
same arithmetic in one loop compiled by numba is timed beside it, on the same float32
values, and its counts are checked to be the numpy path's. Not in run_all.py: numba is not
installed with summarylib.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

import numpy as np
from common import least_ms

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from summarylib.compat.torch.default_bins import _SLOTS, _cells, _Pass, scan

BLOCK = 65536


def numpy_counts(values: np.ndarray) -> np.ndarray:
    """The slots' counts as compat.torch counts them, block by block."""
    found = _Pass(values, count=True)
    for start in range(0, values.size, BLOCK):
        found.count(values[start : start + BLOCK])
    return found.counts  # type: ignore[return-value]


def compiled_counter() -> Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]:
    """One loop: each value's slot from its bits and the cell table, counted."""
    import numba

    @numba.njit(nogil=True)
    def counts_of(bits: np.ndarray, table: np.ndarray, counts: np.ndarray) -> np.ndarray:
        mask, shift = np.uint64(0xFFFFFFFF), np.uint64(16)
        for i in range(bits.size):
            pattern = np.uint64(bits[i])
            counts[((np.uint64(table[pattern >> shift]) + pattern) & mask) >> shift] += 1
        return counts

    return counts_of


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--values", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    values = np.random.default_rng(0).standard_normal(args.values).astype(np.float32)
    table = _cells(np.float32).table
    counts_of = compiled_counter()
    compiled = counts_of(values.view(np.uint32), table, np.zeros(_SLOTS, np.int64))  # compiles
    if not np.array_equal(compiled, numpy_counts(values)):
        raise AssertionError("the compiled loop's counts are not numpy's")
    rows = {
        "numpy counting (compat.torch today)": least_ms(args.repeats, lambda: numpy_counts(values)),
        "numba, one loop": least_ms(
            args.repeats, lambda: counts_of(values.view(np.uint32), table, np.zeros(_SLOTS, np.int64))
        ),
        "the whole scan today (counts, min, max, sums)": least_ms(args.repeats, lambda: scan(values)),
        "the scan without counting": least_ms(args.repeats, lambda: scan(values, count=False)),
    }
    print(f"\ncounting torch's default buckets of {args.values:,} float32 values (numpy {np.__version__})\n")
    print("| path | ms | ns/value |")
    print("|---|---:|---:|")
    for name, ms in rows.items():
        print(f"| {name} | {ms:.2f} | {ms * 1e6 / args.values:.2f} |")


if __name__ == "__main__":
    main()
