"""compat.torch add_scalar's simple_value events are encoded in batches by the writer's
thread (compat/legacy_scalar.py simple_value_events): the batch must give the bytes the
one-by-one maker gives, in queue order, and TensorBoard must read every event back."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st
from tensorboard.backend.event_processing import event_accumulator

from summarylib.compat.legacy_scalar import simple_value_event, simple_value_events
from summarylib.compat.torch import SummaryWriter
from summarylib.format import records
from summarylib.writer.event_codec import BATCH_MAKERS

int64s = st.integers(-(1 << 63), (1 << 63) - 1)
EXAMPLES = max(10, settings.default.max_examples // 2)


@settings(max_examples=EXAMPLES, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(allow_nan=False, min_value=-1e12, max_value=1e12) | st.just(-0.0),
            int64s | st.integers(0, 300),
            st.sampled_from(["loss", "acc", "ünï/tag"]),
            st.floats(allow_nan=True) | st.floats(width=32),
        ),
        min_size=1,
        max_size=60,
    )
)
def test_batched_simple_value_events_equal_one_by_one_in_queue_order(items):
    batch = [(wall, step, (tag, value)) for wall, step, tag, value in items]
    framed = [(positions, records.frame_rows(rows)) for positions, rows in simple_value_events(batch)]
    expected = b"".join(records.frame(simple_value_event(w, s, *args)) for w, s, args in batch)
    assert records.interleave(framed, len(batch)) == expected


def test_add_scalar_events_are_batched_and_all_read_back_by_tensorboard(tmp_path):
    assert BATCH_MAKERS[simple_value_event] is simple_value_events
    writer = SummaryWriter(str(tmp_path))
    expected = {"loss": [], "acc": []}
    for step in [*range(-3, 300), 1 << 40]:  # negative, zero, 1- to 6-byte varints
        for tag, value in (("loss", step / 7), ("acc", 1e39 if step == 5 else -step)):
            writer.add_scalar(tag, value, step, walltime=1000.0 + abs(step))
            expected[tag].append((step, value))
    writer.close()
    accumulator = event_accumulator.EventAccumulator(str(tmp_path), size_guidance={"scalars": 0})
    accumulator.Reload()
    for tag, events in expected.items():
        read = [(event.step, event.value) for event in accumulator.Scalars(tag)]
        assert [step for step, _ in read] == [step for step, _ in events]
        for (_, got), (_, wanted) in zip(read, events, strict=True):
            if abs(wanted) > 3.5e38:  # beyond float32: +-inf, as torch's cast gives
                assert got == math.copysign(math.inf, wanted)
            else:
                assert math.isclose(got, wanted, rel_tol=1e-6, abs_tol=1e-30)
