"""A clock stepped back (NTP, a VM resumed) between two files of one run: the new file is
still named after the run's newest, so a TensorBoard that follows the run in name order
(and never returns to an earlier name) reads the steps written after the step back.

The earlier file is written by a clock ahead of now: here a run's file renamed an hour
into the future, which is the name it would have had then."""

from __future__ import annotations

import os
import time

import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

import summarylib as sl
from summarylib.compat import v1
from summarylib.format import records
from summarylib.writer.event_file import v2_file_names
from summarylib.writer.rolling_file import RollingEventFile
from tests.clock import Clock

AHEAD = 3600  # seconds the clock was ahead when the run's newest file was named


def _write_steps(logdir: str, steps: range) -> None:
    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        for step in steps:
            sl.scalar("loss", float(step), step=step)
    writer.close()


def _move_into_the_future(directory: str, name: str) -> str:
    """Rename the event file `name` as if it had been named AHEAD seconds later."""
    prefix, seconds, rest = name.split(".", 3)[:3], name.split(".")[3], name.split(".", 4)[4]
    future = ".".join([*prefix, f"{int(seconds) + AHEAD:010d}", rest])
    os.rename(os.path.join(directory, name), os.path.join(directory, future))
    return future


def test_a_following_tensorboard_reads_the_steps_written_after_the_clock_stepped_back(tmp_path):
    run = str(tmp_path / "run")
    _write_steps(run, range(30))
    (first,) = os.listdir(run)
    newest = _move_into_the_future(run, first)
    accumulator = EventAccumulator(run, size_guidance={"tensors": 0})  # every step kept
    assert [event.step for event in accumulator.Reload().Tensors("loss")] == list(range(30))
    _write_steps(run, range(30, 60))  # a new writer (a restarted job) after the step back
    (second,) = set(os.listdir(run)) - {newest}
    assert sorted([newest, second])[-1] == second
    assert [event.step for event in accumulator.Reload().Tensors("loss")] == list(range(60))


def test_a_rolling_file_rolls_to_a_name_after_the_runs_newest(tmp_path):
    clock = Clock()
    rolling = RollingEventFile(str(tmp_path), None, v2_file_names, retain_seconds=8.0, clock=clock)
    rolling.write(records.frame(v1.scalar("x", 1.0)))
    planted = f"events.out.tfevents.{int(time.time()) + AHEAD:010d}.otherhost.1.000000.v2"
    (tmp_path / planted).write_bytes(b"")  # the run's newest file, named while the clock was ahead
    clock.now += rolling.roll_seconds + 1
    rolling.write(records.frame(v1.scalar("x", 2.0)))
    newest = sorted(os.listdir(tmp_path))[-1]
    assert newest != planted and newest == os.path.basename(rolling.files()[-1])
    rolling.close()


def test_an_object_store_writer_names_its_segments_after_the_runs_newest():
    fsspec = pytest.importorskip("fsspec", reason="fsspec is not installed (the remote extra)")
    fs = fsspec.filesystem("memory")
    planted = f"/clock/run/events.out.tfevents.{int(time.time()) + AHEAD:010d}.otherhost.1.0.v2"
    fs.pipe(planted, b"")
    _write_steps("memory://clock/run", range(3))
    names = sorted(os.path.basename(path) for path in fs.ls("/clock/run", detail=False))
    assert len(names) == 2 and names[0] == os.path.basename(planted)
