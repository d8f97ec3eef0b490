"""The writer under faults (issue 19): a disk that fills up half-way through a write (a real
size-limited tmpfs, RLIMIT_FSIZE in a child), an event that fails to encode among valid
ones, a logdir that cannot take a new file for a while, and a logdir deleted under
`add_scalars` series. Every event written after the fault is over must be readable by
TensorBoard's own loaders and by summarylib's reader, and what was lost is exactly what
`stats()` counts."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import subprocess
import sys
import textwrap

import pytest
from tensorboard.backend.event_processing import plugin_event_accumulator
from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

import summarylib as sl
from summarylib.compat.torch import SummaryWriter as TorchWriter
from summarylib.format import records
from summarylib.ops.scalar.encoding import scalar_event
from summarylib.reader import iter_events
from summarylib.writer.engine import Engine, WriterError
from summarylib.writer.event_codec import event_of_summary, raw_event
from summarylib.writer.event_file import EventFile, v2_file_names
from summarylib.writer.rolling_file import RollingEventFile
from tests.clock import Clock
from tests.full_disk import tmpfs
from tests.tensorboard_data import read_scalars

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def loader_steps(logdir: str, tag: str) -> list[int]:
    """Steps of `tag` over the run's files as TensorBoard's EventFileLoader reads them."""
    steps = []
    for name in sorted(os.listdir(logdir)):
        for event in EventFileLoader(os.path.join(logdir, name)).Load():
            steps += [event.step for value in event.summary.value if value.tag == tag]
    return steps


def accumulator_steps(logdir: str, tag: str) -> list[int]:
    """Steps of `tag` as TensorBoard's plugin EventAccumulator (its dashboards' loader)
    keeps them, with no downsampling."""
    accumulator = plugin_event_accumulator.EventAccumulator(logdir, tensor_size_guidance={"scalars": 0})
    accumulator.Reload()
    return [event.step for event in accumulator.Tensors(tag)]


def reader_steps(logdir: str, tag: str) -> list[int]:
    """Steps of `tag` as summarylib's reader finds them."""
    steps = []
    for name in sorted(os.listdir(logdir)):
        for event in iter_events(os.path.join(logdir, name)):
            steps += [event.step for value in event.summary.value if value.tag == tag]
    return steps


def fill(directory: str, leave: int) -> str:
    """A filler file that leaves about `leave` bytes free on the file system of `directory`."""
    path = os.path.join(directory, "filler")
    stat = os.statvfs(directory)
    with open(path, "wb") as file:
        file.write(b"\0" * max(0, stat.f_bavail * stat.f_frsize - leave))
    return path


# 1. A write that fails part-way ---------------------------------------------------------


def test_disk_full_part_way_then_freed_loses_only_what_stats_counts(tmp_path):
    with tmpfs(str(tmp_path / "mnt"), "size=2m") as mount:
        logdir = os.path.join(mount, "run")
        writer = sl.create_file_writer(logdir, flush_millis=600_000, max_queue=10**6)
        filler = fill(mount, leave=100_000)
        raised = 0
        with writer.as_default():
            for step in range(20_000):  # ~1.7 MB of records: the disk fills inside a write
                sl.scalar("x", float(step), step=step)
                if step % 2000 == 1999:
                    try:
                        writer.flush()
                    except WriterError:
                        raised += 1
            os.remove(filler)  # the disk has room again
            for step in range(20_000, 22_000):
                sl.scalar("x", float(step), step=step)
            writer.flush()  # nothing failed since the last report
        writer.close()
        stats = writer.stats()
        assert raised >= 1 and stats.errors >= 1 and stats.events_lost > 0
        steps = loader_steps(logdir, "x")
        after = list(range(20_000, 22_000))
        assert steps[-2000:] == after  # every event written after recovery
        assert len(steps) == len(set(steps)) == 22_000 - stats.events_lost  # lost: exactly the count
        assert stats.events_written == len(steps)
        assert accumulator_steps(logdir, "x") == steps == reader_steps(logdir, "x")


EFBIG_CHILD = """
import json, logging, resource, signal, sys
import summarylib as sl
from summarylib.compat.torch import SummaryWriter
logging.basicConfig()
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of dying of the signal
logdir, api = sys.argv[1], sys.argv[2]
if api == "torch":
    writer = SummaryWriter(logdir, max_queue=10**6, flush_secs=600)
    log = lambda step: writer.add_scalar("x", float(step), step)
    engine_writer = writer._writer  # the summarylib writer underneath: its stats()
else:
    writer = sl.create_file_writer(logdir, max_queue=10**6, flush_millis=600_000)
    writer.set_as_default()
    log = lambda step: sl.scalar("x", float(step), step=step)
    engine_writer = writer
log(0)
writer.flush()
resource.setrlimit(resource.RLIMIT_FSIZE, (30_000, resource.RLIM_INFINITY))  # the disk fills
raised = 0
for step in range(1, 3000):
    log(step)
    if step % 97 == 0:  # writes of ~8 kB: one is cut part-way at the limit, then all fail
        try:
            writer.flush()
        except sl.WriterError:
            raised += 1
try:
    writer.flush()
except sl.WriterError:
    raised += 1
resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
for step in range(3000, 5000):
    log(step)
writer.flush()  # nothing failed since the last report
writer.close()
stats = engine_writer.stats()
print(json.dumps({"raised": raised, "lost": stats.events_lost, "written": stats.events_written,
                  "errors": stats.errors, "last_error": stats.last_error}))
"""


@pytest.mark.parametrize("api", ["v2", "torch"])
@pytest.mark.slow
def test_file_size_limit_part_way_then_raised_loses_only_what_stats_counts(logdir, api):
    code = EFBIG_CHILD
    env = dict(os.environ, PYTHONPATH=ROOT)
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), logdir, api],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["raised"] >= 1 and "File too large" in report["last_error"]
    assert report["lost"] > 0
    steps = loader_steps(logdir, "x")
    assert steps[-2000:] == list(range(3000, 5000))  # every event written after the limit rose
    assert len(steps) == len(set(steps)) == 5000 - report["lost"] == report["written"]
    assert reader_steps(logdir, "x") == steps


# 2b. One event that fails to encode -----------------------------------------------------


def _broken_summary(tag: str) -> bytes:
    raise ValueError(f"cannot encode {tag}")


def test_an_event_that_fails_to_encode_is_dropped_alone(logdir, caplog):
    os.makedirs(logdir)
    engine = Engine("faults", EventFile(logdir), max_queue=10**6, flush_millis=600_000)
    caplog.set_level(logging.WARNING, logger="summarylib")
    for step in range(3000):  # one batch of scalars: the bad tag is not UTF-8
        engine.submit(scalar_event, ("bad\ud800" if step == 1500 else "good", float(step), None), 1.0, step)
    engine.flush(quiet=True)  # as leaving as_default() does: the once-only warning
    with pytest.raises(WriterError, match=r"summarylib\.scalar: tag 'bad"):
        engine.flush()
    for step in range(3000, 3010):  # single-event makers: one fails among valid ones
        if step == 3005:
            engine.submit(event_of_summary, (_broken_summary, "broken"), 1.0, step)
        engine.submit(scalar_event, ("good", float(step), None), 1.0, step)
        engine.submit(raw_event, (b"\x10" + bytes((step - 2990,)),), 1.0, 0)  # an event of step 10..19
    engine.flush(quiet=True)
    with pytest.raises(WriterError, match="_broken_summary: tag 'broken'"):
        engine.close()
    stats = engine.stats()
    assert stats.events_dropped == 2 and stats.events_lost == 0
    assert stats.events_written == stats.events_queued - 2 == 3000 - 1 + 20
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2  # once per failure not yet reported, not once per event
    assert "summarylib.scalar: tag 'bad" in warnings[0] and "tag 'broken'" in warnings[1]
    expected = [step for step in range(3010) if step != 1500]
    assert loader_steps(logdir, "good") == expected == reader_steps(logdir, "good")
    raw_steps = [e.step for e in EventFileLoader(engine.file.path).Load() if not e.HasField("summary")]
    assert raw_steps == [0, *range(10, 20)]  # the first event, then every raw event


# 5. A logdir that cannot take a new file for a while -----------------------------------


def test_a_roll_that_cannot_create_its_file_keeps_the_old_one_and_resumes(tmp_path):
    with tmpfs(str(tmp_path / "mnt"), "size=4m,nr_inodes=16") as mount:
        logdir = os.path.join(mount, "run")
        os.makedirs(logdir)
        clock = Clock()
        rolling = RollingEventFile(logdir, None, v2_file_names, retain_seconds=40.0, clock=clock)
        engine = Engine("rolling", rolling, flush_millis=600_000)
        fillers = []
        with contextlib.suppress(OSError):  # every free inode taken: no new file can be made
            while True:
                fillers.append(os.path.join(mount, f"filler{len(fillers)}"))
                open(fillers[-1], "w").close()
        step = 0
        for phase in range(6):
            if phase == 4:
                for path in fillers:
                    with contextlib.suppress(FileNotFoundError):
                        os.remove(path)
            for _ in range(100):
                engine.submit(scalar_event, ("x", float(step), None), 1.0, step)
                step += 1
            clock.now += 11.0  # past a roll interval every phase
            with contextlib.suppress(WriterError):  # the rolls while no inode is free
                engine.flush()
        engine.close()
        stats = engine.stats()
        assert stats.errors >= 1 and "No space left" in stats.last_error  # the failed roll, reported
        assert stats.events_lost == 0 and stats.events_written == 600
        assert len(rolling.files()) >= 2  # it rolled again once inodes were free
        assert loader_steps(logdir, "x") == list(range(600)) == reader_steps(logdir, "x")


@pytest.mark.parametrize("retain_seconds", [None, 3600.0])
def test_a_logdir_replaced_by_a_file_for_a_while_then_restored(logdir, retain_seconds):
    writer = sl.create_file_writer(logdir, flush_millis=600_000, retain_seconds=retain_seconds)
    with writer.as_default():
        for step in range(100):
            sl.scalar("x", float(step), step=step)
        writer.flush()
        shutil.rmtree(logdir)
        with open(logdir, "w") as file:  # not a directory: binds root too
            file.write("in the way")
        for step in range(100, 400):
            sl.scalar("x", float(step), step=step)
            if step % 50 == 0:
                with contextlib.suppress(WriterError):
                    writer.flush()
        os.remove(logdir)
        for step in range(400, 700):
            sl.scalar("x", float(step), step=step)
        with contextlib.suppress(WriterError):
            writer.flush()
        writer.flush()
    writer.close()
    stats = writer.stats()
    steps = loader_steps(logdir, "x")
    assert steps[-300:] == list(range(400, 700))  # every event after recovery, in order
    assert stats.events_lost > 0 and len(steps) == 600 - stats.events_lost  # those while it was a file
    assert reader_steps(logdir, "x") == steps


# 6. add_scalars series after the logdir is deleted -------------------------------------


def test_add_scalars_series_are_recreated_after_the_logdir_is_deleted(logdir, caplog):
    writer = TorchWriter(logdir, flush_secs=600)
    for step in range(100):
        writer.add_scalars("loss", {"train": float(step), "val": -float(step)}, step)
    writer.flush()
    shutil.rmtree(logdir)
    with caplog.at_level(logging.WARNING, logger="summarylib"):
        for step in range(100, 2100):
            writer.add_scalars("loss", {"train": float(step), "val": -float(step)}, step)
        with pytest.raises(WriterError, match="was deleted"):
            writer.flush()
        writer.add_scalar("after", 1.0, 1)  # the once-only warning comes on a call
        with pytest.raises(WriterError, match="was deleted"):  # the run's own file, this time
            writer.close()
    scalars = read_scalars(logdir)
    for series in ("loss_train", "loss_val"):
        assert [step for step, _ in scalars[series]["loss"]] == list(range(100, 2100))
    warnings = " ".join(r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
    assert "loss_train" in warnings or "loss_val" in warnings  # names a deleted series file


def test_a_series_that_cannot_be_written_counts_its_events_lost_then_resumes(logdir):
    writer = TorchWriter(logdir, flush_secs=600)
    blocked = os.path.join(logdir, "loss_train")
    open(blocked, "w").close()  # a file where the series' directory goes
    for step in range(100):
        writer.add_scalars("loss", {"train": float(step), "val": float(step)}, step)
    with pytest.raises(WriterError, match="loss_train"):
        writer.flush()
    os.remove(blocked)
    for step in range(100, 200):
        writer.add_scalars("loss", {"train": float(step), "val": float(step)}, step)
    writer.flush()
    stats = writer._writer.stats()  # the summarylib writer under the torch-style one
    writer.close()
    assert (stats.events_lost, stats.events_dropped) == (100, 0)  # a write failure, not a bad value
    assert stats.events_written == stats.events_queued - 100 == 300  # series events count as written
    scalars = read_scalars(logdir)
    assert [step for step, _ in scalars["loss_train"]["loss"]] == list(range(100, 200))
    assert [step for step, _ in scalars["loss_val"]["loss"]] == list(range(200))


def test_series_file_deleted_while_suspended_is_reported(tmp_path):
    from summarylib.writer.series_files import SeriesFiles

    series = SeriesFiles(max_open=1)
    first, second = str(tmp_path / "a"), str(tmp_path / "b")
    series.write(first, records.frame(b""))
    series.write(second, records.frame(b""))  # suspends a's file
    shutil.rmtree(first)
    series.write(first, records.frame(b""))
    with pytest.raises(FileNotFoundError, match="was deleted"):
        series.flush()
    series.flush()  # reported once
    series.close()
    assert len(os.listdir(first)) == 1


def test_an_event_that_cannot_be_framed_is_dropped_alone(logdir):
    os.makedirs(logdir)
    engine = Engine("raw", EventFile(logdir), flush_millis=600_000)
    engine.submit(raw_event, (b"\x10\x01",), 0, 0)  # step 1
    engine.submit(raw_event, (object(),), 0, 0)  # not bytes: the maker returns it, framing fails
    engine.submit(raw_event, (b"\x10\x02",), 0, 0)
    with pytest.raises(WriterError, match="raw_event"):
        engine.flush()
    engine.close()
    assert engine.stats().events_dropped == 1
    assert [e.step for e in EventFileLoader(engine.file.path).Load()] == [0, 1, 2]
