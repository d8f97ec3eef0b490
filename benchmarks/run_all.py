"""Every benchmark, one after another, with the peers side by side in each; then the goal
rows they printed (through `common.goal`) as one headline table.

    python benchmarks/run_all.py [--quick] [--only NAME ...]

`--quick` runs each benchmark's short version (about half a minute each) for a look; the
full run is the one to quote. Each benchmark runs in a fresh interpreter, so no library's
imports or caches help another's. Numbers are ratios measured in one run: the machines are
shared and noisy, so compare the ratios, not the absolute times, across runs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from common import GOALS_ENV

HERE = os.path.dirname(os.path.abspath(__file__))

# (script, what it measures), in the order the tables are printed.
BENCHMARKS = [
    ("bench_scalar.py", "sl.scalar per call, end to end, beside torch and tensorboardX"),
    ("bench_torch_writer.py", "compat.torch's writer method by method beside torch and tensorboardX"),
    ("bench_keras_callback.py", "the Keras callback per batch and per logged value inside fit"),
    ("real_images.py", "PNG on real photographs and parameter maps, beside tensorboardX, torch and pillow"),
    ("bench_media.py", "images of several kinds (synthetic photos, gradients, plots, text, noise) and audio"),
    ("bench_histogram_pr.py", "histograms and PR curves"),
    ("bench_compiled_counts.py", "the compiled histogram counts (fast extra): saved per call, paid once"),
    ("bench_watch.py", "the torch watch's cost per training step, and its logged steps per second"),
    ("bench_live.py", "the Live dashboard in TensorBoard and Chromium: latency, frames a second, switches"),
    ("bench_engine.py", "the writer: queueing, flushing, sustained images"),
    ("bench_reader.py", "reading event files back beside TensorBoard's loader"),
    ("bench_tbparse.py", "runs and a sweep into pandas beside tbparse and TensorBoard's EventAccumulator"),
    ("bench_object_store.py", "writing to an S3-protocol server (moto) beside tensorboardX"),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="each benchmark's short version")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="only these (e.g. bench_media)")
    args = parser.parse_args(argv)
    chosen = [(script, about) for script, about in BENCHMARKS if not args.only or script[:-3] in args.only]
    failed = []
    with tempfile.TemporaryDirectory() as scratch:
        goals = os.path.join(scratch, "goals.jsonl")
        env = dict(os.environ, **{GOALS_ENV: goals})
        env.setdefault("KERAS_BACKEND", "torch")
        for script, about in chosen:
            print(f"\n## {script}: {about}\n", flush=True)
            command = [sys.executable, os.path.join(HERE, script)] + (["--quick"] if args.quick else [])
            start = time.perf_counter()
            if subprocess.run(command, env=env, cwd=HERE).returncode != 0:
                failed.append(script)
            print(f"\n({script}: {time.perf_counter() - start:.0f} s)", flush=True)
        rows = _read_rows(goals)
    _print_goals(rows)
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


def _read_rows(path: str) -> list[dict]:
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as lines:
        return [json.loads(line) for line in lines]


def _print_goals(rows: list[dict]) -> None:
    print("\n## Goals\n")
    print("| workload | measured | goal | met |")
    print("|---|---|---|---|")
    for row in rows:
        print(f"| {row['workload']} | {row['measured']} | {row['goal']} | {'yes' if row['met'] else 'no'} |")


if __name__ == "__main__":
    sys.exit(main())
