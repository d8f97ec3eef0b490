"""Object-store writers while the store fails or crawls: moto's real S3 server through the
tests' relay, cut (an outage) or throttled (a slow store). Memory stays bounded, the
training loop goes on, and once the store is back every event is in the bucket; what
cannot be uploaded is kept in a local spill directory and named, and what cannot even be
spilled is counted as lost, step by step."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

import pytest

pytest.importorskip("s3fs", reason="s3fs is not installed (the remote-test extra)")
pytest.importorskip("moto.server", reason="moto[server] is not installed (the remote-test extra)")

import fsspec

import summarylib as sl
from summarylib.compat.torch import SummaryWriter as TorchStyleWriter
from summarylib.reader import iter_values
from summarylib.writer import segment_uploads
from tests.full_disk import tmpfs
from tests.s3_server import bucket_fixtures
from tests.tensorboard_data import read_scalars

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUCKET = "summarylib-faults"
MiB = 1 << 20
# Store requests fail at once, without botocore's own retries, so a test's outage is short.
ONE_ATTEMPT = {"config_kwargs": {"retries": {"max_attempts": 1}}}


s3, url, spill_root = bucket_fixtures(BUCKET)


@pytest.fixture(autouse=True)
def _quick_retries(monkeypatch):
    """Retries after 50 ms instead of a second, so a restored store is used at once."""
    monkeypatch.setattr(segment_uploads, "FIRST_BACKOFF", 0.05)
    monkeypatch.setattr(segment_uploads, "MAX_BACKOFF", 0.2)


def logged_steps(url: str, tag: str) -> list[int]:
    return [value.step for value in iter_values(url) if value.tag == tag]


# A training loop in a child process (so its RSS is its own): per step a scalar into run
# "scalars" and a 1 MiB tensor of text into run "blobs", `megabytes` steps, while the parent
# has cut or throttled the store. (Two runs, so that TensorBoard's loader, whose CRC is
# pure Python, reads only the small one.) It reports how much its peak RSS grew while
# logging and the most the blobs' event file held.
LOOP = """
import json, os, sys
import summarylib as sl
from summarylib.writer import segment_uploads
url, megabytes, flush_millis = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
segment_uploads.FIRST_BACKOFF, segment_uploads.MAX_BACKOFF = 0.05, 0.2

def status(field):
    with open("/proc/self/status") as lines:
        return next(int(line.split()[1]) << 10 for line in lines if line.startswith(field))

writers = [
    sl.create_file_writer(
        f"{url}/{run}", flush_millis=flush_millis, max_queue_bytes=4 << 20,
        storage_options={"config_kwargs": {"retries": {"max_attempts": 1}}})
    for run in ("scalars", "blobs")
]
payload = os.urandom(1 << 20)  # bytes: the queue holds this one object, not a copy a step

def log(step):
    writers[0].set_as_default()  # (leaving as_default() would flush)
    sl.scalar("x", float(step), step=step)
    writers[1].set_as_default()
    sl.text("blob", payload, step=step)

def flush():
    for writer in writers:
        try:
            writer.flush()
        except sl.WriterError:
            pass

log(0)
flush()
print("ready", flush=True)
sys.stdin.readline()  # the parent cuts or throttles the store
base = status("VmRSS:")
with open("/proc/self/clear_refs", "w") as clear:
    clear.write("5")  # VmHWM, the peak RSS, starts again from here
for step in range(1, megabytes + 1):
    log(step)
print("logged", flush=True)
sys.stdin.readline()  # a slow store is fast again
flush()
blobs = writers[1]._engine.file
spilled = blobs.spill_path is not None
report = {"growth": status("VmHWM:") - base, "held": blobs.held_high_water, "spilled": spilled}
print(json.dumps(report), flush=True)
sys.stdin.readline()  # the parent restores the store
for writer in writers:
    writer.close()
print("closed", flush=True)
"""


def start_child(spill_root, script: str, *args: str, stderr=None) -> subprocess.Popen:
    """Start `script` in a child with TMPDIR `spill_root`, once it has said "ready"."""
    child = subprocess.Popen(
        [sys.executable, "-c", script, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        env=dict(os.environ, PYTHONPATH=ROOT, TMPDIR=str(spill_root)),
    )
    if child.stdout.readline().strip() != "ready":
        child.kill()
        raise AssertionError(f"the child did not start: exit status {child.wait()}")
    return child


def run_loop(url: str, megabytes: int, flush_millis: int, spill_root, during, logged, before_close) -> dict:
    """Run LOOP with TMPDIR `spill_root`; call `during()` before it logs, `logged()` once
    it has logged, and `before_close()` once it has tried to flush and reported; return
    what it reported."""
    child = start_child(spill_root, LOOP, url, str(megabytes), str(flush_millis))
    try:
        during()
        child.stdin.write("go\n")
        child.stdin.flush()
        assert child.stdout.readline().strip() == "logged"
        logged()
        child.stdin.write("flush\n")
        child.stdin.flush()
        report = json.loads(child.stdout.readline())
        before_close()
        child.stdin.write("close\n")
        child.stdin.flush()
        assert child.stdout.readline().strip() == "closed"
        assert child.wait(60) == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    return report


def assert_everything_uploaded(url: str, last_step: int) -> None:
    """Every step of both runs is in the bucket, once and in order, for summarylib's reader
    and for TensorBoard's loader."""
    assert logged_steps(url + "/scalars", "x") == list(range(last_step + 1))
    assert logged_steps(url + "/blobs", "blob") == list(range(last_step + 1))
    assert [step for step, _ in read_scalars(url + "/scalars")["."]["x"]] == list(range(last_step + 1))


@pytest.mark.skipif(not os.path.exists("/proc/self/clear_refs"), reason="needs Linux's /proc peak RSS reset")
@pytest.mark.slow
def test_an_outage_holds_bounded_memory_and_every_event_is_uploaded_after(s3, url, spill_root):
    """40 MiB logged while the store is down: the file holds at most its 4 MiB bound, the
    process grows by far less than it logged, and all of it is in the bucket after."""
    report = run_loop(url, 40, 100, spill_root, during=s3.cut, logged=lambda: None, before_close=s3.restore)
    assert report["held"] <= 4 * MiB + 2 * MiB  # the bound, plus one write of the engine
    assert report["growth"] < 24 * MiB  # 4 MiB queue + 4 MiB held + encoding and upload copies
    assert report["spilled"]
    assert_everything_uploaded(url, 40)
    assert list(spill_root.iterdir()) == []  # the spill went once uploaded


@pytest.mark.skipif(not os.path.exists("/proc/self/clear_refs"), reason="needs Linux's /proc peak RSS reset")
@pytest.mark.slow
def test_a_slow_store_holds_bounded_memory_and_every_event_is_uploaded(s3, url, spill_root):
    """A store taking 4 MiB/s while the loop logs 40 MiB, with the default 30 s upload
    interval: segments are cut by size, what waits beyond the bound is spilled."""

    def unthrottle():
        s3.rate = None

    def throttle():
        s3.rate = 4 * MiB

    try:
        report = run_loop(
            url, 40, 30_000, spill_root, during=throttle, logged=unthrottle, before_close=lambda: None
        )
    finally:
        s3.rate = None
    assert report["held"] <= 4 * MiB + 2 * MiB
    assert report["growth"] < 24 * MiB
    assert report["spilled"]  # what the store could not take yet waited on local disk
    assert_everything_uploaded(url, 40)
    assert list(spill_root.iterdir()) == []  # the spill went once uploaded


@pytest.mark.slow
def test_close_while_the_store_is_down_names_what_it_keeps_and_where(s3, url, spill_root):
    """The kept files are the objects the run lacks: readable where they are, and copying
    them into the run's prefix completes it."""
    writer = sl.create_file_writer(url, flush_millis=50, storage_options=ONE_ATTEMPT)
    writer.set_as_default()
    for step in range(10):
        sl.scalar("x", float(step), step=step)
    writer.flush()
    s3.cut()
    try:
        for step in range(10, 50):
            sl.scalar("x", float(step), step=step)
        with pytest.raises(sl.WriterError, match=r"wait for the store, .* kept in"):
            writer.flush()
        with pytest.raises(sl.WriterError) as closing:
            writer.close()
    finally:
        s3.restore()
    (kept,) = [str(path) for path in spill_root.iterdir()]
    message = str(closing.value)
    assert "40 events" in message and "steps 10..49" in message and kept in message
    assert writer.stats().last_error is not None and "40 events" in writer.stats().last_error
    assert logged_steps(url, "x") == list(range(10))
    assert logged_steps(kept, "x") == list(range(10, 50))  # complete event files, on local disk
    assert [step for step, _ in read_scalars(kept)["."]["x"]] == list(range(10, 50))
    fs, run = fsspec.core.url_to_fs(url)
    for name in sorted(os.listdir(kept)):
        fs.put_file(os.path.join(kept, name), f"{run}/{name}")
    assert logged_steps(url, "x") == list(range(50))
    assert [step for step, _ in read_scalars(url)["."]["x"]] == list(range(50))


@pytest.mark.slow
def test_close_after_an_unreported_upload_failure_still_gives_the_account(s3, url, spill_root):
    """An upload failed in the background and nobody flushed: close() raises that first
    failure and also the account of what it kept and where."""
    writer = sl.create_file_writer(url, flush_millis=50, storage_options=ONE_ATTEMPT)
    writer.set_as_default()
    s3.cut()
    try:
        for step in range(20):
            sl.scalar("x", float(step), step=step)
        deadline = time.monotonic() + 30
        while writer.stats().errors == 0 and time.monotonic() < deadline:
            time.sleep(0.05)  # the writer's own upload, at its interval, fails
        assert writer.stats().errors > 0
        with pytest.raises(sl.WriterError) as closing:
            writer.close()
    finally:
        s3.restore()
    (kept,) = [str(path) for path in spill_root.iterdir()]
    message = str(closing.value)
    assert "20 events" in message and "steps 0..19" in message and kept in message
    assert logged_steps(kept, "x") == list(range(20))


@pytest.mark.slow
def test_a_restored_store_gets_every_spilled_segment_and_the_spill_is_removed(s3, url, spill_root):
    writer = sl.create_file_writer(url, flush_millis=50, storage_options=ONE_ATTEMPT)
    writer.set_as_default()
    s3.cut()
    try:
        for step in range(30):
            sl.scalar("x", float(step), step=step)
        with pytest.raises(sl.WriterError, match="kept in"):
            writer.flush()  # a failed flush moves what waits onto local disk
        assert len(os.listdir(next(spill_root.iterdir()))) >= 1
    finally:
        s3.restore()
    writer.close()
    assert logged_steps(url, "x") == list(range(30))
    assert list(spill_root.iterdir()) == []


@pytest.mark.slow
def test_when_even_the_spill_is_full_the_lost_events_are_counted_exactly(s3, url, tmp_path, monkeypatch):
    """Spill on a 1 MiB tmpfs, 1 MiB held in memory, 6 MB logged while the store is down:
    the rest is lost, and the account (events, steps) matches what the bucket lacks."""
    with tmpfs(str(tmp_path / "mnt"), "size=1m") as mount:
        monkeypatch.setattr(tempfile, "tempdir", mount)
        writer = sl.create_file_writer(
            url, flush_millis=50, max_queue_bytes=1 * MiB, storage_options=ONE_ATTEMPT
        )
        writer.set_as_default()
        payload = os.urandom(100_000)
        s3.cut()
        try:
            for step in range(60):
                sl.scalar("x", float(step), step=step)
                sl.text("blob", payload, step=step)
            with pytest.raises(sl.WriterError):
                writer.flush()
        finally:
            s3.restore()
        with pytest.raises(sl.WriterError):
            writer.close()
    # Each tag on its own: a scalar and the text of its step may end up in different
    # segments (nothing ties them to one), so one may be uploaded and the other lost.
    missing = []
    for tag in ("x", "blob"):
        uploaded = logged_steps(url, tag)
        assert uploaded == sorted(uploaded), tag
        missing += sorted(set(range(60)) - set(uploaded))
    assert 0 < len(missing) < 120
    assert writer._engine.file.events_lost == len(missing)
    last_error = writer.stats().last_error
    assert f"lost in all: {len(missing)} events" in last_error
    assert f"steps {min(missing)}..{max(missing)}" in last_error


@pytest.mark.slow
def test_a_flush_on_a_crawling_store_gives_up_in_time_and_the_uploads_go_on(s3, url, spill_root, monkeypatch):
    """A flush waits for the store at most STALL_TIMEOUT, then says what still waits (kept
    on disk) and lets the loop go on; the uploads carry on and close() completes them."""
    monkeypatch.setattr(segment_uploads, "STALL_TIMEOUT", 0.5)
    writer = sl.create_file_writer(url, flush_millis=50, storage_options=ONE_ATTEMPT)
    writer.set_as_default()
    s3.rate = 20_000  # bytes per second
    try:
        for step in range(2_000):
            sl.scalar("x", float(step), step=step)
        with pytest.raises(sl.WriterError, match=r"did not finish in 0.5 s; .* kept in"):
            writer.flush()
    finally:
        s3.rate = None
    monkeypatch.setattr(segment_uploads, "STALL_TIMEOUT", 30.0)  # the relay's last slow chunk
    writer.close()
    assert logged_steps(url, "x") == list(range(2_000))
    assert list(spill_root.iterdir()) == []


def upload_threads() -> int:
    return sum(thread.name.startswith("summarylib-upload") for thread in threading.enumerate())


def test_upload_threads_end_when_idle_so_a_writer_of_many_series_keeps_few(monkeypatch):
    """Each add_scalars series is a run of its own, with its own uploads: their threads end
    once idle and start again with the next segment."""
    monkeypatch.setattr(segment_uploads, "IDLE_SECONDS", 0.05)
    logdir = "memory://idle-uploads"
    with TorchStyleWriter(logdir) as writer:
        for step in range(3):
            writer.add_scalars("lr", {f"s{i}": float(i) for i in range(40)}, step)
            writer.flush()
            deadline = time.monotonic() + 30
            while upload_threads() and time.monotonic() < deadline:
                time.sleep(0.01)
            assert upload_threads() == 0
    for i in range(40):
        assert [value.step for value in iter_values(f"{logdir}/lr_s{i}")] == [0, 1, 2]


SIGTERM_LOOP = """
import sys, time
import summarylib as sl
writer = sl.create_file_writer(
    sys.argv[1], storage_options={"config_kwargs": {"retries": {"max_attempts": 1}}})
writer.set_as_default()
sl.scalar("x", 0.0, step=0)
writer.flush()
print("ready", flush=True)
sys.stdin.readline()  # the parent cuts the store
for step in range(1, 100):
    sl.scalar("x", float(step), step=step)
print("logged", flush=True)
time.sleep(60)
"""


@pytest.mark.slow
def test_sigterm_while_the_store_is_down_leaves_the_events_on_local_disk(s3, url, spill_root):
    """SIGTERM's flush cannot upload; it keeps what waits in the spill before the process
    dies of the signal: the bucket and the spill hold every step between them."""
    child = start_child(spill_root, SIGTERM_LOOP, url, stderr=subprocess.DEVNULL)
    try:
        s3.cut()
        child.stdin.write("go\n")
        child.stdin.flush()
        assert child.stdout.readline().strip() == "logged"
        child.send_signal(signal.SIGTERM)
        assert child.wait(60) == -signal.SIGTERM
    finally:
        s3.restore()
        if child.poll() is None:
            child.kill()
            child.wait()
    (kept,) = [str(path) for path in spill_root.iterdir()]
    assert logged_steps(url, "x") == [0]
    assert logged_steps(kept, "x") == list(range(1, 100))
