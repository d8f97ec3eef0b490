"""torch's SummaryWriter API per call: summarylib.compat.torch against
torch.utils.tensorboard and tensorboardX, for add_scalar, add_histogram, add_image and
add_scalars (4 series), each timed to the writer's close.

    python benchmarks/bench_torch_writer.py [--scale S] [--repeats R] [--quick] [--only TEXT]

Contenders that are not installed are left out. Compare ratios, not absolute times.
Prints issue 21's goal rows for `add_scalar` (the caller's time per call, and the whole
run to the writer's close against torch.utils.tensorboard's) and `add_histogram` (end to
end against both peers, at 100k, 1M and 10M float32 values and a 1M torch tensor; numpy's
version printed, since numpy's histogram, which the peers call, sorts).
"""

from __future__ import annotations

import argparse

import numpy as np
from common import (
    Timing,
    available,
    best_of,
    counted_by_numpy,
    counting_versions,
    goal,
    print_table,
    ratio_goal,
    writer_run,
)

WRITERS = ("summarylib.compat.torch", "torch.utils.tensorboard", "tensorboardX")
# add_histogram's row without the [fast] extra: numpy's passes count (where numba is installed).
NUMPY_COUNTS = "summarylib.compat.torch, counted by numpy (no fast extra)"
ADD_SCALAR_CALLER_GOAL_US = 1.0
TORCH_RATIO_GOAL = 20.0
# add_histogram end to end (bins="tensorflow", torch's default): times faster than each peer.
ADD_HISTOGRAM_GOALS = {"torch.utils.tensorboard": 3.0, "tensorboardX": 2.0}


def workloads(scale: float) -> list[tuple[str, int, object]]:
    """(title, calls, log(writer, step)) of each method measured."""
    rng = np.random.default_rng(0)
    image = rng.random((3, 64, 64), dtype=np.float32)
    series = {"train": 0.5, "validation": 0.6, "test": 0.7, "baseline": 0.8}
    return [
        ("add_scalar", int(50_000 * scale), lambda w, step: w.add_scalar("loss", 0.5, step)),
        *histogram_workloads(rng, scale),
        ("add_image (3x64x64 float)", int(1_000 * scale), lambda w, step: w.add_image("img", image, step)),
        ("add_scalars (4 series)", int(10_000 * scale), lambda w, step: w.add_scalars("loss", series, step)),
    ]


def histogram_workloads(rng: np.random.Generator, scale: float) -> list[tuple[str, int, object]]:
    """add_histogram of float32 weights with the default bins, at 100k, 1M and 10M values
    (issue 32), and at 1M as a torch tensor where torch is installed."""
    rows = []
    for values, calls in ((100_000, 300), (1_000_000, 40), (10_000_000, 4)):
        weights = rng.normal(size=values).astype(np.float32)
        rows.append(
            (
                f"add_histogram ({values:,} values)",
                max(2, int(calls * scale)),
                lambda w, step, weights=weights: w.add_histogram("w", weights, step),
            )
        )
    if available("torch"):
        import torch

        tensor = torch.from_numpy(rng.normal(size=1_000_000).astype(np.float32))
        rows.append(
            (
                "add_histogram (1,000,000 values, torch tensor)",
                max(2, int(40 * scale)),
                lambda w, step: w.add_histogram("w", tensor, step),
            )
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies the number of calls")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="fewer calls, for run_all.py")
    parser.add_argument("--only", default="", help="the workloads whose title holds this text")
    args = parser.parse_args()
    repeats = 2 if args.quick else args.repeats
    print(counting_versions())
    for title, calls, log in workloads(args.scale):
        if args.only not in title:
            continue
        if args.quick:  # add_scalar's calls outweigh a writer's start and close even so
            calls = max(2, int(calls * (0.6 if title == "add_scalar" else 0.1)))
        rows = {
            module: best_of(repeats, writer_run(module, calls, log))
            for module in WRITERS
            if available(module.split(".")[0])
        }
        if title.startswith("add_histogram") and available("numba"):
            rows[NUMPY_COUNTS] = best_of(repeats, counted_by_numpy(writer_run(WRITERS[0], calls, log)))
        print_table(title, calls, rows, baseline=WRITERS[0], unit="µs")
        if title == "add_scalar":
            add_scalar_goals(calls, rows)
        elif title.startswith("add_histogram"):
            add_histogram_goals(title, rows)


def add_scalar_goals(calls: int, rows: dict[str, Timing]) -> None:
    """The goal rows of add_scalar: caller time per call, and end to end against torch."""
    ours = rows[WRITERS[0]]
    caller = ours.caller / calls * 1e6
    goal(
        "compat.torch add_scalar caller",
        f"{caller:.2f} µs/call",
        f"≤{ADD_SCALAR_CALLER_GOAL_US} µs",
        caller <= ADD_SCALAR_CALLER_GOAL_US,
    )
    ratio_goal("compat.torch add_scalar end to end vs torch", rows.get(WRITERS[1]), ours, TORCH_RATIO_GOAL)


def add_histogram_goals(title: str, rows: dict[str, Timing]) -> None:
    """The goal rows of one add_histogram workload (`title` says its size): end to end
    against torch's and tensorboardX's."""
    ours = rows[WRITERS[0]]
    for peer, at_least in ADD_HISTOGRAM_GOALS.items():
        ratio_goal(f"compat.torch {title} end to end vs {peer}", rows.get(peer), ours, at_least)


if __name__ == "__main__":
    main()
