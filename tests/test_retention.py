"""retain_seconds: a run that keeps only its last seconds on disk, in rolling event files
that TensorBoard keeps following."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

import summarylib as sl
from summarylib.compat import v1
from summarylib.format import records
from summarylib.proto import event_pb2, summary_pb2
from summarylib.reader import iter_events
from summarylib.writer.event_file import v2_file_names
from summarylib.writer.rolling_file import RollingEventFile
from tests.clock import Clock
from tests.tensorboard_server import get_json, running_tensorboard, wait_for


def steps_in(path: str) -> list[int]:
    return [event.step for event in iter_events(path) if event.HasField("summary")]


def test_files_roll_and_only_the_retained_seconds_stay(tmp_path):
    clock = Clock()
    rolling = RollingEventFile(str(tmp_path), None, v2_file_names, retain_seconds=8.0, clock=clock)
    assert rolling.roll_seconds == 2.0
    for step in range(40):  # one event every half second, for 20 seconds
        rolling.write(records.frame(_event(step, v1.scalar("x", float(step)))))
        clock.now += 0.5
    on_disk = sorted(os.path.join(tmp_path, name) for name in os.listdir(tmp_path))
    assert on_disk == sorted(rolling.files())
    assert len(on_disk) <= 8.0 / 2.0 + 1
    kept = [step for path in rolling.files() for step in steps_in(path)]
    assert kept == list(range(kept[0], 40))  # the newest steps, whole records, in order
    assert 40 - kept[0] >= 8.0 / 0.5  # at least the retained seconds
    rolling.close()


def _event(step: int, summary: bytes) -> bytes:
    event = event_pb2.Event(step=step, wall_time=1.0, summary=summary_pb2.Summary.FromString(summary))
    return event.SerializeToString()


@pytest.mark.parametrize("value", [0, -1, "10", True])
def test_retain_seconds_must_be_positive(logdir, value):
    with pytest.raises(ValueError, match=r"argument 'retain_seconds': expected a positive number of seconds"):
        sl.create_file_writer(logdir, retain_seconds=value)


@pytest.mark.slow
def test_tensorboard_keeps_showing_the_newest_images_while_files_roll(logdir):
    writer = sl.create_file_writer(logdir, retain_seconds=2, flush_millis=100)
    image = np.random.default_rng(0).integers(0, 256, (1, 64, 64, 3), dtype=np.uint8)
    step = 0

    def log_for(seconds: float) -> None:
        nonlocal step
        end = time.monotonic() + seconds
        with writer.as_default():
            while time.monotonic() < end:
                sl.image("live", image, step=step)
                step += 1
                writer.flush()
                time.sleep(0.02)

    log_for(1.0)
    with running_tensorboard(logdir) as base:
        first = wait_for(
            lambda: get_json(base, "data/plugin/images/images", run=".", tag="live", sample=0),
            lambda found: bool(found),
        )
        log_for(4.0)  # files roll every second; those older than 2 s are deleted
        newest = step - 1
        latest = wait_for(
            lambda: get_json(base, "data/plugin/images/images", run=".", tag="live", sample=0),
            lambda found: found and found[-1]["step"] == newest,
        )
    writer.close()
    assert latest[-1]["step"] > first[-1]["step"]
    files = sorted(os.listdir(logdir))
    assert 1 <= len(files) <= 4
    remaining = [s for name in files for s in steps_in(os.path.join(logdir, name))]
    assert remaining[-1] == newest and remaining[0] > 0  # the oldest steps are gone
    assert remaining == list(range(remaining[0], newest + 1))
