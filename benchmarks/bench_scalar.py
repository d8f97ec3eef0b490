"""Log 100,000 scalars through summarylib, tensorboardX and torch.utils.tensorboard.

    python benchmarks/bench_scalar.py [--calls N] [--repeats R] [--quick]

Contenders that are not installed are left out. Compare ratios, not absolute times.
Prints issue 21's goal rows for `sl.scalar`: the caller's time per call, and the whole
run (to the writer's close) against torch.utils.tensorboard's.
"""

from __future__ import annotations

import argparse
import tempfile
import time

from common import compare, goal, ratio_goal

CALLER_GOAL_US = 0.8
TORCH_RATIO_GOAL = 20.0


def main() -> None:
    import summarylib as sl

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="fewer calls, for run_all.py")
    args = parser.parse_args()
    calls, repeats = (30_000, 2) if args.quick else (args.calls, args.repeats)
    rows = compare(
        "scalar",
        calls,
        repeats,
        lambda step: sl.scalar("loss", 0.5, step=step),
        lambda writer, step: writer.add_scalar("loss", 0.5, step),
        unit="µs",
    )
    ours = rows["summarylib"]
    caller = ours.caller / calls * 1e6
    own, writer = cpu_split(calls)
    measured = (
        f"{caller:.2f} µs/call (CPU: the caller's {own:.2f}, the writer thread's {writer:.2f} an event, "
        "which share one GIL)"
    )
    goal("sl.scalar caller", measured, f"≤{CALLER_GOAL_US} µs", caller <= CALLER_GOAL_US)
    ratio_goal("sl.scalar end to end vs torch", rows.get("torch.utils.tensorboard"), ours, TORCH_RATIO_GOAL)


def cpu_split(calls: int) -> tuple[float, float]:
    """CPU µs per call of the calling thread, and of the rest of the process (the writer's
    thread) per event, over one run of `calls` scalars to the writer's close: what bounds
    the caller's time, as the two threads take turns holding the GIL."""
    import summarylib as sl

    with tempfile.TemporaryDirectory() as logdir:
        writer = sl.create_file_writer(logdir)
        with writer.as_default():
            process, thread = time.process_time(), time.thread_time()
            for step in range(calls):
                sl.scalar("loss", 0.5, step=step)
            own = time.thread_time() - thread
        writer.close()
        total = time.process_time() - process
    return own / calls * 1e6, (total - own) / calls * 1e6


if __name__ == "__main__":
    main()
