"""The writer engine's figures: what the training loop pays, and what memory it takes.

    python benchmarks/bench_engine.py [--quick]

- scalar: caller µs per `scalar` call with an explicit step (see also bench_scalar.py),
  and the writer thread's µs per scalar event, measured alone;
- image: caller ms per `image` call of 4 images of 256x256x3 uint8, where PNG encoding
  runs on the writer's thread;
- sustained: steps per second logging one 1000x1000 grayscale image per step until the
  last one is on disk;
- memory: peak RSS while logging 1,000,000 scalars as fast as possible, above the RSS
  before logging, next to the queue bound (measured in a fresh process each).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import textwrap

import numpy as np
from common import clock

import summarylib as sl


def scalar_caller_us(calls: int = 100_000) -> float:
    with (
        tempfile.TemporaryDirectory() as logdir,
        sl.create_file_writer(logdir) as writer,
        writer.as_default(),
    ):
        start = clock()
        for step in range(calls):
            sl.scalar("loss", 0.5, step=step)
        return (clock() - start) / calls * 1e6


def scalar_background_us(calls: int = 100_000) -> float:
    """The writer thread's cost per scalar event (encode, frame, write), alone: events are
    queued while it sleeps, then timed through one flush."""
    with tempfile.TemporaryDirectory() as logdir:
        writer = sl.create_file_writer(logdir, max_queue=10**9, flush_millis=10**9, max_queue_bytes=2**40)
        with writer.as_default():
            for step in range(calls):
                sl.scalar("loss", 0.5, step=step)
            start = clock()
            writer.flush()
            elapsed = clock() - start
        writer.close()
        return elapsed / calls * 1e6


def image_caller_ms(calls: int = 200) -> float:
    batch = np.random.default_rng(0).integers(0, 256, size=(4, 256, 256, 3), dtype=np.uint8)
    with (
        tempfile.TemporaryDirectory() as logdir,
        sl.create_file_writer(logdir) as writer,
        writer.as_default(),
    ):
        start = clock()
        for step in range(calls):
            sl.image("samples", batch, step=step, max_outputs=4)
        return (clock() - start) / calls * 1e3


def sustained_steps_per_second(steps: int = 100) -> float:
    frame = np.random.default_rng(0).integers(0, 256, size=(1000, 1000, 1), dtype=np.uint8)
    with tempfile.TemporaryDirectory() as logdir:
        start = clock()
        with sl.create_file_writer(logdir) as writer, writer.as_default():
            for step in range(steps):
                sl.image("frame", frame, step=step)
        return steps / (clock() - start)


# Each timing is the best of this many runs (the least disturbed by a noisy machine).
REPEATS = 3

MEMORY_CHILD = """
import resource, sys, tempfile
import summarylib as sl
with tempfile.TemporaryDirectory() as logdir:
    writer = sl.create_file_writer(logdir)
    sl.scalar("warm up", 0.0)  # imports and caches in place
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with writer.as_default():
        for step in range(int(sys.argv[1])):
            sl.scalar("loss", 0.5, step=step)
    writer.close()
    print(before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, writer.settings.max_queue_bytes)
"""


def memory_mib(calls: int = 1_000_000) -> tuple[float, float]:
    """(peak RSS growth while logging, queue bound), in MiB."""
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(MEMORY_CHILD), str(calls)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    before_kib, peak_kib, bound = (int(v) for v in out)
    return (peak_kib - before_kib) / 1024, bound / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls and runs, for run_all.py")
    quick = parser.parse_args().quick
    repeats, scalars = (1, 200_000) if quick else (REPEATS, 1_000_000)
    growth, bound = memory_mib(scalars)
    print("| figure | summarylib | target |")
    print("|---|---:|---:|")
    print(f"| scalar, caller µs/call | {min(scalar_caller_us() for _ in range(repeats)):.2f} | ≤ 0.8 |")
    print(f"| scalar, writer thread µs/event | {min(scalar_background_us() for _ in range(repeats)):.2f} | |")
    image_ms = min(image_caller_ms() for _ in range(repeats))
    print(f"| image 4x256x256x3, caller ms/call | {image_ms:.2f} | ≤ 1 |")
    steps_per_second = max(sustained_steps_per_second() for _ in range(repeats))
    print(f"| 1000x1000 gray image per step, steps/s | {steps_per_second:.0f} | ≥ 20 |")
    print(f"| {scalars:,} scalars, peak RSS growth MiB | {growth:.0f} | ≤ queue bound {bound:.0f} + small |")


if __name__ == "__main__":
    main()
