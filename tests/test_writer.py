"""The writer resource's lifecycle (close, flush, collection) and its generic writes (`write`, raw protos)."""

from __future__ import annotations

import gc
import os

import numpy as np
import pytest

import summarylib as sl
from summarylib.proto import summary_pb2
from summarylib.reader import iter_events


def summaries(path):
    """[(tag, step)] of the summary values in one event file."""
    return [(v.tag, e.step) for e in iter_events(path) for v in e.summary.value]


# Closing -------------------------------------------------------------------------------


def test_close_is_idempotent_and_closed_writer_errors(logdir):
    writer = sl.create_file_writer(logdir)
    with writer as same:
        assert same is writer
        writer.set_as_default(step=0)
        sl.scalar("x", 1.0)
    assert writer.closed
    writer.close()
    writer.flush()
    with pytest.raises(RuntimeError, match="closed"), writer.as_default():
        pass
    with pytest.raises(RuntimeError, match="closed"):
        writer.set_as_default()
    with pytest.raises(RuntimeError, match="closed"):
        sl.scalar("after_close", 2.0)  # it is still this thread's default
    assert summaries(writer.path) == [("x", 0)]


def test_flush_writes_to_the_os_without_closing(logdir):
    writer = sl.create_file_writer(logdir, flush_millis=60_000, max_queue=10_000)
    with writer.as_default(step=0):
        for i in range(100):
            sl.scalar("x", float(i))
        sl.flush(writer)
        assert len(summaries(writer.path)) == 100
        writer.flush(fsync=True)
    stats = writer.stats()
    assert (
        stats.events_written == 100
        and stats.errors == 0
        and stats.bytes_written == os.path.getsize(writer.path)
    )
    writer.close()


def test_garbage_collected_writer_writes_everything(logdir):

    writer = sl.create_file_writer(logdir, flush_millis=60_000)
    path = writer.path
    with writer.as_default(step=1):
        sl.scalar("x", 1.0)
    sl.write("y", [1.0], step=2)  # no default writer any more: not written
    del writer
    gc.collect()
    assert summaries(path) == [("x", 1)]


# Generic tensors and raw summaries ------------------------------------------------------


def test_write_generic_tensor_with_metadata_and_callable(logdir):
    from tests.tensorboard_data import read_tensors

    metadata = summary_pb2.SummaryMetadata()
    metadata.plugin_data.plugin_name = "custom"
    metadata.plugin_data.content = b"\x01"
    metadata.data_class = summary_pb2.DATA_CLASS_TENSOR  # how TensorBoard's data layer finds it
    writer = sl.create_file_writer(logdir)
    data = np.arange(6, dtype=np.int16).reshape(2, 3)
    with writer.as_default(step=4):
        assert sl.write("custom/t", data, metadata=metadata)
        assert sl.write("custom/t", lambda: data * 2, step=5, metadata=metadata.SerializeToString())
        data[:] = -1  # mutation after the call changes nothing written
        assert sl.write("strings", np.array([["a", "é"], ["b", "c"]]), metadata=metadata)
    writer.close()
    tensors = read_tensors(logdir, "custom")["."]
    (s4, t4), (s5, t5) = tensors["custom/t"]
    assert (s4, s5) == (4, 5)
    np.testing.assert_array_equal(t4, np.arange(6, dtype=np.int16).reshape(2, 3))
    np.testing.assert_array_equal(t5, 2 * np.arange(6).reshape(2, 3))
    assert t4.dtype == np.int16
    assert tensors["strings"][0][1].tolist() == [[b"a", "é".encode()], [b"b", b"c"]]


def test_write_rejects_bad_metadata_and_dtypes(logdir):
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0):
        with pytest.raises(TypeError, match=r"summarylib\.write: tag 't': argument 'metadata'"):
            sl.write("t", [1], metadata="scalars")
        with pytest.raises(ValueError, match="metadata"):
            sl.write("t", [1], metadata=b"\xff\xff\xff")
        with pytest.raises(TypeError, match=r"tag 't'.*tensor"):
            sl.write("t", np.array([object()]))
    writer.close()
    assert summaries(writer.path) == []


def test_write_raw_pb_and_tensorboard_protos(logdir):
    from tensorboard.compat.proto import summary_pb2 as tb_summary

    theirs = tb_summary.Summary(value=[tb_summary.Summary.Value(tag="legacy", simple_value=3.5)])
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=2):
        assert sl.write_raw_pb(theirs.SerializeToString())
        assert sl.write_raw_pb(theirs, step=3)
        with pytest.raises(ValueError, match="write_raw_pb"):
            sl.write_raw_pb(b"\xff\xff")
        with pytest.raises(TypeError, match="write_raw_pb"):
            sl.write_raw_pb("text")
    writer.close()
    values = [(e.step, v.tag, v.simple_value) for e in iter_events(writer.path) for v in e.summary.value]
    assert values == [(2, "legacy", 3.5), (3, "legacy", 3.5)]
