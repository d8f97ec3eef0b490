"""Logging to an S3 bucket (moto's S3 server on 127.0.0.1, through s3fs) beside local disk.

    python benchmarks/bench_object_store.py [--calls N] [--repeats R]

For each destination: the caller's µs per `scalar` call, the total µs per call until the
writer is closed (everything uploaded), bytes uploaded per event byte, and the objects a
run makes per hour at the default upload interval; then the reader: µs per value reading
the same run back from the bucket and from disk, with the files (segment objects in the
bucket) and values each read, the same values on both sides. Needs the remote-test extra (moto, s3fs).

Then the same scalars, plus a 1 MiB tensor every 500 steps, while the store is down (the
tests' relay cut): the caller's µs per call, the most memory the segment file held
(bounded by the writer's max_queue_bytes, 64 MiB by default), what waited on local disk instead, and how
long close() took to upload it all once the store was back.

moto's server is a Python process on the same cores as the reader, so the reader's figure on
S3 includes the server's work. s3fs talks to it directly, not through the tests' relay
(tests/s3_server.py), whose threads would copy every byte inside the process measured; only
the outage goes through the relay.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile

from common import Timing, clock, goal, parse_with_quick

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

BUCKET = "summarylib-bench"


def log_scalars(logdir: str, calls: int, flushes: int) -> tuple[Timing, object]:
    """Time `calls` scalars into `logdir`, flushing `flushes` times on the way."""
    import summarylib as sl

    every = max(1, calls // max(1, flushes))
    start = clock()
    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        for step in range(calls):
            sl.scalar("loss", 1.0 / (step + 1), step=step)
            if step % every == every - 1:
                writer.flush()
        logged = clock()
    writer.close()
    return Timing(logged - start, clock() - start), writer._engine.file


def log_through_outage(url: str, calls: int, relay: object, endpoint: str) -> dict:
    """Log `calls` scalars and a 1 MiB tensor every 500 steps into `url` while `relay` is
    cut; restore it and close. Returns what the outage cost."""
    import summarylib as sl

    os.environ["AWS_ENDPOINT_URL"] = f"http://127.0.0.1:{relay.port}"  # through the relay
    writer = sl.create_file_writer(url, storage_options={"config_kwargs": {"retries": {"max_attempts": 1}}})
    payload = os.urandom(1 << 20)
    relay.cut()
    try:
        start = clock()
        with writer.as_default():
            for step in range(calls):
                sl.scalar("loss", 1.0 / (step + 1), step=step)
                if step % 500 == 0:
                    sl.text("blob", payload, step=step)
            logged = clock()
            with contextlib.suppress(sl.WriterError):  # the store is down: what waits goes to disk
                writer.flush()
    finally:
        relay.restore()
        os.environ["AWS_ENDPOINT_URL"] = endpoint
    event_file = writer._engine.file
    spilled = event_file.spill_path
    kept = sum(entry.stat().st_size for entry in os.scandir(spilled)) if spilled else 0
    closing = clock()
    with contextlib.suppress(sl.WriterError):  # raises the outage, reported once more
        writer.close()
    assert event_file.bytes_uploaded > event_file.bytes_written, "everything uploaded after the outage"
    return {
        "caller": (logged - start) / calls,
        "held": event_file.held_high_water,
        "kept": kept,
        "close": clock() - closing,
        "logged": event_file.bytes_written,
    }


def read_back(logdir: str) -> tuple[float, int]:
    """(seconds to read every value of `logdir`, values read)."""
    from summarylib.reader import iter_values

    start = clock()
    count = sum(1 for _ in iter_values(logdir))
    return clock() - start, count


def files_of(logdir: str) -> int:
    """The event files (segment objects in a bucket) the reader reads in `logdir`."""
    from summarylib.reader import find_sources

    return sum(len(files) for files in find_sources(logdir).values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parse_with_quick(parser, calls=20_000, repeats=2)
    from summarylib.writer.run_files import DEFAULT_UPLOAD_MILLIS
    from tests.s3_server import s3_server

    rows = []
    with s3_server(BUCKET) as relay, tempfile.TemporaryDirectory() as local_root:
        endpoint = f"http://127.0.0.1:{relay.target_port}"
        os.environ["AWS_ENDPOINT_URL"] = endpoint  # moto itself
        for name, root in (("local disk", local_root), ("S3 (moto, s3fs)", f"s3://{BUCKET}")):
            runs = [log_scalars(f"{root}/run{i}", args.calls, flushes=10) for i in range(args.repeats)]
            timing = Timing(min(t.caller for t, _ in runs), min(t.total for t, _ in runs))
            event_file = runs[0][1]
            uploaded = getattr(event_file, "bytes_uploaded", None)
            ratio = f"{uploaded / event_file.bytes_written:.3f}" if uploaded else "-"
            per_hour = f"{3600_000 // DEFAULT_UPLOAD_MILLIS}" if uploaded else "1 file"
            # Each run read twice (reads are short, and the store shares the cores): the best counts.
            seconds, count = min(read_back(f"{root}/run{i % args.repeats}") for i in range(2 * args.repeats))
            rows.append((name, timing, ratio, per_hour, seconds / count, files_of(f"{root}/run0"), count))
        outage = log_through_outage(f"s3://{BUCKET}/outage", args.calls, relay, endpoint)
    print(f"{args.calls:,} scalar calls per run, 10 flushes, best of {args.repeats}\n")
    print(
        "| destination | caller µs/call | total µs/call (incl. close) | bytes uploaded / event bytes "
        "| objects per hour | reader µs/value | files read | values read |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, timing, ratio, per_hour, read, files, values in rows:
        print(
            f"| {name} | {timing.caller / args.calls * 1e6:.2f} | {timing.total / args.calls * 1e6:.2f} "
            f"| {ratio} | {per_hour} | {read * 1e6:.2f} | {files} | {values:,} |"
        )
    assert rows[0][6] == rows[1][6], "both sides must read the same values"
    local_read, remote_read = rows[0][4], rows[1][4]
    ratio = remote_read / local_read
    goal("reading a run: on S3 (moto) / on disk", f"{ratio:.2f}x", "<= 1.5x", ratio <= 1.5)
    mib = 1 << 20
    print(
        f"\nStore down while logging ({outage['logged'] / mib:.0f} MiB of events): caller "
        f"{outage['caller'] * 1e6:.2f} µs/call, segment file held at most {outage['held'] / mib:.1f} MiB, "
        f"{outage['kept'] / mib:.1f} MiB waited on local disk, close() after the store came back "
        f"uploaded it all in {outage['close']:.2f} s"
    )


if __name__ == "__main__":
    main()
