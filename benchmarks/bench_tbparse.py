"""tbparse's SummaryReader beside summarylib.tbparse's (the same DataFrame) and load_table.

    python benchmarks/bench_tbparse.py [--runs 4] [--steps 100000] [--tags 1] [--repeats 2]
        [--sweep 1000 1000 5] [--no-sweep] [--no-store] [--skip-slow]

Writes a logdir of R runs of S steps of T scalar tags (simple_value scalars, as torch and
tensorboardX write them: tbparse's `.scalars`) with summarylib's torch-style writer, then reads
it whole, one contender after another in this process: the bytes alone (every file read into
memory: the floor), summarylib's `load_table`, summarylib.tbparse's `SummaryReader(...).scalars`
(long format, and pivoted), tbparse's (when importable: installed, or from
SUMMARYLIB_TBPARSE_PATH) and TensorBoard's EventAccumulator run by run (Reload, then every
tag's Scalars: what tbparse does under its DataFrame). summarylib's contenders run `repeats`
times and the fastest counts; the others, far slower, once. Every contender is checked to
find every value. Then the same for a sweep (1,000 runs of 1,000 steps and 5 tags), read
from disk and from moto's S3 server (its objects uploaded from the sweep's files; the floor
there is every object fetched, many requests in flight; tbparse reads local paths only;
TensorBoard reads S3 through boto3). The machine's load average is printed with each table:
on a shared machine the numbers move with it.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from common import available, clock, goal, parse_with_quick

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

BUCKET = "summarylib-bench-tbparse"


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


def store_readers(url: str) -> dict[str, Callable[[str], int] | None]:
    """The contenders on an object store (None: cannot read it there)."""

    def bytes_fetched(logdir: str) -> int:
        """The floor on a store: every object fetched, many requests in flight (fsspec's cat)."""
        from summarylib.format.storage import remote

        fs, inner = remote(logdir)
        return sum(map(len, fs.cat(fs.find(inner)).values()))

    def event_accumulator_on_store(logdir: str) -> int:
        from summarylib.reading.discovery import find_runs

        return sum(_accumulated(run) for run in find_runs(logdir))

    def _accumulated(run: str) -> int:
        from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

        accumulator = EventAccumulator(f"{url}/{run}", size_guidance={"scalars": 0})
        accumulator.Reload()
        return sum(len(accumulator.Scalars(tag)) for tag in accumulator.Tags()["scalars"])

    return {
        "bytes alone (the floor)": bytes_fetched,
        "summarylib load_table": load_table,
        "summarylib.tbparse .scalars": ours(False),
        "summarylib.tbparse .scalars, pivot": ours(True),
        "tbparse .scalars": None,  # it reads local paths only
        "TensorBoard EventAccumulator": event_accumulator_on_store if available("boto3") else None,
    }


def measure(logdir: str, values: int, repeats: int, skip_slow: bool, tbparse_found: bool) -> dict:
    """{contender: seconds} reading the logdir on disk."""
    rows = {
        "bytes alone (the floor)": timed(bytes_alone, logdir, repeats, None),
        "summarylib load_table": timed(load_table, logdir, repeats, values),
        "summarylib.tbparse .scalars": timed(ours(False), logdir, repeats, values),
        "summarylib.tbparse .scalars, pivot": timed(ours(True), logdir, repeats, None),
    }
    if not skip_slow and tbparse_found:
        rows["tbparse .scalars"] = timed(tbparse, logdir, 1, values)
    if not skip_slow and available("tensorboard"):
        rows["TensorBoard EventAccumulator"] = timed(event_accumulator, logdir, 1, values)
    return rows


def measure_on_store(logdir: str, values: int, repeats: int, skip_slow: bool) -> dict:
    """{contender: seconds, or None where it cannot read a bucket} reading the same files
    uploaded to moto's S3 server."""
    import s3fs

    from tests.s3_server import s3_server

    rows: dict[str, float | None] = {}
    with s3_server(BUCKET) as relay:
        endpoint = f"http://127.0.0.1:{relay.target_port}"  # moto itself, not the tests' relay
        os.environ.update(AWS_ENDPOINT_URL=endpoint, S3_ENDPOINT=endpoint)
        url = f"s3://{BUCKET}/sweep"
        s3fs.S3FileSystem.clear_instance_cache()
        s3fs.S3FileSystem().put(logdir, url[len("s3://") :], recursive=True)
        for name, read in store_readers(url).items():
            slow = name.startswith(("tbparse", "TensorBoard"))
            if read is None or not (slow and skip_slow):
                expected = values if "pivot" not in name and "bytes" not in name else None
                rows[name] = None if read is None else timed(read, url, 1 if slow else repeats, expected)
    return rows


def print_rows(title: str, rows: dict, values: int) -> None:
    base = rows["summarylib.tbparse .scalars"]
    print(f"\n{title}\n")
    print("| reader | seconds | µs/value | vs summarylib.tbparse |")
    print("|---|---:|---:|---:|")
    for name, seconds in rows.items():
        if seconds is None:
            print(f"| {name} | cannot read a bucket | | |")
            continue
        ratio = seconds / base
        versus = f"{ratio:.1f}x slower" if ratio >= 1 else f"{1 / ratio:.1f}x faster"
        versus = "1.0x" if name == "summarylib.tbparse .scalars" else versus
        print(f"| {name} | {seconds:.2f} | {seconds / values * 1e6:.2f} | {versus} |")


def run_table(runs: int, steps: int, tags: int, args: argparse.Namespace, store: bool) -> None:
    """Write a logdir of `runs` x `steps` x `tags` scalars, read it every way, print the tables."""
    values = runs * steps * tags
    tbparse_found = available("tbparse") or bool(os.environ.get("SUMMARYLIB_TBPARSE_PATH"))
    with tempfile.TemporaryDirectory() as logdir:
        start = time.perf_counter()
        write_logdir(logdir, runs, steps, tags)
        print(f"wrote {runs} runs x {steps:,} steps x {tags} tags = {values:,} scalars "
              f"({bytes_alone(logdir) / 2**20:.1f} MiB) in {time.perf_counter() - start:.1f} s")  # fmt: skip
        rows = measure(logdir, values, args.repeats, args.skip_slow, tbparse_found)
        on_store = measure_on_store(logdir, values, args.repeats, args.skip_slow) if store else None
    load = ", ".join(f"{average:.1f}" for average in os.getloadavg())
    what = f"{values:,} scalars of {runs} runs ({os.cpu_count()} cores, load {load})"
    print_rows(f"reading {what} from disk", rows, values)
    if rows.get("tbparse .scalars"):  # issue 34: the same DataFrame, 20x faster
        ratio = rows["tbparse .scalars"] / rows["summarylib.tbparse .scalars"]
        workload = f"{values:,} scalars of {runs} runs into pandas vs tbparse"
        goal(workload, f"{ratio:.1f}x", "≥20x", ratio >= 20)
    if on_store is not None:
        print_rows(f"reading {what} from moto's S3 server (on the same cores)", on_store, values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--tags", type=int, default=1)
    sweep = {"type": int, "nargs": 3, "default": [1000, 1000, 5], "metavar": ("RUNS", "STEPS", "TAGS")}
    parser.add_argument("--sweep", **sweep)
    parser.add_argument("--no-sweep", action="store_true", help="only the first logdir")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--skip-slow", action="store_true", help="leave out tbparse and EventAccumulator")
    parser.add_argument("--no-store", action="store_true", help="leave out the reads from moto's S3")
    args = parse_with_quick(parser, steps=20_000, sweep=[100, 100, 5])
    extra = os.environ.get("SUMMARYLIB_TBPARSE_PATH")
    if extra:
        sys.path.append(extra)
    run_table(args.runs, args.steps, args.tags, args, store=False)
    if not args.no_sweep:
        print("\nthe sweep:")
        store = not args.no_store and available("moto") and available("s3fs")
        run_table(*args.sweep, args, store=store)


if __name__ == "__main__":
    main()
