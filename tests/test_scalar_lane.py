"""The scalar lane (summarylib/writer/scalar_stream.py): plain scalars of `sl.scalar` and
torch's `add_scalar` skip the general queue. What users rely on: every event is written,
in the order each thread logged it among all the other events, read back by TensorBoard's
own loader; and a logged scalar leaves nothing for the garbage collector to track."""

from __future__ import annotations

import gc
import threading

import pytest
from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

import summarylib as sl
from summarylib.compat.torch import SummaryWriter as TorchWriter


def loaded(path: str) -> list[tuple[str, int]]:
    """(tag, step) of each summary value in the file, in file order, as TensorBoard loads it."""
    return [
        (value.tag, event.step) for event in EventFileLoader(path).Load() for value in event.summary.value
    ]


def test_lane_events_keep_their_place_among_queued_items(tmp_path):
    logdir = str(tmp_path)
    writer = sl.create_file_writer(logdir)
    torch_writer = TorchWriter(logdir)  # one logdir: the same engine, so one file and one lane
    expected = []
    with writer.as_default():
        for step in range(1, 3000):
            kind = step % 7
            if kind == 0:
                sl.scalar("described", 1.0, step=step, description="through the queue")
            elif kind == 1:
                sl.text("note", "text", step=step)
            elif kind == 2:
                torch_writer.add_scalar("torch", 2.0, step)  # the lane, another maker
            elif kind == 3:
                torch_writer.add_scalar("torch_v2", 2.0, step, new_style=True)  # the queue
            else:
                sl.scalar("loss", 0.5, step=step)
            expected.append(
                {0: "described", 1: "note", 2: "torch", 3: "torch_v2"}.get(kind, "loss"),
            )
            if step % 500 == 0:
                writer.flush()
    torch_writer.close()
    writer.close()
    assert loaded(writer.path) == [(tag, step) for step, tag in enumerate(expected, 1)]


def test_threads_logging_at_once_lose_nothing_and_keep_their_order(tmp_path):
    writer = sl.create_file_writer(str(tmp_path), max_queue=64)
    calls = 4000

    def log(thread: int) -> None:
        with writer.as_default():
            for step in range(1, calls + 1):
                sl.scalar(f"thread{thread}", float(step), step=step)
                if step % 401 == 0:
                    sl.text(f"text{thread}", "t", step=step)

    threads = [threading.Thread(target=log, args=(thread,)) for thread in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    writer.close()
    events = loaded(writer.path)
    for thread in range(4):
        mine = [(tag, step) for tag, step in events if tag.endswith(str(thread))]
        wanted = []
        for step in range(1, calls + 1):
            wanted.append((f"thread{thread}", step))
            if step % 401 == 0:
                wanted.append((f"text{thread}", step))
        assert mine == wanted
    assert writer.stats().events_written == len(events)


def _tracked_objects_left(log) -> int:
    """Objects the cyclic garbage collector tracks that 2,000 calls of `log(step)` leave
    behind while queued (the writer's thread does not run meanwhile): a few made once
    (a cache's entry), not one per call."""
    gc.collect()
    gc.disable()
    try:
        before = gc.get_count()[0]
        for step in range(1, 2001):
            log(step)
        return gc.get_count()[0] - before
    finally:
        gc.enable()


def test_a_logged_scalar_leaves_nothing_for_the_garbage_collector(tmp_path):
    # Each queued event held two tuples until the writer took it: in a training loop they
    # made the collector run every few hundred calls, walking the user's young objects too.
    writer = sl.create_file_writer(str(tmp_path / "v2"), max_queue=10**6, flush_millis=10**8)
    with writer.as_default():
        assert _tracked_objects_left(lambda step: sl.scalar("loss", 0.5, step=step)) < 20
    torch_writer = TorchWriter(str(tmp_path / "torch"), max_queue=10**6, flush_secs=10**5)
    assert _tracked_objects_left(lambda step: torch_writer.add_scalar("loss", 0.5, step)) < 20
    paths = [writer.path, torch_writer._writer.path]
    writer.close()
    torch_writer.close()
    for path in paths:
        assert loaded(path) == [("loss", step) for step in range(1, 2001)]


@pytest.mark.slow
def test_a_child_forked_while_the_lane_is_locked_logs_on(tmp_path):
    # The worker holds the lane's lock while it takes events; a fork at that moment gave
    # the child a lock no thread of the child would ever release.
    import os
    import time

    writer = sl.create_file_writer(str(tmp_path))
    with writer.as_default():
        sl.scalar("parent", 1.0, step=1)
    engine = writer.scalar_engine
    with engine.lane._lock:  # as the worker holds it, at the fork
        pid = os.fork()
        if pid == 0:  # the child: log through the inherited writer, then leave
            try:
                with writer.as_default():
                    sl.scalar("child", 2.0, step=2)
                writer.close()
            finally:
                os._exit(0)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        raise AssertionError("the forked child hung on the lane's lock")
    assert os.waitstatus_to_exitcode(status) == 0
    writer.close()
    files = sorted(tmp_path.iterdir())
    tags = {tag for path in files for tag, _ in loaded(str(path))}
    assert len(files) == 2 and tags == {"parent", "child"}  # the child wrote a file of its own
