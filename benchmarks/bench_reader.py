"""Read 1,000,000 scalar events back: summarylib's reader, TensorBoard's EventFileLoader, tbparse.

    python benchmarks/bench_reader.py [--events N] [--repeats R]

Writes one event file of N scalars with summarylib, then times each reader on it in this
process, one after another, each producing (step, wall time, value) of every scalar:
summarylib iterating values and loading a table, TensorBoard's EventFileLoader iterating
events and decoding each tensor as its scalars plugin does (`tensor_util.make_ndarray`), and
tbparse's SummaryReader. Readers that are not installed are left out. summarylib's readers
run R times and the fastest counts; the others, tens of times slower, run once.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Callable

from common import available, clock, parse_with_quick


def write_file(logdir: str, events: int) -> str:
    """An event file of `events` scalars of one tag, written by summarylib."""
    import summarylib as sl

    writer = sl.create_file_writer(logdir, max_queue=10_000)
    with writer.as_default():
        for step in range(events):
            sl.scalar("loss", 1.0 / (step + 1), step=step)
    writer.close()
    return writer.path


def summarylib_values(path: str) -> int:
    from summarylib.reader import iter_values

    return sum(1 for value in iter_values(path) if value.value is not None)


def summarylib_table(as_dataframe: bool) -> Callable[[str], int]:
    def read(path: str) -> int:
        from summarylib.reader import load_table

        return len(load_table(path, as_dataframe=as_dataframe)["value"])

    return read


def event_file_loader(path: str) -> int:
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
    from tensorboard.util import tensor_util

    scalars = []
    for event in EventFileLoader(path).Load():
        for value in event.summary.value:
            scalars.append((event.step, event.wall_time, tensor_util.make_ndarray(value.tensor).item()))
    return len(scalars)


def tbparse(path: str) -> int:
    from tbparse import SummaryReader

    return len(SummaryReader(path, extra_columns={"wall_time"}).tensors)


def best_time(read: Callable[[str], int], path: str, repeats: int, events: int) -> float:
    """The fastest of `repeats` reads, each checked to find every event."""
    times = []
    for _ in range(repeats):
        start = clock()
        found = read(path)
        times.append(clock() - start)
        if found != events:
            raise AssertionError(f"{read} found {found} values, not {events}")
    return min(times)


def print_table(events: int, rows: dict[str, float], anchors: list[str]) -> None:
    """A Markdown table of seconds, µs per event and how many times faster than each anchor."""
    print(f"\nreading {events:,} scalar events of one file (best of repeats)\n")
    print("| reader | seconds | µs/event | " + " | ".join(f"vs {name}" for name in anchors) + " |")
    print("|---|---:|---:|" + "---:|" * len(anchors))
    for name, seconds in rows.items():
        ratios = [_ratio(rows[anchor] / seconds) if anchor != name else "1.0x" for anchor in anchors]
        print(f"| {name} | {seconds:.2f} | {seconds / events * 1e6:.2f} | " + " | ".join(ratios) + " |")


def _ratio(speedup: float) -> str:
    return f"{speedup:.1f}x faster" if speedup >= 1 else f"{1 / speedup:.1f}x slower"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parse_with_quick(parser, events=100_000, repeats=2)
    with tempfile.TemporaryDirectory() as logdir:
        path = write_file(logdir, args.events)
        print(f"wrote {args.events:,} scalars: {os.path.getsize(path) / 1e6:.1f} MB")
        rows = {
            "summarylib iter_values": best_time(summarylib_values, path, args.repeats, args.events),
            "summarylib load_table (numpy)": best_time(
                summarylib_table(False), path, args.repeats, args.events
            ),
        }
        if available("pandas"):
            rows["summarylib load_table (pandas)"] = best_time(
                summarylib_table(True), path, args.repeats, args.events
            )
        anchors = []
        if available("tensorboard"):
            rows["TensorBoard EventFileLoader"] = best_time(event_file_loader, path, 1, args.events)
            anchors.append("TensorBoard EventFileLoader")
        if available("tbparse"):
            rows["tbparse"] = best_time(tbparse, path, 1, args.events)
            anchors.append("tbparse")
    print_table(args.events, rows, anchors)


if __name__ == "__main__":
    main()
