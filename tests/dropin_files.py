"""What a logdir holds, read as raw protos, so a drop-in's files can be compared with the
files of the writer it replaces value for value: every run (a directory with event
files), every event's step and each of its Summary values, serialized (a proto's bytes
are the same when every field is).

Runs named by the time, as torch and tensorboardX name `add_hparams`'s runs, are named
`<time 0>`, `<time 1>`, ... in the order of their times, so two logdirs written at other
times compare."""

from __future__ import annotations

import os
import re

from tensorboard.backend.event_processing import event_file_loader

_TIME_NAME = re.compile(r"^\d{9,}\.\d+$")


def _event_files(directory: str) -> list[str]:
    return sorted(name for name in os.listdir(directory) if "tfevents" in name)


def run_values(logdir: str) -> dict[str, list[tuple[int, bytes]]]:
    """{run: [(step, serialized Summary.Value), ...]} in file and record order; the runs
    named by the time renamed as the module docstring says."""
    runs = {}
    for directory, _, _ in os.walk(logdir):
        files = _event_files(directory)
        if not files:
            continue
        values = []
        for name in files:
            loader = event_file_loader.LegacyEventFileLoader(os.path.join(directory, name))
            for event in loader.Load():
                values += [(event.step, value.SerializeToString()) for value in event.summary.value]
        runs[os.path.relpath(directory, logdir)] = values
    timed = sorted(
        (run for run in runs if _TIME_NAME.match(os.path.basename(run))),
        key=lambda r: float(os.path.basename(r)),
    )
    for index, run in enumerate(timed):
        runs[f"<time {index}>"] = runs.pop(run)
    return runs
