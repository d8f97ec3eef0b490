"""The writer resource: event files, the default-writer context, steps, recording."""

from __future__ import annotations

import asyncio
import gc
import itertools
import os
import pathlib
import re
import socket
import threading
import time
import warnings

import numpy as np
import pytest

import summarylib as sl
from summarylib.format import records
from summarylib.proto import summary_pb2
from summarylib.reader import iter_events, iter_records, iter_values
from summarylib.writer import event_file, lifecycle
from summarylib.writer.context import StepCounter, counted_steps


def summaries(path):
    """[(tag, step)] of the summary values in one event file."""
    return [(v.tag, e.step) for e in iter_events(path) for v in e.summary.value]


def event_files(logdir):
    return sorted(os.path.join(logdir, n) for n in os.listdir(logdir) if "tfevents" in n)


class Untouchable:
    """Data an op must not look at when it will not record."""

    def __array__(self, *args, **kwargs):
        raise AssertionError("converted")

    def __float__(self):
        raise AssertionError("converted")

    def item(self):
        raise AssertionError("converted")


# Event files ---------------------------------------------------------------------------


def test_file_name_and_first_event_are_on_disk_at_once(logdir):
    before = int(time.time())
    writer = sl.create_file_writer(logdir)
    name = os.path.basename(writer.path)
    match = re.fullmatch(r"events\.out\.tfevents\.(\d{10})\.(.+)\.(\d+)\.(\d+)\.v2", name)
    assert match, name
    assert before <= int(match[1]) <= time.time()
    assert match[2] == socket.gethostname() and int(match[3]) == os.getpid()
    (first,) = list(iter_events(writer.path))  # before any flush
    assert first.file_version == "brain.Event:2"
    assert first.source_metadata.writer == "summarylib"
    assert first.wall_time == int(first.wall_time) == int(match[1])
    writer.close()


def test_suffix_pathlike_and_missing_logdir(tmp_path):
    logdir = tmp_path / "a" / "b"
    with sl.create_file_writer(logdir, filename_suffix=".eval") as writer:
        assert writer.path.endswith(".eval") and pathlib.Path(writer.path).parent == logdir


@pytest.mark.parametrize(
    ("argument", "bad", "kind"),
    [
        ("logdir", None, TypeError),
        ("logdir", b"bytes", TypeError),
        ("logdir", 3, TypeError),
        ("logdir", "", ValueError),
        ("logdir", "runs/a\0b", ValueError),
        ("logdir", "runs/trial\udcff", ValueError),
        ("filename_suffix", "/../../escaped", ValueError),
        ("filename_suffix", ".v2\ud800", ValueError),
        ("filename_suffix", 3, TypeError),
        ("name", 3, TypeError),
        ("name", "w\ud800", ValueError),
        ("storage_options", 3, TypeError),
        ("max_queue", 0, ValueError),
        ("flush_millis", -1, ValueError),
        ("max_queue_bytes", 1.5, ValueError),
        ("max_queue", True, ValueError),
        ("retain_seconds", float("nan"), ValueError),
        ("ranks", np.array([0, 1]), ValueError),
        ("ranks", "some", ValueError),
    ],
)
def test_bad_writer_arguments_are_errors_in_the_one_shape_and_create_nothing(tmp_path, argument, bad, kind):
    """What create_file_writer accepts it can create: a bad argument is an error at the call
    naming it, and nothing is created anywhere (a suffix with a separator once made a file
    outside the logdir, a lone surrogate a directory TensorBoard's loaders crash on)."""
    os.chdir(tmp_path)
    given = {"logdir": "runs/good", argument: bad}
    logdir = given.pop("logdir")
    with pytest.raises(kind, match=rf"^summarylib\.create_file_writer: argument '{argument}': expected"):
        sl.create_file_writer(logdir, **given)
    assert list(tmp_path.iterdir()) == []


def test_files_begun_in_one_second_sort_in_the_order_they_were_begun(logdir, monkeypatch):
    # TensorBoard follows the last file of a run by name: a file begun after another in
    # the same second must sort after it, also where the counter goes from 9 to 10.
    os.makedirs(logdir)
    monkeypatch.setattr(event_file, "_file_counter", itertools.count(8))
    monkeypatch.setattr(event_file.time, "time", lambda: 1_800_000_000.5)
    begun = [event_file.EventFile(logdir) for _ in range(4)]
    for file in begun:
        file.close()
    names = [os.path.basename(file.path) for file in begun]
    assert sorted(names) == names and len(set(names)) == 4


def test_a_writer_collected_while_another_thread_opens_one_closes_without_a_deadlock(tmp_path):
    # The collector runs a dropped writer's finalizer anywhere, even in a writer thread that
    # another thread is starting while it holds the registry of engines (and waits for):
    # found as a CI run that hung in Thread.start. The finalizer must not wait for the
    # registry; the registry's holder closes the dropped writer once it lets go.
    dropped = sl.create_file_writer(str(tmp_path / "dropped"), flush_millis=600_000)
    with dropped.as_default(step=0):
        sl.scalar("x", 1.0)
    engine = dropped._engine
    collected = threading.Event()

    def collect() -> None:
        nonlocal dropped
        del dropped  # its finalizer runs here, on this thread
        gc.collect()
        collected.set()

    with lifecycle._lock:  # what acquire() holds while it starts a new writer's thread
        collector = threading.Thread(target=collect)
        collector.start()
        assert collected.wait(30), "the finalizer waited for the registry its thread's starter holds"
        assert not engine.closed
    collector.join()
    sl.create_file_writer(str(tmp_path / "next")).close()  # the registry's next user
    assert engine.closed
    assert [value.step for value in iter_values(str(tmp_path / "dropped"))] == [0]  # nothing lost


def test_event_files_are_created_exclusively(logdir, monkeypatch):
    os.makedirs(logdir)
    for _ in range(5):
        # Restart the per-process counter so the second file asks for the first's name, as
        # a writer in another container with the same hostname and pid would.
        monkeypatch.setattr(event_file, "_file_counter", itertools.count())
        first = event_file.EventFile(logdir)
        monkeypatch.setattr(event_file, "_file_counter", itertools.count())
        second = event_file.EventFile(logdir)
        if os.path.basename(first.path)[:31] == os.path.basename(second.path)[:31]:
            break  # created in the same second
    assert first.path != second.path
    first.write(records.frame(b"first"))
    second.write(records.frame(b"second"))
    first.close()
    second.close()
    assert [list(iter_records(p))[1:] for p in (first.path, second.path)] == [[b"first"], [b"second"]]


def test_two_writers_of_one_logdir_share_a_file_tensorboard_shows_both(logdir):
    from tests.tensorboard_data import read_scalars

    first = sl.create_file_writer(logdir)
    second = sl.create_file_writer(logdir)
    with first.as_default(step=1):
        sl.scalar("a", 1.0)
    with second.as_default(step=2):
        sl.scalar("b", 2.0)
    first.close()  # the file stays open for the second writer
    with second.as_default(step=3):
        sl.scalar("b", 3.0)
    second.close()
    assert first.path == second.path and len(event_files(logdir)) == 1
    assert read_scalars(logdir) == {".": {"a": [(1, 1.0)], "b": [(2, 2.0), (3, 3.0)]}}


@pytest.mark.parametrize(
    ("first_suffix", "second_suffix"), [(".attrs", None), (None, ".attrs"), (".a", ".b")]
)
def test_a_second_writer_whose_suffix_is_not_used_says_so(logdir, first_suffix, second_suffix):
    """Guild's example opens SummaryWriter(".", filename_suffix=".attrs") beside
    SummaryWriter("."): the run's one file is the first one's, so the other suffix is not
    used, and the writer says so (naming the file) instead of silently mixing them."""
    first = sl.create_file_writer(logdir, filename_suffix=first_suffix)
    with pytest.warns(
        UserWarning, match=r"filename_suffix .* not used: this process already writes"
    ) as caught:
        second = sl.create_file_writer(logdir, filename_suffix=second_suffix)
    assert first.path in str(caught[0].message) and caught[0].filename == __file__
    first.close()
    second.close()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the same suffix, or the default spelled "" or None: silent
        for suffixes in ((".x", ".x"), (None, ""), ("", None)):
            writers = [
                sl.create_file_writer(os.path.join(logdir, "quiet"), filename_suffix=s) for s in suffixes
            ]
            for writer in writers:
                writer.close()


# Default writer, step, recording -------------------------------------------------------


def test_nested_as_default_restores_writer_and_step(tmp_path):
    outer = sl.create_file_writer(tmp_path / "outer")
    inner = sl.create_file_writer(tmp_path / "inner")
    with outer.as_default(step=1):
        sl.scalar("x", 1.0)
        with inner.as_default(step=10):
            assert sl.get_step() == 10
            sl.scalar("x", 2.0)
        assert sl.get_step() == 1
        sl.scalar("x", 3.0)
    assert sl.get_step() is None and not sl.should_record_summaries()
    outer.close()
    inner.close()
    assert summaries(outer.path) == [("x", 1), ("x", 1)]
    assert summaries(inner.path) == [("x", 10)]


def test_a_counted_default_step_is_read_at_each_op(logdir):
    """The Keras callback's batch counter as the default step: ops and get_step read its
    value when they run; leaving the block restores the step before it."""
    counter = StepCounter(3)
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=1):
        with counted_steps(counter):
            sl.scalar("x", 1.0)
            counter.value = 4
            assert sl.get_step() == 4
            sl.scalar("x", 2.0)
            sl.histogram("h", [1.0])
        assert sl.get_step() == 1
    writer.close()
    assert summaries(writer.path) == [("x", 3), ("x", 4), ("h", 4)]


def test_as_default_flushes_on_exit_also_on_exception(logdir):
    writer = sl.create_file_writer(logdir, flush_millis=60_000)
    with pytest.raises(KeyError), writer.as_default(step=5):
        sl.scalar("before_error", 1.0)
        raise KeyError("boom")
    assert summaries(writer.path) == [("before_error", 5)]  # not closed, not explicitly flushed
    writer.close()


def test_set_as_default_and_set_step(logdir):
    writer = sl.create_file_writer(logdir)
    writer.set_as_default(step=7)
    assert sl.scalar("x", 1.0) and sl.get_step() == 7
    sl.set_step(np.int64(8))
    sl.scalar("x", 2.0)
    sl.flush()
    assert summaries(writer.path) == [("x", 7), ("x", 8)]
    writer.close()


def test_defaults_are_per_thread(logdir):
    writer = sl.create_file_writer(logdir)
    seen = {}

    def worker():
        seen["initial"] = (sl.should_record_summaries(), sl.get_step(), sl.scalar("t", 1.0, step=1))
        other = sl.create_noop_writer()
        other.set_as_default(step=99)

    with writer.as_default(step=3):
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        assert sl.get_step() == 3 and sl.should_record_summaries()
    assert seen["initial"] == (False, None, False)
    writer.close()


def test_defaults_are_per_asyncio_task(logdir):
    writer = sl.create_file_writer(logdir)

    async def task(step):
        sl.set_step(step)
        await asyncio.sleep(0.01)
        return sl.get_step(), sl.scalar("task", float(step))

    async def main():
        with writer.as_default():
            return await asyncio.gather(task(1), task(2))

    assert asyncio.run(main()) == [(1, True), (2, True)]
    writer.close()
    assert sorted(summaries(writer.path)) == [("task", 1), ("task", 2)]


def test_record_if_callable_is_evaluated_at_each_op(logdir):
    writer = sl.create_file_writer(logdir)
    calls = []

    def every_other():
        calls.append(1)
        return len(calls) % 2 == 1

    with writer.as_default(), sl.record_if(every_other):
        results = [sl.scalar("x", float(step), step=step) for step in range(4)]
        assert sl.should_record_summaries() is True  # fifth evaluation
    with writer.as_default(), sl.record_if(False):
        assert not sl.should_record_summaries()
        assert sl.scalar("never", Untouchable(), step=0) is False
    writer.close()
    assert results == [True, False, True, False]
    assert summaries(writer.path) == [("x", 0), ("x", 2)]


def test_record_if_rejects_non_conditions():
    with pytest.raises(TypeError, match="record_if"), sl.record_if("yes"):
        pass


def test_no_default_writer_is_a_no_op_that_does_not_convert():
    assert sl.scalar("x", Untouchable(), step=0) is False
    assert sl.scalar(123, Untouchable()) is False  # not even the name is checked
    assert sl.write("x", Untouchable()) is False
    assert sl.write_raw_pb(b"not a proto") is False
    sl.flush()  # nothing to flush: fine


def test_noop_writer(logdir):
    writer = sl.create_noop_writer()
    with writer.as_default(step=1):
        assert sl.scalar("x", Untouchable()) is False
        assert not sl.should_record_summaries()
    writer.flush()
    writer.close()


# Steps ---------------------------------------------------------------------------------


class IndexLike:
    def __init__(self, value):
        self.value = value

    def __index__(self):
        return self.value


class ItemLike:
    ndim = 0

    def __init__(self, value):
        self.value = value

    def item(self):
        return self.value


@pytest.mark.parametrize(
    ("step", "expected"),
    [
        (5, 5),
        (-3, -3),
        (2**63 - 1, 2**63 - 1),
        (-(2**63), -(2**63)),
        (np.int32(4), 4),
        (np.uint64(9), 9),
        (np.array(11), 11),
        (4.0, 4),
        (np.float32(6.0), 6),
        (IndexLike(12), 12),
        (ItemLike(13), 13),
    ],
)
def test_steps_coerced_to_int64(logdir, step, expected):
    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        assert sl.scalar("x", 1.0, step=step)
    writer.close()
    assert summaries(writer.path) == [("x", expected)]


@pytest.mark.parametrize(
    ("step", "error", "pattern"),
    [
        (True, TypeError, "bool"),
        (np.bool_(False), TypeError, "bool"),
        (np.array(True), TypeError, "bool"),
        (1.5, ValueError, "non-integral"),
        (np.float64(2.5), ValueError, "non-integral"),
        (np.array(0.5), ValueError, "non-integral"),
        (2**63, ValueError, "int64"),
        (-(2**63) - 1, ValueError, "int64"),
        ("3", TypeError, "integer"),
        (np.array([1, 2]), TypeError, "integer"),
        (ItemLike("x"), TypeError, "integer"),
    ],
)
def test_bad_steps_rejected_everywhere(logdir, step, error, pattern):
    writer = sl.create_file_writer(logdir)
    with pytest.raises(error, match=pattern):
        sl.set_step(step)
    with pytest.raises(error, match=pattern), writer.as_default(step=step):
        pass
    with writer.as_default(), pytest.raises(error, match=rf"summarylib\.scalar: tag 'loss'.*{pattern}"):
        sl.scalar("loss", 1.0, step=step)
    writer.close()
    assert summaries(writer.path) == []


def test_missing_step_says_how_to_set_one(logdir):
    writer = sl.create_file_writer(logdir)
    with writer.as_default(), pytest.raises(ValueError, match=r"tag 'loss'.*set_step"):
        sl.scalar("loss", 1.0)
    writer.close()


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
    import gc

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
