"""Shared timing helpers: each contender runs in the same process, one after another,
repeated, and the best repetition counts (the least disturbed by a noisy machine)."""

from __future__ import annotations

import importlib.util
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass


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


def print_table(title: str, calls: int, rows: dict[str, Timing], baseline: str = "summarylib") -> None:
    """A Markdown table of µs per call and each contender's ratio to the baseline."""
    base = rows[baseline]
    print(f"\n{title} ({calls:,} calls, best of repeats)\n")
    print("| library | caller µs/call | total µs/call (incl. close) | total vs summarylib |")
    print("|---|---:|---:|---:|")
    for name, timing in rows.items():
        ratio = timing.total / base.total
        print(
            f"| {name} | {timing.caller / calls * 1e6:.2f} | {timing.total / calls * 1e6:.2f} | "
            f"{ratio:.1f}x {'slower' if ratio >= 1 else 'faster'} |"
            if name != baseline
            else f"| {name} | {timing.caller / calls * 1e6:.2f} | {timing.total / calls * 1e6:.2f} | 1.0x |"
        )
