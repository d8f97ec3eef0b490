"""tbparse's SummaryReader beside summarylib.tbparse's (the same DataFrame) and load_table.

    python benchmarks/bench_tbparse.py [--runs 4] [--steps 100000] [--tags 1] [--repeats 2]
    python benchmarks/bench_tbparse.py --runs 1000 --steps 1000 --tags 5   # the sweep

Writes a logdir of R runs of S steps of T scalar tags (simple_value scalars, as torch and
tensorboardX write them: tbparse's `.scalars`) with summarylib's torch-style writer, then reads
it whole, one contender after another in this process: the bytes alone (every file read into
memory: the floor), summarylib's `load_table`, summarylib.tbparse's `SummaryReader(...).scalars`
(long format, and pivoted), tbparse's (when importable: installed, or from
SUMMARYLIB_TBPARSE_PATH) and TensorBoard's EventAccumulator run by run (Reload, then every
tag's Scalars: what tbparse does under its DataFrame). summarylib's contenders run `repeats`
times and the fastest counts; the others, far slower, once. Every contender is checked to
find every value. The machine's load average is printed with the table: on a shared machine
the numbers move with it.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from common import available, clock, parse_with_quick


def write_logdir(logdir: str, runs: int, steps: int, tags: int) -> None:
    """R runs of S steps of T simple_value scalars, written by summarylib's torch-style writer."""
    from summarylib.compat.torch import SummaryWriter

    for run in range(runs):
        with SummaryWriter(os.path.join(logdir, f"run{run:04d}"), max_queue=10_000) as writer:
            for step in range(steps):
                for tag in range(tags):
                    writer.add_scalar(f"metric{tag}", (step + run) * 0.001 + tag, step)


def bytes_alone(logdir: str) -> int:
    """The floor: every event file read into memory; returns the bytes."""
    total = 0
    for directory, _, names in os.walk(logdir):
        for name in names:
            total += len(Path(directory, name).read_bytes())
    return total


def load_table(logdir: str) -> int:
    from summarylib.reader import load_table

    return len(load_table(logdir))


def ours(pivot: bool) -> Callable[[str], int]:
    def read(logdir: str) -> int:
        from summarylib.tbparse import SummaryReader

        frame = SummaryReader(logdir, pivot=pivot, extra_columns={"dir_name"}).scalars
        return int(frame.notna().sum().sum() - 2 * len(frame)) if pivot else len(frame)

    return read


def tbparse(logdir: str) -> int:
    from tbparse import SummaryReader

    return len(SummaryReader(logdir, extra_columns={"dir_name"}).scalars)


def event_accumulator(logdir: str) -> int:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    found = 0
    for run in sorted(os.listdir(logdir)):
        accumulator = EventAccumulator(os.path.join(logdir, run), size_guidance={"scalars": 0})
        accumulator.Reload()
        for tag in accumulator.Tags()["scalars"]:
            found += len(accumulator.Scalars(tag))
    return found


def timed(read: Callable[[str], int], logdir: str, repeats: int, expected: int | None) -> float:
    """The fastest of `repeats` reads, each checked to find `expected` values (None: any)."""
    times = []
    for _ in range(repeats):
        start = clock()
        found = read(logdir)
        times.append(clock() - start)
        if expected is not None and found != expected:
            raise AssertionError(f"{read.__name__} found {found} values, not {expected}")
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--tags", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--skip-slow", action="store_true", help="leave out tbparse and EventAccumulator")
    args = parse_with_quick(parser, steps=20_000)
    extra = os.environ.get("SUMMARYLIB_TBPARSE_PATH")
    if extra:
        sys.path.append(extra)
    values = args.runs * args.steps * args.tags
    with tempfile.TemporaryDirectory() as logdir:
        start = time.perf_counter()
        write_logdir(logdir, args.runs, args.steps, args.tags)
        print(f"wrote {args.runs} runs x {args.steps:,} steps x {args.tags} tags = {values:,} scalars "
              f"in {time.perf_counter() - start:.1f} s")  # fmt: skip
        rows = {
            "bytes alone (the floor)": timed(bytes_alone, logdir, args.repeats, None),
            "summarylib load_table": timed(load_table, logdir, args.repeats, values),
            "summarylib.tbparse .scalars": timed(ours(False), logdir, args.repeats, values),
            "summarylib.tbparse .scalars, pivot": timed(ours(True), logdir, args.repeats, None),
        }
        if not args.skip_slow and (available("tbparse") or extra):
            rows["tbparse .scalars"] = timed(tbparse, logdir, 1, values)
        if not args.skip_slow and available("tensorboard"):
            rows["TensorBoard EventAccumulator"] = timed(event_accumulator, logdir, 1, values)
    load = ", ".join(f"{average:.1f}" for average in os.getloadavg())
    print(f"\nreading {values:,} scalars of {args.runs} runs ({os.cpu_count()} cores, load {load})\n")
    base = rows["summarylib.tbparse .scalars"]
    print("| reader | seconds | µs/value | vs summarylib.tbparse |")
    print("|---|---:|---:|---:|")
    for name, seconds in rows.items():
        ratio = seconds / base
        versus = f"{ratio:.1f}x slower" if ratio >= 1 else f"{1 / ratio:.1f}x faster"
        print(f"| {name} | {seconds:.2f} | {seconds / values * 1e6:.2f} | {versus} |")


if __name__ == "__main__":
    main()
