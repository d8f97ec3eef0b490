"""Log 100,000 scalars through summarylib, tensorboardX and torch.utils.tensorboard.

    python benchmarks/bench_scalar.py [--calls N] [--repeats R]

Contenders that are not installed are left out. Compare ratios, not absolute times.
"""

from __future__ import annotations

import argparse

from common import Timing, available, best_of, clock, print_table


def summarylib_run(calls: int):
    import summarylib as sl

    def run(logdir: str) -> Timing:
        start = clock()
        writer = sl.create_file_writer(logdir)
        with writer.as_default():
            for step in range(calls):
                sl.scalar("loss", 0.5, step=step)
            logged = clock()  # before leaving the block, which flushes
        writer.close()
        return Timing(logged - start, clock() - start)

    return run


def torch_style_run(module: str, calls: int):
    def run(logdir: str) -> Timing:
        writer_class = __import__(module, fromlist=["SummaryWriter"]).SummaryWriter
        start = clock()
        writer = writer_class(logdir)
        for step in range(calls):
            writer.add_scalar("loss", 0.5, step)
        logged = clock()
        writer.close()
        return Timing(logged - start, clock() - start)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rows = {"summarylib": best_of(args.repeats, summarylib_run(args.calls))}
    if available("tensorboardX"):
        rows["tensorboardX"] = best_of(args.repeats, torch_style_run("tensorboardX", args.calls))
    if available("torch") and available("tensorboard"):
        rows["torch.utils.tensorboard"] = best_of(
            args.repeats, torch_style_run("torch.utils.tensorboard", args.calls)
        )
    print_table("scalar", args.calls, rows)


if __name__ == "__main__":
    main()
