"""Many runs written through one writer's thread, with few descriptors open."""

from __future__ import annotations

import os
import threading

import pytest

import summarylib as sl
from summarylib.ops.scalar.encoding import scalar_event
from summarylib.reader import iter_events
from summarylib.writer.series_files import SeriesFiles, series_event


def open_descriptors() -> int:
    return len(os.listdir("/proc/self/fd"))


def scalars_of(path: str) -> list[tuple[int, str, float]]:
    return [
        (event.step, value.tag, value.tensor.float_val[0] if value.tensor.float_val else value.simple_value)
        for event in iter_events(path)
        for value in event.summary.value
    ]


def log_series(writer, series, logdir, runs: int, steps: int) -> None:
    for step in range(steps):
        for run in range(runs):
            run_dir = os.path.join(logdir, f"loss_{run}")
            writer.submit(series_event, (series, run_dir, scalar_event, ("loss", 0.5, None)), 1.0, step)


def test_a_thousand_runs_keep_the_descriptors_bounded_and_every_event(logdir):
    writer = sl.create_file_writer(logdir)
    series = SeriesFiles(max_open=8)
    before = open_descriptors()
    peak = [before]
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            peak.append(open_descriptors())

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        log_series(writer, series, logdir, runs=1000, steps=3)
        writer.flush()
    finally:
        stop.set()
        sampler.join()
    assert series.open_count() <= 8
    assert max(peak) - before <= 8 + 4  # the pool, plus the sampler's own listdir
    writer.close()
    series.close()
    paths = series.paths()
    assert len(paths) == 1000
    for run_dir, path in paths.items():
        assert os.path.dirname(path) == run_dir
        assert [step for step, _, _ in scalars_of(path)] == [0, 1, 2]


def test_flush_of_the_writer_covers_its_series(logdir):
    writer = sl.create_file_writer(logdir, flush_millis=600_000)
    series = SeriesFiles(max_open=2)
    log_series(writer, series, logdir, runs=3, steps=1)
    writer.flush()
    assert all(len(scalars_of(path)) == 1 for path in series.paths().values())
    writer.close()
    series.close()


def test_a_series_file_deleted_while_idle_continues_in_a_new_file(logdir):
    writer = sl.create_file_writer(logdir)
    series = SeriesFiles(max_open=1)
    log_series(writer, series, logdir, runs=2, steps=1)
    writer.flush()
    first = series.paths()[os.path.join(logdir, "loss_0")]
    os.remove(first)  # suspended: loss_1 was written last
    log_series(writer, series, logdir, runs=2, steps=1)
    writer.close()
    series.close()
    second = series.paths()[os.path.join(logdir, "loss_0")]
    assert second != first and [s for s, _, _ in scalars_of(second)] == [0]


def test_a_failing_series_is_reported_not_fatal(logdir):
    writer = sl.create_file_writer(logdir)
    series = SeriesFiles()
    os.makedirs(logdir, exist_ok=True)
    blocker = os.path.join(logdir, "loss_0")
    with open(blocker, "w") as file:  # a file where the run's directory should be
        file.write("x")
    log_series(writer, series, logdir, runs=2, steps=2)
    with pytest.raises(sl.WriterError):
        writer.flush()
    writer.close()
    series.close()
    assert [s for s, _, _ in scalars_of(series.paths()[os.path.join(logdir, "loss_1")])] == [0, 1]
