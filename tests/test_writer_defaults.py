"""The default-writer context, recording conditions and steps: what an op writes where, at which step."""

from __future__ import annotations

import asyncio
import threading

import numpy as np
import pytest

import summarylib as sl
from summarylib.reader import iter_events
from summarylib.writer.context import StepCounter, counted_steps


def summaries(path):
    """[(tag, step)] of the summary values in one event file."""
    return [(v.tag, e.step) for e in iter_events(path) for v in e.summary.value]


class Untouchable:
    """Data an op must not look at when it will not record."""

    def __array__(self, *args, **kwargs):
        raise AssertionError("converted")

    def __float__(self):
        raise AssertionError("converted")

    def item(self):
        raise AssertionError("converted")


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
