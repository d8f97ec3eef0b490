"""The writer's queue: what its byte bound counts per item is what an item holds, and the
sources' pointers to the tests that prove their claims lead somewhere."""

from __future__ import annotations

import pathlib
import re
import tracemalloc

import summarylib as sl
from summarylib.compat.torch import SummaryWriter as TorchWriter
from summarylib.writer.intake import ITEM_BYTES
from summarylib.writer.scalar_stream import LANE_EVENT_BYTES

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_every_test_file_the_sources_cite_exists():
    cited = {
        (source.relative_to(ROOT), name)
        for source in (ROOT / "summarylib").rglob("*.py")
        for name in re.findall(r"tests/[\w/]+\.py", source.read_text(encoding="utf-8"))
    }
    assert cited  # the pattern finds the citations there are
    assert [(str(source), name) for source, name in sorted(cited) if not (ROOT / name).exists()] == []


def _bytes_per_item(log, items: int = 5000) -> float:
    """Memory `items` queued calls of `log(step)` hold while the writer's thread waits."""
    log(0)  # caches (a tag's bytes, a checked tag) are made once, not per item
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for step in range(1, items + 1):
            log(step)
        return (tracemalloc.get_traced_memory()[0] - before) / items
    finally:
        tracemalloc.stop()


def test_a_queued_scalar_holds_no_more_than_the_queue_bound_counts(tmp_path):
    # The bound (max_queue_bytes) counts ITEM_BYTES a queued item beyond its arrays and
    # LANE_EVENT_BYTES an event of the scalar lane: were either bigger, a full queue
    # would hold more memory than the user allowed. The described scalars are queued
    # while the lane holds events (their items carry a lane mark).
    idle = {"max_queue": 10**6, "flush_millis": 10**8}
    writer = sl.create_file_writer(str(tmp_path / "v2"), **idle)
    with writer.as_default():
        lane = _bytes_per_item(lambda step: sl.scalar("loss", step * 0.5, step=step))
        queued = _bytes_per_item(lambda step: sl.scalar("d", step * 0.5, step=step, description="d"))
        assert writer.stats().events_queued == 10_002
    torch_writer = TorchWriter(str(tmp_path / "torch"), max_queue=10**6, flush_secs=10**5)
    torch_lane = _bytes_per_item(lambda step: torch_writer.add_scalar("loss", step * 0.5, step))
    torch_writer.close()
    writer.close()
    assert writer.stats().events_written == 10_002
    assert 0 < lane <= LANE_EVENT_BYTES and 0 < torch_lane <= LANE_EVENT_BYTES
    assert 0 < queued <= ITEM_BYTES
