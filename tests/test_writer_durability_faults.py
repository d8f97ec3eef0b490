"""Nothing is lost when things fail: a full disk, a deleted logdir, a stuck file; and memory
stays bounded: the queue in bytes, snapshots of arrays that the caller goes on mutating."""

from __future__ import annotations

import os
import threading
import time
import tracemalloc

import numpy as np
import pytest

import summarylib as sl
from summarylib.reader import iter_events
from summarylib.writer.engine import Engine, WriterError
from summarylib.writer.event_codec import raw_event
from summarylib.writer.event_file import EventFile
from summarylib.writer.intake import ITEM_BYTES
from tests.test_durability import files_of, run_script, steps_by_tag

# Failures ------------------------------------------------------------------------------


def test_disk_full_is_reported_not_fatal(logdir):
    code = """
    import logging, resource, signal, sys, summarylib as sl
    logging.basicConfig()
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)       # get EFBIG instead of dying
    resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))  # a disk that fills up
    writer = sl.create_file_writer(sys.argv[1], max_queue=10)
    writer.set_as_default()
    returned = [sl.scalar("x", float(step), step=step) for step in range(100)]
    writer.flush()  # these fit
    returned += [sl.scalar("x", float(step), step=step) for step in range(100, 3000)]
    try:
        writer.flush()
    except sl.WriterError as error:
        print("flush raised:", error)
    returned += [sl.scalar("x", 1.0, step=step) for step in range(3000, 6000)]  # the disk is still full
    stats = writer.stats()
    print("all returned True:", all(returned), "errors:", stats.errors > 0, "written:", stats.events_written)
    try:
        writer.close()
    except sl.WriterError as error:
        print("close raised:", error)
    """
    result = run_script(code, logdir)
    assert "flush raised:" in result.stdout and "File too large" in result.stdout
    assert "all returned True: True errors: True" in result.stdout
    assert "close raised:" in result.stdout
    # One warning per unreported error, not one per failed write (there were hundreds).
    assert 1 <= result.stderr.count("writing events failed") <= 2
    assert len(files_of(logdir)) == 1
    steps = steps_by_tag(logdir)["x"]
    # What fit, whole records in order: a write that did not fit was cut back, so a later,
    # smaller one may still fit behind it (the events between are counted as lost).
    assert steps[:100] == list(range(100)) and steps == sorted(set(steps)) and len(steps) < 3000


def test_leaving_as_default_on_a_full_disk_warns_once_and_the_loop_goes_on(logdir):
    code = """
    import logging, resource, signal, sys, time
    import numpy as np, summarylib as sl
    logging.basicConfig()
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)       # get EFBIG instead of dying
    resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))  # a disk that fills up
    writer = sl.create_file_writer(sys.argv[1])
    image = np.random.default_rng(0).integers(0, 256, (128, 128, 3), dtype=np.uint8)
    for step in range(300):
        with writer.as_default(step=step):              # one block per step, as per-epoch loops do
            sl.image("sample", image)
            sl.scalar("loss", 1.0 / (step + 1))
    print("loop completed")
    try:
        writer.flush()
    except sl.WriterError as error:
        print("flush raised:", error)
    start = time.monotonic()
    try:
        writer.close()
    except sl.WriterError as error:
        print("close raised WriterError")
    print("close took under 10 s:", time.monotonic() - start < 10)
    """
    result = run_script(code, logdir)
    assert "loop completed" in result.stdout, result.stderr
    assert "flush raised:" in result.stdout and "File too large" in result.stdout
    assert "close took under 10 s: True" in result.stdout
    assert result.stderr.count("writing events failed") == 1, result.stderr
    assert "Traceback" not in result.stderr


def test_an_exception_unwinding_as_default_is_not_replaced_by_a_write_error(logdir):
    code = """
    import logging, resource, signal, sys
    import summarylib as sl
    logging.basicConfig()
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (5_000, 5_000))
    writer = sl.create_file_writer(sys.argv[1])
    try:
        with writer.as_default(step=0):
            for step in range(2000):
                sl.scalar("loss", 1.0, step=step)
            raise KeyError("the loop's error")
    except Exception as error:
        print("caught", type(error).__name__, *error.args)
    """
    result = run_script(code, logdir)
    assert "caught KeyError the loop's error" in result.stdout, result.stdout


def test_deleted_logdir_is_recreated_and_reported(logdir):
    import shutil

    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        sl.scalar("x", 0.0, step=0)
        writer.flush()
        shutil.rmtree(logdir)
        sl.scalar("x", 1.0, step=1)
        with pytest.raises(WriterError, match="was deleted"):
            writer.flush()
        sl.scalar("x", 2.0, step=2)
    writer.close()
    assert writer.stats().errors == 1
    assert steps_by_tag(logdir) == {"x": [1, 2]}  # step 0 went with the deleted file


class StuckFile(EventFile):
    """A disk that stops answering: writes block until released."""

    def __init__(self, logdir: str) -> None:
        super().__init__(logdir)
        self.release = threading.Event()

    def write(self, data: bytes) -> None:
        if self.bytes_written:  # after the first event
            self.release.wait()
        super().write(data)


def test_close_with_a_stuck_worker_gives_up_in_bounded_time(logdir):
    os.makedirs(logdir)
    stuck = StuckFile(logdir)
    engine = Engine("stuck", stuck, max_queue=1)
    engine.submit(raw_event, (b"",), 0, 0)
    with pytest.raises(WriterError, match=r"no progress for 0\.5 s"):
        engine.close(timeout=0.5)
    stuck.release.set()


def test_queue_is_bounded_in_bytes(logdir):
    bound = 200_000
    writer = sl.create_file_writer(logdir, max_queue_bytes=bound, flush_millis=600_000)
    with writer.as_default():
        for step in range(200):
            sl.write("big", np.zeros(10_000), step=step)  # 80 kB each
        for step in range(20_000):
            sl.scalar("small", 1.0, step=step)
    writer.close()
    stats = writer.stats()
    assert stats.queue_high_water_bytes <= bound + 80_000 + ITEM_BYTES  # the bound plus one item
    assert stats.events_written == 20_200 and stats.errors == 0


def test_text_counts_its_bytes_toward_the_queue_bound(logdir):
    """Strings are held as bytes, not arrays: 1 MB texts once counted 256 bytes each, so an
    8 MB bound held 64 MB of them."""
    bound = 4_000_000
    writer = sl.create_file_writer(logdir, max_queue_bytes=bound, flush_millis=600_000)
    payload = "x" * 1_000_000  # encoded anew at each call: 1 MB of bytes a queued event
    tracemalloc.start()
    try:
        with writer.as_default():
            for step in range(40):
                sl.text("blob", payload, step=step)
            _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    writer.close()
    assert peak <= bound + 6_000_000  # the bound, one item, its copies being encoded and written
    assert writer.stats().events_written == 40 and writer.stats().errors == 0


def test_mutating_an_array_after_write_changes_nothing(logdir):
    writer = sl.create_file_writer(logdir, flush_millis=600_000)
    data = np.arange(10.0)
    view = data[2:5]
    with writer.as_default(step=0):
        sl.write("array", data)
        sl.write("view", view)
        data[:] = -1
    writer.close()
    values = {
        v.tag: np.frombuffer(v.tensor.tensor_content)
        for e in iter_events(writer.path)
        for v in e.summary.value
    }
    np.testing.assert_array_equal(values["array"], np.arange(10.0))
    np.testing.assert_array_equal(values["view"], [2.0, 3.0, 4.0])


def test_recycled_snapshot_memory_never_mixes_up_events(logdir):
    writer = sl.create_file_writer(logdir, max_queue_bytes=3 << 20)  # a few snapshots in flight
    source = np.zeros(100_000)  # 800 kB: snapshots come from the pool
    with writer.as_default():
        for step in range(40):
            source[:] = step
            sl.write("big", source, step=step)
            sl.histogram("hist", source, step=step, buckets=2)
    writer.close()
    events = list(iter_events(writer.path))
    arrays = {
        e.step: np.frombuffer(v.tensor.tensor_content)
        for e in events
        for v in e.summary.value
        if v.tag == "big"
    }
    assert sorted(arrays) == list(range(40))
    for step, array in arrays.items():
        assert (array == step).all()


def test_snapshot_pool_reuses_released_memory_and_forgets_unreleased():
    import gc

    from summarylib.writer.snapshots import SnapshotPool

    pool = SnapshotPool()
    data = np.arange(50_000.0)
    first = pool.copy(data)
    np.testing.assert_array_equal(first, data)
    buffer = first.base
    pool.release(first)
    second = pool.copy(data[::-1])
    assert second.base is buffer  # the same memory, now holding the new copy
    np.testing.assert_array_equal(second, data[::-1])
    del first, second, buffer
    unreleased = pool.copy(data)
    del unreleased
    gc.collect()
    assert len(pool._issued) == 0  # nothing kept alive for copies never released


def test_events_reach_the_file_on_the_timer_without_a_flush(logdir):
    writer = sl.create_file_writer(logdir, flush_millis=100)  # a few events: no queue fills
    with writer.as_default(step=3):
        sl.scalar("x", 1.0)
        for _ in range(200):  # a bound on the wait, not a timing being tested
            if steps_by_tag(logdir).get("x") == [3]:
                break
            time.sleep(0.05)
        assert steps_by_tag(logdir) == {"x": [3]}
    writer.close()
