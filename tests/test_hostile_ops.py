"""Hostile inputs found accepted at the call and failing later (issue 19, items 2a, 3 and
13), one case each: every one is now either a clear error at the call, in the one shape
`summarylib.<op>: tag '<tag>': argument '<arg>': ...`, or written and readable; and the
valid scalars logged before and after it are never lost."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")

import torch

import summarylib as sl
from summarylib import hparams as hp
from summarylib.reader import iter_events
from tests.tensorboard_data import read_scalars, read_tensors

SURROGATE = "bad\ud800"
START = "_hparams_/session_start_info"
EXPERIMENT = "_hparams_/experiment"
LAYOUT = "custom_scalars__config__"
MATRIX = np.zeros((2, 2))
VERTICES = np.zeros((1, 3, 3))


class RaisingArray:
    """A framework object whose own conversion fails."""

    def __array__(self, dtype=None, copy=None):
        raise KeyError("device lost")


class RaisingItem:
    """A 0-d tensor-like whose `.item()` fails and that has no other way in."""

    shape = ()

    def item(self):
        raise KeyError("device lost")


def assert_shaped(error: BaseException, op: str, tag: str | None, argument: str) -> None:
    """The one error shape: op first, then the tag (if the API has one), then the argument."""
    message = str(error)
    assert message.startswith(f"summarylib.{op}: "), message
    if tag is not None:
        assert message.startswith(f"summarylib.{op}: tag {tag!r}: "), message
    assert f"argument {argument!r}: " in message, message


# (id, call, error class, op, tag, argument)
REJECTED = [
    ("scalar tag", lambda: sl.scalar(SURROGATE, 1.0), ValueError, "scalar", SURROGATE, "name"),
    (
        "scalar description",
        lambda: sl.scalar("s", 1.0, description=SURROGATE),
        ValueError,
        "scalar",
        "s",
        "description",
    ),
    ("histogram tag", lambda: sl.histogram(SURROGATE, [1.0]), ValueError, "histogram", SURROGATE, "name"),
    (
        "image description",
        lambda: sl.image("i", np.zeros((2, 2)), description=SURROGATE),
        ValueError,
        "image",
        "i",
        "description",
    ),
    ("audio tag", lambda: sl.audio(SURROGATE, np.zeros(4), 8000), ValueError, "audio", SURROGATE, "name"),
    ("text tag", lambda: sl.text(SURROGATE, "x"), ValueError, "text", SURROGATE, "name"),
    (
        "pr_curve description",
        lambda: sl.pr_curve("p", [True], [0.5], description=SURROGATE),
        ValueError,
        "pr_curve",
        "p",
        "description",
    ),
    (
        "pr_curve 2**31 thresholds",
        lambda: sl.pr_curve("p", [True], [0.5], num_thresholds=2**31),
        ValueError,
        "pr_curve",
        "p",
        "num_thresholds",
    ),
    (
        "write string tensor",
        lambda: sl.write("w", np.array(["ok", SURROGATE], dtype=object)),
        ValueError,
        "write",
        "w",
        "tensor",
    ),
    ("write unicode array", lambda: sl.write("w", np.array([SURROGATE])), ValueError, "write", "w", "tensor"),
    (
        "write object tensor",
        lambda: sl.write("w", np.array([object()], dtype=object)),
        TypeError,
        "write",
        "w",
        "tensor",
    ),
    ("mesh tag", lambda: sl.mesh(SURROGATE, VERTICES), ValueError, "mesh", SURROGATE, "name"),
    (
        "custom_scalars category",
        lambda: sl.custom_scalars({SURROGATE: {"c": ["Multiline", ["a"]]}}),
        ValueError,
        "custom_scalars",
        LAYOUT,
        "layout",
    ),
    (
        "custom_scalars tag",
        lambda: sl.custom_scalars({"k": {"c": ["Multiline", [SURROGATE]]}}),
        ValueError,
        "custom_scalars",
        LAYOUT,
        "layout['k']['c'][1][0]",
    ),
    ("embedding NUL", lambda: sl.embedding("a\x00b", MATRIX), ValueError, "embedding", "a\x00b", "name"),
    (
        "embedding 256 bytes",
        lambda: sl.embedding("é" * 128, MATRIX),
        ValueError,
        "embedding",
        "é" * 128,
        "name",
    ),
    ("embedding dot-dot", lambda: sl.embedding("..", MATRIX), ValueError, "embedding", "..", "name"),
    (
        "embedding metadata",
        lambda: sl.embedding("e", MATRIX, metadata=["a", SURROGATE]),
        ValueError,
        "embedding",
        "e",
        "metadata",
    ),
    (
        "embedding header",
        lambda: sl.embedding("e", MATRIX, metadata=[[1, 2], [3, 4]], metadata_header=["a", SURROGATE]),
        ValueError,
        "embedding",
        "e",
        "metadata_header",
    ),
    ("hparams name", lambda: hp.hparams({SURROGATE: 1}), ValueError, "hparams", START, "hparams"),
    ("hparams value", lambda: hp.hparams({"a": SURROGATE}), ValueError, "hparams", START, "hparams['a']"),
    ("hparams huge int", lambda: hp.hparams({"a": 10**400}), ValueError, "hparams", START, "hparams['a']"),
    (
        "hparams trial_id",
        lambda: hp.hparams({"a": 1}, trial_id=SURROGATE),
        ValueError,
        "hparams",
        START,
        "trial_id",
    ),
    (
        "hparams huge start",
        lambda: hp.hparams({"a": 1}, start_time_secs=10**400),
        ValueError,
        "hparams",
        START,
        "start_time_secs",
    ),
    ("HParam name", lambda: hp.HParam(SURROGATE), ValueError, "hparams.HParam", None, "name"),
    (
        "HParam description",
        lambda: hp.HParam("x", description=SURROGATE),
        ValueError,
        "hparams.HParam",
        None,
        "description",
    ),
    (
        "Discrete value",
        lambda: hp.Discrete(["a", SURROGATE]),
        ValueError,
        "hparams.Discrete",
        None,
        "values[1]",
    ),
    ("Discrete not a list", lambda: hp.Discrete(5), TypeError, "hparams.Discrete", None, "values"),
    (
        "Discrete huge int",
        lambda: hp.Discrete([1, 10**400]),
        ValueError,
        "hparams.Discrete",
        None,
        "values[1]",
    ),
    (
        "IntInterval huge",
        lambda: hp.IntInterval(0, 10**400),
        ValueError,
        "hparams.IntInterval",
        None,
        "max_value",
    ),
    ("Metric tag", lambda: hp.Metric(SURROGATE), ValueError, "hparams.Metric", None, "tag"),
    (
        "Metric float dataset_type",
        lambda: hp.Metric("m", dataset_type=1.0),
        ValueError,
        "hparams.Metric",
        None,
        "dataset_type",
    ),
    (
        "Metric str dataset_type",
        lambda: hp.Metric("m", dataset_type="x"),
        ValueError,
        "hparams.Metric",
        None,
        "dataset_type",
    ),
    (
        "Metric array dataset_type",
        lambda: hp.Metric("m", dataset_type=np.array([1, 2])),
        ValueError,
        "hparams.Metric",
        None,
        "dataset_type",
    ),
    ("set_step str", lambda: sl.set_step("x"), TypeError, "set_step", None, "step"),
    (
        "set_step non-integral long double",
        lambda: sl.set_step(np.longdouble(2.5)),
        ValueError,
        "set_step",
        None,
        "step",
    ),
    (
        "step of a grad tensor",
        lambda: sl.scalar("s", 1.0, step=torch.ones(3, requires_grad=True)),
        TypeError,
        "scalar",
        "s",
        "step",
    ),
    ("step beyond int64", lambda: sl.scalar("s", 1.0, step=2**64), ValueError, "scalar", "s", "step"),
    ("failing __array__", lambda: sl.histogram("h", RaisingArray()), TypeError, "histogram", "h", "data"),
    ("failing .item()", lambda: sl.scalar("s", RaisingItem()), TypeError, "scalar", "s", "data"),
    (
        "record_if array",
        lambda: sl.record_if(np.array([True, False])).__enter__(),
        TypeError,
        "record_if",
        None,
        "condition",
    ),
]


def assert_neighbours_written(writer: sl.SummaryWriter, logdir: str) -> None:
    """The scalars logged around the hostile call are on disk, for TensorBoard and for
    summarylib's reader, and the writer counted no error."""
    writer.close()
    stats = writer.stats()
    assert (stats.errors, stats.events_dropped, stats.events_lost) == (0, 0, 0), stats
    assert read_scalars(logdir)["."] == {"before": [(1, 1.0)], "after": [(1, 2.0)]}
    tags = [v.tag for e in iter_events(writer.path) for v in e.summary.value]
    assert tags[0] == "before" and tags[-1] == "after"


@pytest.mark.parametrize(
    ("call", "error", "op", "tag", "argument"), [c[1:] for c in REJECTED], ids=[c[0] for c in REJECTED]
)
def test_rejected_at_the_call_in_the_one_shape(logdir, call, error, op, tag, argument):
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=1):
        sl.scalar("before", 1.0)
        with pytest.raises(error) as raised:
            call()
        sl.scalar("after", 2.0)
    assert_shaped(raised.value, op, tag, argument)
    assert_neighbours_written(writer, logdir)


def test_a_failing_conversion_keeps_the_objects_own_error_as_cause(logdir):
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=1):
        for call in (lambda: sl.histogram("h", RaisingArray()), lambda: sl.scalar("s", RaisingItem())):
            with pytest.raises(TypeError, match="KeyError: 'device lost'") as raised:
                call()
            assert isinstance(raised.value.__cause__, KeyError)
    writer.close()


def test_a_list_of_tensors_that_require_grad_is_an_error_in_the_one_shape(logdir):
    """numpy cannot convert such a list (torch refuses .numpy() on each element): the
    error names op, tag and argument and keeps torch's as its cause."""
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=1):
        sl.scalar("before", 1.0)
        with pytest.raises(
            TypeError, match=r"^summarylib\.histogram: tag 'h': argument 'data': expected"
        ) as raised:
            sl.histogram("h", [torch.zeros(2, requires_grad=True)] * 2)
        assert isinstance(raised.value.__cause__, RuntimeError)
        sl.scalar("after", 2.0)
    writer.close()
    assert sorted(read_scalars(logdir)["."]) == ["after", "before"]


def test_a_long_tag_is_cut_in_the_message(logdir):
    tag = "x" * 100_000 + "\ud800"
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=1), pytest.raises(ValueError) as raised:
        sl.scalar(tag, 1.0)
    writer.close()
    message = str(raised.value)
    assert message.startswith(f"summarylib.scalar: tag {tag[:200]!r}... (100001 characters): argument 'name'")
    assert len(message) < 1000


def test_long_doubles_bfloat16_and_odd_steps_are_written(logdir):
    """Accepted where they used to fail later (or were refused): long doubles as float64,
    torch bfloat16 tensors as float32, a long double step, a numpy bool condition."""
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=1), sl.record_if(np.bool_(True)):
        assert sl.scalar("ld", np.longdouble(0.5), step=np.longdouble(3))
        assert sl.write("ld_tensor", np.array([0.25, 4.0], np.longdouble))
        assert sl.histogram("bf16", torch.tensor([1.0, 2.0, 3.0], dtype=torch.bfloat16))
        assert sl.scalar("bf16_scalar", torch.tensor(0.5, dtype=torch.bfloat16, requires_grad=True))
        assert sl.histogram("grad", torch.ones(4, requires_grad=True))
    writer.close()
    assert writer.stats().events_dropped == 0
    assert read_scalars(logdir)["."]["ld"] == [(3, 0.5)]
    assert read_scalars(logdir)["."]["bf16_scalar"] == [(1, 0.5)]
    ((_, tensor),) = read_tensors(logdir, "histograms")["."]["bf16"]
    assert tensor[:, 2].sum() == 3
    values = {v.tag: v for e in iter_events(writer.path) for v in e.summary.value}
    assert np.frombuffer(values["ld_tensor"].tensor.tensor_content, "<f8").tolist() == [0.25, 4.0]


def test_a_condition_returning_an_array_is_a_clear_error(logdir):
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=1):
        sl.scalar("before", 1.0)
        with sl.record_if(lambda: np.array([True, False])), pytest.raises(TypeError) as raised:
            sl.scalar("x", 1.0)
        sl.scalar("after", 2.0)
    assert_shaped(raised.value, "record_if", None, "condition")
    assert_neighbours_written(writer, logdir)
