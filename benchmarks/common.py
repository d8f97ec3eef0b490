"""Shared timing helpers: each contender runs in the same process, one after another,
repeated, and the best repetition counts (the least disturbed by a noisy machine)."""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import importlib.util
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass
class Timing:
    """Seconds spent in the logging calls alone, and until the writer was closed."""

    caller: float
    total: float


def available(module: str) -> bool:
    """Whether `module` can be imported here (contenders are optional)."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def best_of(repeats: int, run: Callable[[str], Timing]) -> Timing:
    """The fastest of `repeats` runs, each into a fresh temporary logdir."""
    timings = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as logdir:
            timings.append(run(logdir))
    return Timing(min(t.caller for t in timings), min(t.total for t in timings))


def clock() -> float:
    return time.perf_counter()


def least_ms(
    repeats: int, run: Callable[[], object], timer: Callable[[], float] = time.perf_counter
) -> float:
    """The least time of `repeats` runs of `run`, in ms, by `timer` (wall clock by default;
    `time.thread_time` for CPU time, which a loaded machine's other work does not add to)."""
    times = []
    for _ in range(repeats):
        start = timer()
        run()
        times.append(timer() - start)
    return min(times) * 1e3


def summarylib_run(calls: int, log: Callable[[int], None]) -> Callable[[str], Timing]:
    """Time `log(step)` for each step under a default summarylib writer, then its close."""

    def run(logdir: str) -> Timing:
        import summarylib as sl

        start = clock()
        writer = sl.create_file_writer(logdir)
        with writer.as_default():
            for step in range(calls):
                log(step)
            logged = clock()  # before leaving the block, which flushes
        writer.close()
        return Timing(logged - start, clock() - start)

    return run


def counted_by_numpy(run: Callable[[str], Timing]) -> Callable[[str], Timing]:
    """`run` with every histogram counted by numpy's passes, as where the [fast] extra
    (numba) is not installed: the row beside the compiled loops' own."""

    def numpy_run(logdir: str) -> Timing:
        from summarylib.ops.histogram import compiled

        compiled_from, compiled.COMPILED_FROM = compiled.COMPILED_FROM, sys.maxsize
        try:
            return run(logdir)
        finally:
            compiled.COMPILED_FROM = compiled_from

    return numpy_run


def counting_versions() -> str:
    """numpy's version (the peers' histograms sort with it) and numba's, if installed."""
    import numpy

    numba = importlib.util.find_spec("numba") and importlib.metadata.version("numba")
    return f"numpy {numpy.__version__}, numba {numba or 'not installed'}"


def writer_run(module: str, calls: int, log: Callable[[Any, int], None]) -> Callable[[str], Timing]:
    """Time `log(writer, step)` for each step with `module.SummaryWriter` (tensorboardX or
    torch.utils.tensorboard), then its close."""

    def run(logdir: str) -> Timing:
        writer_class = importlib.import_module(module).SummaryWriter
        start = clock()
        writer = writer_class(logdir)
        for step in range(calls):
            log(writer, step)
        logged = clock()
        writer.close()
        return Timing(logged - start, clock() - start)

    return run


def compare(
    title: str,
    calls: int,
    repeats: int,
    ours: Callable[[int], None],
    theirs: Callable[[Any, int], None],
    anchors: dict[str, Callable[[str], Timing]] | None = None,
    unit: str = "ms",
) -> dict[str, Timing]:
    """Print one table: summarylib's `ours(step)` against `theirs(writer, step)` in each
    installed contender (and any anchors); returns the timings."""
    rows = {"summarylib": best_of(repeats, summarylib_run(calls, ours))}
    for name, run in (anchors or {}).items():
        rows[name] = best_of(repeats, run)
    for module in ("tensorboardX", "torch.utils.tensorboard"):
        if available(module.split(".")[0]) and available("tensorboard"):
            rows[module] = best_of(repeats, writer_run(module, calls, theirs))
    print_table(title, calls, rows, unit=unit)
    return rows


_UNITS = {"µs": 1e6, "ms": 1e3}


def _versus(timing: Timing, base: Timing) -> str:
    if timing is base:
        return "1.0x"
    if timing.total >= base.total:
        return f"{timing.total / base.total:.1f}x slower"
    return f"{base.total / timing.total:.1f}x faster"


def print_table(
    title: str, calls: int, rows: dict[str, Timing], baseline: str = "summarylib", unit: str = "µs"
) -> None:
    """A Markdown table of time per call (in `unit`, µs or ms) and each contender's
    end-to-end time against the baseline's."""
    scale = _UNITS[unit]
    base = rows[baseline]
    print(f"\n{title} ({calls:,} calls, best of repeats)\n")
    print(f"| library | caller {unit}/call | total {unit}/call (incl. close) | total vs {baseline} |")
    print("|---|---:|---:|---:|")
    for name, timing in rows.items():
        print(
            f"| {name} | {timing.caller / calls * scale:.2f} | {timing.total / calls * scale:.2f} | "
            f"{_versus(timing, base)} |"
        )


# Where `goal` appends its rows when benchmarks/run_all.py runs a benchmark (JSON lines).
GOALS_ENV = "SUMMARYLIB_BENCH_GOALS"


def goal(workload: str, measured: str, target: str, met: bool) -> None:
    """Print one row of issue 21's goal table (what was measured against what it should be)
    and, under `run_all.py`, hand it to the headline table printed at the end."""
    print(f"goal | {workload} | {measured} | goal {target} | {'met' if met else 'not met'}")
    path = os.environ.get(GOALS_ENV)
    if path:
        row = {"workload": workload, "measured": measured, "goal": target, "met": met}
        with open(path, "a", encoding="utf-8") as rows:
            rows.write(json.dumps(row) + "\n")


def parse_with_quick(parser: argparse.ArgumentParser, **quick: Any) -> argparse.Namespace:
    """The command line, with `--quick` (the short run `run_all.py --quick` asks for): the
    arguments named in `quick` take those values unless given explicitly."""
    parser.add_argument("--quick", action="store_true", help="a short run, for a look")
    args = parser.parse_args()
    if args.quick:
        for name, value in quick.items():
            if getattr(args, name) == parser.get_default(name):
                setattr(args, name, value)
    return args


def ratio_goal(workload: str, theirs: Timing | None, ours: Timing, at_least: float) -> None:
    """A goal row of a peer's total time over summarylib's (how many times faster summarylib
    is, end to end), when the peer ran (`theirs` None: it is not installed)."""
    if theirs is not None:
        ratio = theirs.total / ours.total
        goal(workload, f"{ratio:.1f}x", f"≥{at_least:g}x", ratio >= at_least)
