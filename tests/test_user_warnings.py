"""Warnings about the user's data (issue 19, item 14) reach the caller's thread, pointing at
the user's line: encoders run on the writer's thread, where `pytest.warns`,
`catch_warnings` and `-W error` cannot see a warning; there it waits for the next op call
or `sl.flush()` on a caller's thread."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
import uuid
import warnings

import numpy as np
import pytest

import summarylib as sl
from tests.tensorboard_data import read_scalars, read_tensors

NAN = float("nan")


def unique(prefix: str) -> str:
    """A tag no other test warned about (warnings are once per tag and process)."""
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def wait_until_encoded(writer: sl.SummaryWriter) -> None:
    """Until the writer's thread has written the first event (the warning it found then
    waits for a caller's thread), without a flush, which would raise it."""
    deadline = time.monotonic() + 60
    while writer.stats().events_written < 1:
        assert time.monotonic() < deadline, "the writer wrote nothing in 60 s"
        time.sleep(0.01)


def test_a_histogram_warning_is_raised_at_the_flush_that_follows(logdir):
    tag = unique("nan")
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0):
        sl.histogram(tag, [1.0, NAN])
        with pytest.warns(RuntimeWarning, match=rf"tag '{tag}': left out 1 NaN") as record:
            sl.flush()
            line = sys._getframe().f_lineno - 1
    writer.close()
    (warning,) = [w for w in record if tag in str(w.message)]
    assert (warning.filename, warning.lineno) == (__file__, line)


@pytest.mark.parametrize("ending", ["flush", "close"])
def test_a_warning_is_raised_at_the_writers_own_flush_or_close(logdir, ending):
    tag = unique(f"nan_{ending}")
    writer = sl.create_file_writer(logdir)
    writer.set_as_default()
    sl.histogram(tag, [1.0, NAN], step=0)
    with pytest.warns(RuntimeWarning, match=rf"tag '{tag}': left out 1 NaN") as record:
        getattr(writer, ending)()
        line = sys._getframe().f_lineno - 1
    writer.close()
    (warning,) = [w for w in record if tag in str(w.message)]
    assert (warning.filename, warning.lineno) == (__file__, line)


def test_an_audio_warning_is_raised_at_the_next_op_of_any_kind(logdir):
    tag = unique("loud")
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0):
        sl.audio(tag, np.float32([2.0]), 8000)
        wait_until_encoded(writer)
        with pytest.warns(RuntimeWarning, match=rf"tag '{tag}': samples outside") as record:
            sl.scalar("next", 1.0)
            line = sys._getframe().f_lineno - 1
    writer.close()
    (warning,) = [w for w in record if tag in str(w.message)]
    assert (warning.filename, warning.lineno) == (__file__, line)


@pytest.mark.slow
def test_error_filter_raises_at_the_users_line_and_loses_nothing(tmp_path):
    """Under `-W error` the warning is an exception in the caller's thread, at the user's
    line, after that call's event was queued; the writer goes on."""
    logdir = tmp_path / "run"
    script = tmp_path / "train.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import time, traceback
            import summarylib as sl

            writer = sl.create_file_writer({str(logdir)!r})
            with writer.as_default(step=1):
                sl.histogram("weights", [1.0, float("nan")])
                while writer.stats().events_written < 1: time.sleep(0.01)  # encoded: the warning waits
                try:
                    sl.scalar("loss", 0.5)
                except RuntimeWarning as warning:
                    frame = traceback.extract_tb(warning.__traceback__)[0]
                    print("RAISED", frame.filename, frame.lineno, warning)
                sl.scalar("loss", 0.25, step=2)
            writer.close()
            print("STATS", writer.stats().errors, writer.stats().events_dropped)
            """
        )
    )
    done = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=str(tmp_path),
    )
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    filename, lineno, message = lines["RAISED"].split(" ", 2)
    assert (filename, int(lineno)) == (str(script), 10)  # the first sl.scalar's line
    assert "summarylib.histogram: tag 'weights': left out 1 NaN" in message
    assert lines["STATS"] == "0 0"
    assert read_scalars(str(logdir))["."]["loss"] == [(1, 0.5), (2, 0.25)]
    assert [step for step, _ in read_tensors(str(logdir), "histograms")["."]["weights"]] == [1]


def test_a_warning_on_the_callers_thread_points_at_the_user_at_once():
    """Encoding without a writer (summarylib.ops.*.encode) warns at once, at the caller."""
    from summarylib.ops.histogram import encoding as histogram_encoding

    tag = unique("direct")
    with pytest.warns(RuntimeWarning, match=tag) as record:
        histogram_encoding.encode(tag, [NAN, 1.0])
        line = sys._getframe().f_lineno - 1
    assert (record[0].filename, record[0].lineno) == (__file__, line)


def test_leaving_as_default_raises_the_warnings_of_its_block(logdir):
    tag = unique("block")
    writer = sl.create_file_writer(logdir)
    with pytest.warns(RuntimeWarning, match=rf"tag '{tag}'") as record:
        with writer.as_default(step=0):
            sl.histogram(tag, [NAN])
        line = sys._getframe().f_lineno - 2  # the with statement's line
    writer.close()
    (warning,) = [w for w in record if tag in str(w.message)]
    assert (warning.filename, warning.lineno) == (__file__, line)


def test_an_exception_leaving_as_default_is_not_replaced_by_a_warning(logdir):
    tag = unique("unwinding")
    writer = sl.create_file_writer(logdir)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(KeyError), writer.as_default(step=0):
            sl.histogram(tag, [NAN])
            wait_until_encoded(writer)
            raise KeyError("the training loop's own error")
        with pytest.raises(RuntimeWarning, match=tag):
            sl.flush()  # the warning was kept for the next call
    writer.close()
