"""A file cut back and appended to while a Reader follows it (a run restarted into the
same file, a copy tool rewriting it): the cut is reported in `problems`, and the values
appended after it are handed out."""

from __future__ import annotations

import os

import summarylib as sl
from summarylib.compat import v1
from summarylib.format import records
from summarylib.proto import event_pb2, summary_pb2
from summarylib.reader import Reader


def _records(steps: range) -> bytes:
    """Framed scalar events, one a step, with the file-version event first at step 0."""
    data = records.frame(event_pb2.Event(file_version="brain.Event:2").SerializeToString())
    for step in steps:
        event = event_pb2.Event(
            step=step, wall_time=1.0, summary=summary_pb2.Summary.FromString(v1.scalar("x", step))
        )
        data += records.frame(event.SerializeToString())
    return data


def _steps(reader: Reader) -> list[int]:
    return [value.step for value in reader.values()]


def test_values_appended_after_the_file_was_cut_back_are_read_and_the_cut_reported(tmp_path):
    path = tmp_path / "events.out.tfevents.1700000000.host.1.0.v2"
    path.write_bytes(_records(range(10)))
    reader = Reader(str(tmp_path))
    assert _steps(reader) == list(range(10))
    kept = _records(range(3))
    with open(path, "r+b") as file:  # cut back to the first three steps (a restart's checkpoint)
        file.truncate(len(kept))
    assert _steps(reader) == [] and [p.kind for p in reader.problems] == ["shrunk"]
    with open(path, "ab") as file:  # the restarted run appends
        file.write(_records(range(3, 6))[len(_records(range(0))) :])
    assert _steps(reader) == [3, 4, 5]
    (problem,) = reader.problems
    assert problem.offset == len(kept) and str(path) in str(problem)


def test_a_file_rewritten_shorter_before_the_reader_looks_is_read_from_where_it_ends(tmp_path):
    """Cut to nothing and rewritten (shorter than what was read): nothing read before is
    handed out twice, the cut is reported, and what is appended next is read."""
    path = tmp_path / "events.out.tfevents.1700000000.host.1.0.v2"
    path.write_bytes(_records(range(20)))
    reader = Reader(str(tmp_path))
    assert len(_steps(reader)) == 20
    path.write_bytes(_records(range(100, 105)))
    assert _steps(reader) == []
    assert [p.kind for p in reader.problems] == ["shrunk"]
    with open(path, "ab") as file:
        file.write(_records(range(105, 107))[len(_records(range(0))) :])
    assert _steps(reader) == [105, 106]


def test_a_writer_that_starts_over_in_the_same_directory_is_followed(tmp_path):
    writer = sl.create_file_writer(str(tmp_path))
    with writer.as_default():
        sl.scalar("loss", 1.0, step=1)
    writer.close()
    reader = Reader(str(tmp_path))
    assert _steps(reader) == [1]
    (name,) = os.listdir(tmp_path)
    os.truncate(tmp_path / name, 0)
    assert _steps(reader) == [] and reader.problems[0].kind == "shrunk"
