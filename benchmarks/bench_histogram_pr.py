"""Histograms of 1,000,000 float32 values and PR curves of 100,000 predictions at 201
thresholds, through summarylib, tensorboardX and torch.utils.tensorboard, with a bare numpy
anchor for the histogram.

    python benchmarks/bench_histogram_pr.py [--calls N] [--repeats R] [--values V] [--predictions P]

Every writer logs `--calls` summaries (one a step) and is closed, so "total" is end to end:
bucketing, encoding, writing and flushing. The anchor is the least numpy can do to bucket
the same data with no writer at all: float32 min, max, one multiply-and-truncate and a
bincount. Issue goals: summarylib at least 7x faster than tensorboardX's add_histogram and
within 2x of the anchor; at least 1.5x faster than torch.utils.tensorboard's add_pr_curve.
Where numba (the fast extra) is installed, the histogram has a row counted by numpy's
passes beside summarylib's compiled loop.
Contenders that are not installed are left out. Compare ratios, not absolute times.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np
from common import (
    Timing,
    available,
    clock,
    compare,
    counted_by_numpy,
    counting_versions,
    parse_with_quick,
    ratio_goal,
    summarylib_run,
)

BUCKETS = 30
THRESHOLDS = 201
# sl.histogram's row without the [fast] extra: numpy's passes count (where numba is installed).
NUMPY_COUNTS = "summarylib, counted by numpy (no fast extra)"


def histogram_data(values: int) -> np.ndarray:
    """Roughly normal float32 values (exact arithmetic only, so any machine draws the same)."""
    uniform = np.random.default_rng(0).random((4, values), dtype=np.float32)
    return uniform.sum(axis=0) - np.float32(2.0)


def pr_data(predictions: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    labels = rng.random(predictions) < 0.4
    scores = (0.5 * rng.random(predictions) + 0.5 * labels).astype(np.float32)
    return labels, scores


def numpy_anchor_run(calls: int, data: np.ndarray) -> Callable[[str], Timing]:
    """Bucket `data` `calls` times with bare numpy: no edges, no checks, no writer."""

    def run(logdir: str) -> Timing:
        start = clock()
        for _ in range(calls):
            low, high = data.min(), data.max()
            indices = ((data - low) * (BUCKETS / (high - low))).astype(np.intp)
            np.bincount(indices, minlength=BUCKETS + 1)
        elapsed = clock() - start
        return Timing(elapsed, elapsed)

    return run


def print_goal(rows: dict[str, Timing], workload: str, name: str, at_least: float) -> None:
    """The total-time ratio of `name` to summarylib, against the goal set for it."""
    ratio_goal(f"{workload}: {name} / summarylib", rows.get(name), rows["summarylib"], at_least)


def bench_histogram(calls: int, repeats: int, values: int) -> None:
    import summarylib as sl

    data = histogram_data(values)

    def log(step: int) -> None:
        sl.histogram("x", data, step=step, buckets=BUCKETS)

    print(counting_versions())
    rows = compare(
        f"histogram of {values:,} float32 values",
        calls,
        repeats,
        log,
        lambda writer, step: writer.add_histogram("x", data, step),
        anchors={
            "numpy min/max/bincount anchor": numpy_anchor_run(calls, data),
            **({NUMPY_COUNTS: counted_by_numpy(summarylib_run(calls, log))} if available("numba") else {}),
        },
    )
    print()
    print_goal(rows, "histogram", "tensorboardX", 7)
    print_goal(rows, "histogram", "numpy min/max/bincount anchor", 0.5)


def bench_pr_curve(calls: int, repeats: int, predictions: int) -> None:
    import summarylib as sl

    labels, scores = pr_data(predictions)
    rows = compare(
        f"PR curve of {predictions:,} predictions, {THRESHOLDS} thresholds",
        calls,
        repeats,
        lambda step: sl.pr_curve("x", labels, scores, step=step, num_thresholds=THRESHOLDS),
        lambda writer, step: writer.add_pr_curve("x", labels, scores, step, num_thresholds=THRESHOLDS),
    )
    print()
    print_goal(rows, "PR curve", "torch.utils.tensorboard", 1.5)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20, help="summaries per writer")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--values", type=int, default=1_000_000)
    parser.add_argument("--predictions", type=int, default=100_000)
    args = parse_with_quick(parser, calls=5, repeats=2, values=200_000, predictions=20_000)
    bench_histogram(args.calls, args.repeats, args.values)
    bench_pr_curve(args.calls, args.repeats, args.predictions)


if __name__ == "__main__":
    main()
