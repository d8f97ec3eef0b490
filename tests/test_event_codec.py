"""The hand-written hot path produces exactly the bytes of the generated code."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from summarylib.format import records
from summarylib.format.wire import read_varint, varint
from summarylib.ops.scalar import encoding as scalar_encoding
from summarylib.proto import event_pb2, summary_pb2
from summarylib.writer.event_codec import summary_event

int64s = st.integers(-(2**63), 2**63 - 1)
tags = st.text(min_size=1, max_size=300)
descriptions = st.none() | st.text(max_size=200)


@given(int64s)
def test_varint_matches_protobuf(value):
    assert summary_event(0.0, value, b"") == event_pb2.Event(step=value, summary={}).SerializeToString()
    assert varint(value)[-1] < 0x80


@given(int64s)
def test_read_varint_reads_what_varint_writes(value):
    data = b"\x01" + varint(value) + b"\x02"
    assert read_varint(data, 1, len(data) - 1) == (value % 2**64, len(data) - 1)
    with pytest.raises(ValueError):
        read_varint(data, 1, len(data) - 2)  # cut short


@given(st.floats(allow_nan=False), int64s, st.lists(tags, max_size=3))
def test_summary_event_matches_protobuf(wall_time, step, summary_tags):
    summary = summary_pb2.Summary(value=[{"tag": tag} for tag in summary_tags])
    expected = event_pb2.Event(wall_time=wall_time, step=step, summary=summary)
    assert summary_event(wall_time, step, summary.SerializeToString()) == expected.SerializeToString()


@given(st.floats(allow_nan=False), int64s, tags, st.floats(width=32) | st.floats(), descriptions)
def test_scalar_event_matches_protobuf(wall_time, step, tag, value, description):
    expected = event_pb2.Event(wall_time=wall_time, step=step)
    item = expected.summary.value.add(tag=tag)
    item.tensor.CopyFrom(scalar_encoding.tensor(value))
    item.metadata.CopyFrom(scalar_encoding.create_metadata(description))
    assert (
        scalar_encoding.scalar_event(wall_time, step, tag, value, description) == expected.SerializeToString()
    )


def test_float32_overflow_becomes_infinity_like_a_cast():
    for value in (1e39, -1e39, 3.4028235e38, 3.40282356e38, math.inf, -math.inf, 1e-50):
        with np.errstate(over="ignore"):
            expected = np.array(value, dtype="<f4").tobytes()
        assert scalar_encoding.float32_bytes(value) == expected


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(allow_nan=False, min_value=-1e12, max_value=1e12),
            int64s,
            st.sampled_from(["loss", "acc", "ünï/tag"]),
            st.floats(allow_nan=False) | st.floats(width=32, allow_nan=False),
            st.sampled_from([None, "described"]),
        ),
        min_size=1,
        max_size=60,
    )
)
def test_batched_scalar_events_equal_one_by_one_in_queue_order(items):
    batch = [(wall, step, (tag, value, description)) for wall, step, tag, value, description in items]
    framed = [
        (positions, records.frame_rows(rows)) for positions, rows in scalar_encoding.scalar_events(batch)
    ]
    expected = b"".join(records.frame(scalar_encoding.scalar_event(w, s, *args)) for w, s, args in batch)
    assert records.interleave(framed, len(batch)) == expected


def test_batched_float32_overflow_and_nan_match_one_by_one():
    batch = [(1.5, 7, ("x", value, None)) for value in (1e39, -1e39, math.nan, math.inf, 3.4028235e38)]
    events = {
        int(p): row.tobytes()
        for ps, rows in scalar_encoding.scalar_events(batch)
        for p, row in zip(ps, rows, strict=True)
    }
    assert [events[p] for p in range(len(batch))] == [
        scalar_encoding.scalar_event(w, s, *args) for w, s, args in batch
    ]
