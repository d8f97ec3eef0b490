"""Following live runs (a Reader hands out only what is new, never twice) and tables."""

from __future__ import annotations

import itertools
import os

import numpy as np

import summarylib as sl
from summarylib.format import records
from summarylib.proto import summary_pb2
from summarylib.reader import (
    TRUNCATED,
    Reader,
    load_table,
)
from tests.event_files import event, event_path, metadata, scalar_event, write_events, write_scalars

# Follow mode -------------------------------------------------------------------------------


def test_follow_mode_continues_where_it_stopped_and_picks_up_new_files_and_runs(tmp_path):
    logdir = str(tmp_path)
    path = event_path(os.path.join(logdir, "a"))
    write_events(path, [scalar_event("x", s, float(s)) for s in range(5)])
    follow = Reader(logdir)
    assert [v.step for v in follow] == [0, 1, 2, 3, 4]
    assert list(follow) == []
    complete = records.frame(scalar_event("x", 5, 5.0).SerializeToString())
    with open(path, "ab") as file:
        file.write(complete[:30])  # a record being written
    assert list(follow) == []
    assert [(p.offset, p.kind) for p in follow.problems] == [(os.path.getsize(path) - 30, TRUNCATED)]
    with open(path, "ab") as file:
        file.write(complete[30:])
    write_events(path, [scalar_event("x", 6, 6.0)])
    write_events(event_path(os.path.join(logdir, "b")), [scalar_event("y", 1, 1.0)])
    write_events(
        event_path(os.path.join(logdir, "a"), "events.out.tfevents.1800000000.h"), [scalar_event("x", 7, 7.0)]
    )
    assert [(v.run, v.step) for v in follow] == [("a", 5), ("a", 6), ("a", 7), ("b", 1)]
    assert follow.problems == []


def test_follow_mode_hands_out_nothing_twice_when_iteration_stops_early(tmp_path):
    path = event_path(str(tmp_path))
    values = [summary_pb2.Summary.Value(tag=t, simple_value=1.0) for t in ("p", "q", "r")]
    write_events(path, [event(0, *values), *(scalar_event("x", s, 0.0) for s in range(1, 40))])
    follow = Reader(path)
    seen = []
    for count in (2, 1, 5, 100):
        seen += [(v.tag, v.step) for v in itertools.islice(follow.values(), count)]
    assert seen == [("p", 0), ("q", 0), ("r", 0)] + [("x", s) for s in range(1, 40)]


def test_follow_mode_table_holds_only_new_values(tmp_path):
    path = event_path(str(tmp_path))
    write_events(path, [scalar_event("x", s, float(s)) for s in range(3)])
    follow = Reader(path)
    assert follow.table(as_dataframe=False)["step"].tolist() == [0, 1, 2]
    write_events(path, [scalar_event("x", 3, 3.0)])
    assert follow.table(as_dataframe=False)["value"].tolist() == [3.0]


# Tables ------------------------------------------------------------------------------------


def test_load_table_as_numpy_columns(tmp_path):
    write_scalars(str(tmp_path / "train"), 50, "loss")
    write_scalars(str(tmp_path / "eval"), 20, "acc")
    writer = sl.create_file_writer(str(tmp_path / "eval"))
    with writer.as_default(step=1):
        sl.write("h", np.ones((2, 3)), metadata=metadata("histograms"))
    writer.close()
    table = load_table(str(tmp_path), as_dataframe=False)
    assert list(table) == ["run", "tag", "step", "wall_time", "value"]
    assert table["run"].tolist() == ["eval"] * 20 + ["train"] * 50
    assert table["tag"].tolist() == ["acc"] * 20 + ["loss"] * 50
    assert table["step"].dtype == np.int64 and table["step"].tolist() == list(range(20)) + list(range(50))
    assert table["value"].dtype == np.float64 and table["value"][-1] == 24.5
    assert table["wall_time"].dtype == np.float64
    everything = load_table(str(tmp_path), plugins=None, as_dataframe=False)
    assert everything["value"].dtype == object and np.array_equal(everything["value"][20], np.ones((2, 3)))
    empty = load_table(str(tmp_path), tags="missing", as_dataframe=False)
    assert [len(column) for column in empty.values()] == [0] * 5


def test_load_table_as_pandas_dataframe(tmp_path):
    import pandas as pd

    write_scalars(str(tmp_path / "train"), 30, "loss")
    write_scalars(str(tmp_path / "eval"), 10, "acc")
    frame = load_table(str(tmp_path))  # pandas is installed: a DataFrame by default
    columns = load_table(str(tmp_path), as_dataframe=False)
    assert isinstance(frame, pd.DataFrame) and list(frame.columns) == [
        "run",
        "tag",
        "step",
        "wall_time",
        "value",
    ]
    assert isinstance(frame["run"].dtype, pd.CategoricalDtype)
    for name, column in columns.items():
        assert frame[name].tolist() == column.tolist()
    assert frame.groupby("run", observed=True)["step"].max().to_dict() == {"eval": 9, "train": 29}
