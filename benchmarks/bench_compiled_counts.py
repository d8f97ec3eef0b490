"""What the compiled histogram counts (numba, the fast extra) save per call, and what they
cost once per process.

    python benchmarks/bench_compiled_counts.py [--values 1000000] [--repeats 30] [--quick]

Per call, on the writer's thread: compat.torch's default-bins scan (counts, min, max and
numpy's sums; summarylib.compat.torch.default_bins) and sl.histogram's equal-width
buckets (summarylib.ops.histogram.encoding.bucketize), each by numpy's passes and by the
compiled loop, on the same float32 values, with the counts checked equal. Once per
process: the first large histogram imports numba and compiles the loops, or loads them
from numba's cache on disk; each is timed in a fresh interpreter (a cold cache is an empty
NUMBA_CACHE_DIR). Needs numba installed beside summarylib.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable

import numpy as np
from common import counting_versions, least_ms, parse_with_quick

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from summarylib.compat.torch.default_bins import numpy_scan, scan
from summarylib.ops.histogram import compiled
from summarylib.ops.histogram.encoding import bucketize

BUCKETS = 30
# A fresh interpreter's first histogram of 1M values through each loop, timed.
FIRST_CALL = """
import time, numpy as np
start = time.perf_counter()
from summarylib.compat.torch.default_bins import scan
from summarylib.ops.histogram.encoding import bucketize
values = np.random.default_rng(0).standard_normal(1_000_000).astype(np.float32)
imported = time.perf_counter()
scan(values)
scanned = time.perf_counter()
bucketize("h", values, 30)
print(imported - start, scanned - imported, time.perf_counter() - scanned)
"""


def by_numpy(count: Callable[[], object]) -> Callable[[], object]:
    """`count` with numpy's passes counting (as without the fast extra)."""

    def counted() -> object:
        compiled_from, compiled.COMPILED_FROM = compiled.COMPILED_FROM, sys.maxsize
        try:
            return count()
        finally:
            compiled.COMPILED_FROM = compiled_from

    return counted


def first_calls(cache_dir: str | None) -> list[float]:
    """Seconds of a fresh interpreter's imports, first default-bins scan and first
    bucketize (numba's cache in `cache_dir`, or where it keeps it by default)."""
    env = dict(os.environ, **({"NUMBA_CACHE_DIR": cache_dir} if cache_dir else {}))
    found = subprocess.run(
        [sys.executable, "-c", FIRST_CALL], env=env, capture_output=True, text=True, check=True
    )
    return [float(seconds) for seconds in found.stdout.split()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--values", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=30)
    args = parse_with_quick(parser, repeats=5)
    if compiled.numba_module() is None:
        sys.exit("numba is not installed (pip install -e '.[fast]'), or SUMMARYLIB_NUMBA=0")
    values = np.random.default_rng(0).standard_normal(args.values).astype(np.float32)
    if not np.array_equal(scan(values).counts, numpy_scan(values).counts) or not np.array_equal(
        bucketize("h", values, BUCKETS), by_numpy(lambda: bucketize("h", values, BUCKETS))()
    ):
        raise AssertionError("the compiled loops' counts are not numpy's")
    rows = {
        "compat.torch default-bins scan": (
            least_ms(args.repeats, lambda: numpy_scan(values)),
            least_ms(args.repeats, lambda: scan(values)),
        ),
        f"sl.histogram buckets ({BUCKETS})": (
            least_ms(args.repeats, by_numpy(lambda: bucketize("h", values, BUCKETS))),
            least_ms(args.repeats, lambda: bucketize("h", values, BUCKETS)),
        ),
    }
    print(f"\nper call: {args.values:,} float32 values on the writer's thread ({counting_versions()})\n")
    print("| count | numpy's passes, ms | compiled loop, ms | saved |")
    print("|---|---:|---:|---:|")
    for name, (passes, loop) in rows.items():
        print(f"| {name} | {passes:.2f} | {loop:.2f} | {passes / loop:.1f}x |")
    with tempfile.TemporaryDirectory() as empty_cache:
        cold = first_calls(empty_cache)
        warm = first_calls(empty_cache)
    print("\nonce per process: a fresh interpreter's first histograms of 1,000,000 values, seconds\n")
    print("| numba's cache | summarylib and numpy imports | first scan (imports numba) | first bucketize |")
    print("|---|---:|---:|---:|")
    for name, seconds in (("empty (compiles)", cold), ("filled by the run above", warm)):
        print(f"| {name} | " + " | ".join(f"{s:.2f}" for s in seconds) + " |")


if __name__ == "__main__":
    main()
