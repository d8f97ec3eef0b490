"""The scalar op: TensorFlow 2's exact encoding, TensorBoard reading it, and every input
the issue names, accepted or rejected at the call."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import summarylib as sl
from summarylib.reader import iter_events
from tests.helpers import ArrayLike, written_values
from tests.reference.cases import SCALAR_CASES
from tests.tensorboard_data import provider_for, read_scalars

REFERENCE = os.path.join(os.path.dirname(__file__), "reference", "tf2_scalar.tfevents")


def test_same_summaries_as_tensorflow(logdir):
    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        for step, (tag, data, description) in enumerate(SCALAR_CASES):
            assert sl.scalar(tag, data, step=step, description=description)
    writer.close()
    ours = written_values(writer.path)
    theirs = written_values(REFERENCE)
    assert len(theirs) == len(SCALAR_CASES)
    assert [(s, v.SerializeToString()) for s, v in ours] == [(s, v.SerializeToString()) for s, v in theirs]


def test_tensorboard_reads_every_scalar(logdir):
    writer = sl.create_file_writer(logdir)
    expected = {}
    with writer.as_default():
        for step in range(50):
            for tag in ("train/loss", "eval/accuracy"):
                value = math.sin(step) * (2 if tag == "train/loss" else 1)
                sl.scalar(tag, value, step=step)
                expected.setdefault(tag, []).append((step, float(np.float32(value))))
    writer.close()
    assert read_scalars(logdir) == {".": expected}
    from tensorboard import context

    listed = provider_for(logdir).list_scalars(
        context.RequestContext(), experiment_id="", plugin_name="scalars"
    )
    assert set(listed["."]) == {"train/loss", "eval/accuracy"}


@settings(max_examples=50, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=True), st.integers(-(2**63), 2**63 - 1))
def test_any_value_round_trips_as_float32(tmp_path_factory, value, step):
    logdir = str(tmp_path_factory.mktemp("scalar"))
    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        sl.scalar("x", value, step=step)
    writer.close()
    with np.errstate(over="ignore"):
        expected = float(np.float32(value))
    ((step_read, value_read),) = read_scalars(logdir)["."]["x"]
    assert step_read == step and (value_read == expected or math.isnan(expected))


class ItemOnly:
    """A tensor numpy cannot convert (say, on a GPU) that still has .item()."""

    shape = ()

    def __array__(self, *args, **kwargs):
        raise RuntimeError("can't convert cuda tensor to numpy")

    def item(self):
        return 2.5


class DlpackOnly:
    def __init__(self, value):
        self.value = np.asarray(value)

    def __dlpack__(self, **kwargs):
        return self.value.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.value.__dlpack_device__()


class NeedsDetach:
    """Like a torch tensor that requires grad: numpy() refuses until detached."""

    def __init__(self, value, attached=True):
        self.value, self.attached = value, attached

    def detach(self):
        return NeedsDetach(self.value, attached=False)

    def numpy(self):
        if self.attached:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad")
        return np.asarray(self.value)


@pytest.mark.parametrize(
    "data",
    [
        ArrayLike(1.25),
        ArrayLike(np.float64(1.25)),
        ItemOnly(),
        DlpackOnly(np.float32(4.5)),
        NeedsDetach(6.75),
        [1.5],
    ],
    ids=["array", "array64", "item", "dlpack", "detach", "list"],
)
def test_tensor_likes(logdir, data):
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0):
        if isinstance(data, list):
            with pytest.raises(ValueError, match=r"shape \[1\]"):
                sl.scalar("x", data)
            data = ArrayLike(np.array(1.5))
        assert sl.scalar("x", data)
    writer.close()
    ((_, value),) = written_values(writer.path)
    assert value.tensor.tensor_content == np.float32(np.asarray(getattr(data, "value", 2.5))).tobytes()


@pytest.mark.parametrize(
    ("data", "error", "pattern"),
    [
        (np.zeros(3), ValueError, r"shape \[3\]"),
        (np.zeros((1, 1)), ValueError, r"shape \[1, 1\]"),
        (ArrayLike(np.zeros((2, 2))), ValueError, r"shape \[2, 2\]"),
        ("1.0", TypeError, "real number"),
        (None, TypeError, "NoneType"),
        (1 + 2j, TypeError, "complex"),
        (np.complex64(1), TypeError, "complex"),
        (object(), TypeError, "object"),
        (10**400, ValueError, "too large"),
    ],
)
def test_bad_data_rejected_at_the_call(logdir, data, error, pattern):
    writer = sl.create_file_writer(logdir)
    with (
        writer.as_default(step=1),
        pytest.raises(error, match=rf"summarylib\.scalar: tag 'loss': argument 'data': .*{pattern}"),
    ):
        sl.scalar("loss", data)
    with writer.as_default(step=2):
        assert sl.scalar("loss", 1.0)  # the writer carries on
    writer.close()
    assert [s for s, _ in written_values(writer.path)] == [2]


@pytest.mark.parametrize(
    ("name", "error"), [(None, TypeError), (b"loss", TypeError), (3, TypeError), ("", ValueError)]
)
def test_bad_names(logdir, name, error):
    writer = sl.create_file_writer(logdir)
    with (
        writer.as_default(step=0),
        pytest.raises(
            error, match=r"summarylib\.scalar: (tag .*: )?argument .name.: expected a non-empty str"
        ),
    ):
        sl.scalar(name, 1.0)
    writer.close()


def test_bad_description(logdir):
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0), pytest.raises(TypeError, match="description"):
        sl.scalar("loss", 1.0, description=5)
    writer.close()
    assert written_values(writer.path) == []


def test_reads_tensorboardx_files(tmp_path):
    pytest.importorskip("tensorboardX", reason="tensorboardX is not installed (the frameworks extra)")
    from tensorboardX import SummaryWriter as XWriter

    writer = XWriter(str(tmp_path))
    for step in range(5):
        writer.add_scalar("x/loss", step * 0.5, step)
    writer.add_text("notes", "hello *world*", 9)
    writer.close()
    (path,) = [str(p) for p in tmp_path.iterdir() if "tfevents" in p.name]
    events = list(iter_events(path))
    assert events[0].file_version == "brain.Event:2"
    legacy = [
        (e.step, v.tag, v.simple_value) for e in events for v in e.summary.value if v.HasField("simple_value")
    ]
    assert legacy == [(s, "x/loss", s * 0.5) for s in range(5)]
    (tensor_value,) = [(e.step, v) for e in events for v in e.summary.value if v.HasField("tensor")]
    assert tensor_value[0] == 9 and tensor_value[1].metadata.plugin_data.plugin_name == "text"
    assert list(tensor_value[1].tensor.string_val) == [b"hello *world*"]
