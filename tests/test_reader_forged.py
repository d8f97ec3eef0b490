"""Reading forged and hostile event files: values that promise more memory than their bytes
hold, values that cannot be decoded, and CRC-valid record lengths that run past the end of
the file while valid records follow. Neighbours stay readable, damage is reported, strict
reading raises `CorruptRecordError`, and a following `Reader` moves past it."""

from __future__ import annotations

import math
import os
import struct
import tracemalloc

import numpy as np
import pytest

from summarylib import inspect
from summarylib.format import records
from summarylib.proto import event_pb2, summary_pb2, tensor_pb2, types_pb2
from summarylib.reader import CORRUPT, TRUNCATED, CorruptRecordError, Reader, iter_values, load_table
from tests.event_files import event, event_path, metadata, record_offsets, scalar_event, write_events
from tests.test_inspect import run_inspect


def tensor_value(tag: str, plugin: str = "", **tensor) -> summary_pb2.Summary.Value:
    """A tensor summary value of `plugin` with the TensorProto fields given."""
    return summary_pb2.Summary.Value(
        tag=tag, metadata=metadata(plugin), tensor=tensor_pb2.TensorProto(**tensor)
    )


def float_tensor(shape: list[int], **values) -> dict:
    return {"dtype": types_pb2.DT_FLOAT, "tensor_shape": {"dim": [{"size": s} for s in shape]}, **values}


def offsets_of(events: list[event_pb2.Event]) -> list[int]:
    """The file offset of each event's record when framed one after another."""
    offsets, position = [], 0
    for e in events:
        offsets.append(position)
        position += len(e.SerializeToString()) + 16
    return offsets


def scalars_around(bad: list[event_pb2.Event], between: int = 10) -> tuple[list, list[int]]:
    """Scalar events (tag 'x', steps 0, 1, ...) with each of `bad` after every `between`, and
    the indices of the bad ones."""
    events, bad_at, step = [], [], 0
    for hostile in bad:
        for _ in range(between):
            events.append(scalar_event("x", step, float(step)))
            step += 1
        bad_at.append(len(events))
        events.append(hostile)
    events += [scalar_event("x", step + k, float(step + k)) for k in range(between)]
    return events, bad_at


HOSTILE_VALUES = {
    # Item 10: 40-odd bytes that promised gigabytes.
    "half a billion floats from one": tensor_value(
        "h", "histograms", **float_tensor([500_000_000], float_val=[1])
    ),
    "a 1e5 x 1e5 matrix": tensor_value("m", "", **float_tensor([100_000, 100_000], float_val=[0.5])),
    "an element count past 2**64": tensor_value("o", "", **float_tensor([2**62, 2**62, 16])),
    # Item 11: undecodable values.
    "a negative dimension": tensor_value("n", "scalars", **float_tensor([-5], float_val=[1, 2])),
    "an unknown dtype": tensor_value("u", "", dtype=999, tensor_shape={}, tensor_content=b"\0" * 4),
    "tensor_content of the wrong size": tensor_value("c", "", **float_tensor([3], tensor_content=b"\0" * 5)),
    "more values than elements": tensor_value("v", "", **float_tensor([2], float_val=[1, 2, 3])),
    "image sizes that are not numbers": tensor_value(
        "i",
        "images",
        dtype=types_pb2.DT_STRING,
        tensor_shape={"dim": [{"size": 3}]},
        string_val=[b"w", b"h", b""],
    ),
}


@pytest.mark.parametrize("why", list(HOSTILE_VALUES))
def test_a_hostile_value_is_reported_and_its_neighbours_read(tmp_path, why):
    hostile = HOSTILE_VALUES[why]
    good = summary_pb2.Summary.Value(tag="y", simple_value=2.5)
    events, bad_at = scalars_around([event(100, hostile), event(101, hostile, good)])
    path = event_path(str(tmp_path))
    write_events(path, events)
    offsets = offsets_of(events)
    tracemalloc.start()
    try:
        problems = []
        values = [(v.tag, v.step) for v in iter_values(path, tolerant=True, problems=problems)]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20  # the file is 2 KiB
    assert values == [("x", s) for s in range(20)] + [("y", 101)] + [("x", s) for s in range(20, 30)]
    assert [(p.offset, p.kind) for p in problems] == [(offsets[i], CORRUPT) for i in bad_at]
    assert all(f"tag {hostile.tag!r}" in p.detail for p in problems)
    table = load_table(path, plugins=None, tolerant=True, as_dataframe=False)
    assert table["tag"].tolist() == [tag for tag, _ in values]
    report = inspect.inspect(path)
    assert sorted(p.offset for p in report.problems) == [offsets[i] for i in bad_at]


@pytest.mark.parametrize("why", list(HOSTILE_VALUES))
def test_strict_reading_raises_corrupt_record_error_once_and_a_reader_moves_past(tmp_path, why):
    events, bad_at = scalars_around([event(100, HOSTILE_VALUES[why])])
    path = event_path(str(tmp_path))
    write_events(path, events)
    offset = offsets_of(events)[bad_at[0]]
    steps = []
    with pytest.raises(
        CorruptRecordError, match=f"{path}: corrupt record at byte offset {offset}: "
    ) as error:
        steps.extend(v.step for v in iter_values(path))
    assert error.value.offset == offset and steps == list(range(10))
    reader, steps = Reader(path), []
    with pytest.raises(CorruptRecordError):
        steps.extend(v.step for v in reader)
    assert steps == list(range(10))
    assert [v.step for v in reader] == list(range(10, 20))
    assert [(p.offset, p.kind) for p in reader.problems] == [(offset, CORRUPT)]
    with pytest.raises(CorruptRecordError):
        load_table(path, plugins=None)
    reader = Reader(path)
    with pytest.raises(CorruptRecordError):
        reader.table(as_dataframe=False)
    assert reader.table(as_dataframe=False)["step"].tolist() == list(range(20))


def test_a_following_reader_is_not_stuck_at_an_undecodable_value(tmp_path):
    """89 of 182 values were readable: the Reader stayed at the bad record forever."""
    path = event_path(str(tmp_path))
    events, _ = scalars_around([event(100, HOSTILE_VALUES["a negative dimension"])], between=89)
    write_events(path, events[:120])
    follow = Reader(path, tolerant=True)
    seen = [v.step for v in follow]
    write_events(path, events[120:])
    seen += [v.step for v in follow]
    assert seen == list(range(178)) and len(follow.problems) == 1


def test_one_long_string_among_many_short_ones_takes_no_more_than_the_text(tmp_path):
    """numpy's str arrays pad every element to the longest: 10k strings, one of 40k characters,
    asked for 1.6 GB."""
    path = event_path(str(tmp_path))
    strings = [b"x" * 40_000, *[b"ab"] * 10_000]
    text = tensor_value(
        "t", "text", dtype=types_pb2.DT_STRING, tensor_shape={"dim": [{"size": len(strings)}]}
    )
    text.tensor.string_val.extend(strings)
    write_events(path, [event(1, text), event(2, tensor_value("u", "text", **text_tensor(["a", "bc"])))])
    tracemalloc.start()
    try:
        long, short = list(iter_values(path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 32 * os.path.getsize(path)
    assert long.value.tolist() == [s.decode() for s in strings] and long.value.shape == (10_001,)
    assert short.value.dtype == np.dtype("<U2") and short.value.tolist() == ["a", "bc"]


def text_tensor(texts: list[str]) -> dict:
    return {
        "dtype": types_pb2.DT_STRING,
        "tensor_shape": {"dim": [{"size": len(texts)}]},
        "string_val": [t.encode() for t in texts],
    }


def test_small_tensors_are_still_filled_with_their_last_value(tmp_path):
    path = event_path(str(tmp_path))
    write_events(path, [event(1, tensor_value("t", "", **float_tensor([4, 4], float_val=[1, 2])))])
    (value,) = iter_values(path)
    assert value.value.tolist() == [[1, 2, 2, 2]] + [[2] * 4] * 3


# Item 12: a CRC-valid record length that runs past the end of the file ----------------------


def forged_length(length: int) -> bytes:
    """A record header of `length` with a matching CRC, and 20 bytes that are no record."""
    return (
        struct.pack("<Q", length)
        + struct.pack("<I", records.masked_crc32c(struct.pack("<Q", length)))
        + bytes(range(1, 21))
    )


@pytest.mark.parametrize("length", [2**63, 2**64 - 1, 10_000])
def test_a_forged_length_mid_file_is_corruption_not_a_tail(tmp_path, length):
    path = event_path(str(tmp_path))
    write_events(path, [scalar_event("x", s, float(s)) for s in range(50)])
    offset = os.path.getsize(path)
    with open(path, "ab") as file:
        file.write(forged_length(length))
    write_events(path, [scalar_event("x", s, float(s)) for s in range(50, 80)])
    with pytest.raises(CorruptRecordError, match=f"byte offset {offset}: "):
        list(iter_values(path))
    problems = []
    assert [v.step for v in iter_values(path, tolerant=True, problems=problems)] == list(range(80))
    assert [(p.offset, p.kind, p.size) for p in problems] == [(offset, CORRUPT, 32)]
    assert [p.offset for p in inspect.inspect(path).problems] == [offset]


def test_a_forged_length_at_the_end_is_still_a_truncated_tail_and_a_reader_waits(tmp_path):
    path = event_path(str(tmp_path))
    write_events(path, [scalar_event("x", s, float(s)) for s in range(5)])
    size = os.path.getsize(path)
    with open(path, "ab") as file:
        file.write(forged_length(2**63))
    problems = []
    assert [v.step for v in iter_values(path, problems=problems)] == list(range(5))
    assert [(p.offset, p.kind) for p in problems] == [(size, TRUNCATED)]
    os.truncate(path, size)
    follow = Reader(path)
    assert len(list(follow)) == 5
    whole = records.frame(scalar_event("x", 5, 5.0).SerializeToString())
    with open(path, "ab") as file:
        file.write(whole[:-3])  # a live writer mid-write
    assert list(follow) == [] and [p.kind for p in follow.problems] == [TRUNCATED]
    with open(path, "ab") as file:
        file.write(whole[-3:])
    assert [v.step for v in follow] == [5] and follow.problems == []


def test_inspect_reports_forged_values_and_lengths_and_wall_times_that_are_no_time(tmp_path):
    path = event_path(str(tmp_path / "run"))
    write_events(
        path,
        [
            scalar_event("x", 0, 0.0, wall_time=math.inf),
            event(1, HOSTILE_VALUES["a negative dimension"]),
            scalar_event("x", 2, 2.0, wall_time=math.nan),
            scalar_event("y", 3, 2.0, wall_time=-1e300),
        ],
    )
    forged_at = os.path.getsize(path)
    with open(path, "ab") as file:
        file.write(forged_length(2**63))
    write_events(path, [scalar_event("x", 4, 4.0)])
    value_at = record_offsets(path)[1]
    result = run_inspect("--logdir", str(tmp_path))
    assert result.returncode == 1, result.stderr
    damage = [line for line in result.stdout.splitlines() if line.startswith("DAMAGE: ")]
    assert [line.rsplit(" ", 1)[-1] for line in damage] == [str(value_at), str(forged_at)]
    assert "value of tag 'n' cannot be decoded: shape [-5] has a negative dimension" in damage[0]
    assert "nan .. nan" in result.stdout and "-1e+300 .. -1e+300" in result.stdout
    assert run_inspect("--logdir", str(tmp_path), "--json").returncode == 1


def test_resyncing_over_a_long_run_of_zeros_takes_a_few_times_its_size_not_thirty(tmp_path):
    """Every position of a zero run looked like a header of length 0 and had its CRC computed:
    16 times the run's size in index and CRC arrays."""
    path = event_path(str(tmp_path))
    write_events(path, [scalar_event("x", 1, 1.0)])
    with open(path, "ab") as file:
        file.write(bytes(4 << 20))
    write_events(path, [scalar_event("x", 2, 2.0)])
    tracemalloc.start()
    try:
        problems = []
        steps = [v.step for v in iter_values(path, tolerant=True, problems=problems)]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert steps == [1, 2] and [p.size for p in problems] == [4 << 20]
    assert peak < 8 * os.path.getsize(path)


@pytest.mark.parametrize("written", [5, 30])  # part of the header, the header and some payload
def test_a_following_reader_reads_the_record_being_written_after_damage(tmp_path, written):
    path = event_path(str(tmp_path))
    write_events(path, [scalar_event("x", 0, 0.0)])
    damaged_at = os.path.getsize(path)
    following = [records.frame(scalar_event("x", s, float(s)).SerializeToString()) for s in (1, 2)]
    with open(path, "ab") as file:
        file.write(b"\xff" * 40 + following[0][:written])  # junk, then a record being written
    follow = Reader(path, tolerant=True)
    assert [v.step for v in follow] == [0]
    with open(path, "ab") as file:
        file.write(following[0][written:] + following[1][:written])
    assert [v.step for v in follow] == [1]
    with open(path, "ab") as file:
        file.write(following[1][written:])
    assert [v.step for v in follow] == [2]
    assert min(p.offset for p in follow.problems if p.kind == CORRUPT) == damaged_at
