"""The PR-curve op: TensorBoard's `pr_curve.summary.pb` counts for the same inputs, its PR
curves dashboard reading them, and every input the issue names, accepted or rejected at
the call."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import summarylib as sl
from summarylib.format.tensor import NUMPY_DTYPES
from summarylib.ops.pr_curve import encoding as pr_curve_encoding
from summarylib.proto import plugin_data_pb2
from tests.helpers import written_values
from tests.reference.cases_pr_curve import PR_CURVE_CASES
from tests.tensorboard_data import provider_for, read_tensors

REFERENCE = os.path.join(os.path.dirname(__file__), "reference", "tensorboard_pr_curve.tfevents")


def tensor_array(tensor) -> np.ndarray:
    dtype = NUMPY_DTYPES[tensor.dtype].newbyteorder("<")
    shape = [d.size for d in tensor.tensor_shape.dim]
    return np.frombuffer(tensor.tensor_content, dtype).reshape(shape)


def plugin_content(metadata) -> plugin_data_pb2.PrCurvePluginData:
    assert metadata.plugin_data.plugin_name == "pr_curves"
    return plugin_data_pb2.PrCurvePluginData.FromString(metadata.plugin_data.content)


def encoded_rows(labels, predictions, num_thresholds=201, weights=None) -> np.ndarray:
    tensor, metadata = pr_curve_encoding.encode("pr", labels, predictions, num_thresholds, weights)
    assert plugin_content(metadata) == plugin_data_pb2.PrCurvePluginData(num_thresholds=num_thresholds)
    return tensor_array(tensor)


def logged_rows(logdir, labels, predictions, num_thresholds=201, weights=None) -> np.ndarray:
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=4):
        assert sl.pr_curve("pr", labels, predictions, num_thresholds=num_thresholds, weights=weights)
    writer.close()
    ((step, value),) = written_values(writer.path)
    assert step == 4 and value.tag == "pr"
    assert plugin_content(value.metadata) == plugin_data_pb2.PrCurvePluginData(num_thresholds=num_thresholds)
    return tensor_array(value.tensor)


PATHS = {"encode": lambda logdir, *args: encoded_rows(*args), "op": logged_rows}

T, F = True, False
LABELS = [T, F, T, F]
PREDICTIONS = [0.9, 0.1, 0.6, 0.4]
# Rows TP, FP, TN, FN, precision, recall at thresholds 0, 0.5, 1.
CURVE = [[2, 2, 0], [2, 0, 0], [0, 2, 2], [0, 0, 2], [0.5, 1, 0], [1, 1, 0]]

# (id, labels, predictions, num_thresholds, weights, expected rows)
BEHAVIOUR = [
    ("basic", LABELS, PREDICTIONS, 3, None, CURVE),
    ("int_labels", [1, 0, 1, 0], PREDICTIONS, 3, None, CURVE),
    ("float_labels", np.array([1.0, 0.0, 1.0, 0.0]), np.float32(PREDICTIONS), 3, None, CURVE),
    ("2d", np.reshape(LABELS, (2, 2)), np.reshape(PREDICTIONS, (2, 2)), 3, None, CURVE),
    (
        "weights",
        LABELS,
        PREDICTIONS,
        3,
        [1, 2, 3, 4],
        [[4, 4, 0], [6, 0, 0], [0, 6, 6], [0, 0, 4], [0.4, 1, 0], [1, 1, 0]],
    ),
    (
        "scalar_weight",
        LABELS,
        PREDICTIONS,
        3,
        2.0,
        [[4, 4, 0], [4, 0, 0], [0, 4, 4], [0, 0, 4], [0.5, 1, 0], [1, 1, 0]],
    ),
    (
        "broadcast_weights",
        np.reshape(LABELS, (2, 2)),
        np.reshape(PREDICTIONS, (2, 2)),
        3,
        [[1.0], [3.0]],
        [[4, 4, 0], [4, 0, 0], [0, 4, 4], [0, 0, 4], [0.5, 1, 0], [1, 1, 0]],
    ),
    (
        "on_thresholds",
        [T, T],
        [0.5, 1.0],
        3,
        None,
        [[2, 2, 1], [0, 0, 0], [0, 0, 0], [0, 0, 1], [1, 1, 1], [1, 1, 0.5]],
    ),
    ("all_negative", [F, F], [0.2, 1.0], 2, None, [[0, 0], [2, 1], [0, 1], [0, 0], [0, 0], [0, 0]]),
    ("bool_predictions", [T, F], [T, F], 2, None, [[1, 1], [1, 0], [0, 1], [0, 0], [0.5, 1], [1, 1]]),
    ("empty", np.zeros(0, bool), np.zeros(0), 2, None, np.zeros((6, 2))),
    ("scalars", T, 0.75, 2, None, [[1, 0], [0, 0], [0, 0], [0, 1], [1, 0], [1, 0]]),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(
    ("labels", "predictions", "num_thresholds", "weights", "expected"),
    [c[1:] for c in BEHAVIOUR],
    ids=[c[0] for c in BEHAVIOUR],
)
def test_behaviour(logdir, path, labels, predictions, num_thresholds, weights, expected):
    rows = PATHS[path](logdir, labels, predictions, num_thresholds, weights)
    assert rows.dtype == np.float32
    np.testing.assert_array_equal(rows, np.array(expected, np.float32))


def test_same_counts_as_tensorboard_pb(logdir):
    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        for step, (tag, labels, predictions, num_thresholds, weights) in enumerate(PR_CURVE_CASES):
            assert sl.pr_curve(
                tag, labels, predictions, step=step, num_thresholds=num_thresholds, weights=weights
            )
    writer.close()
    ours = written_values(writer.path)
    theirs = written_values(REFERENCE)
    assert len(ours) == len(theirs) == len(PR_CURVE_CASES)
    for (step, value), (their_step, their_value) in zip(ours, theirs, strict=True):
        # pb writes the TF 1 way: tag "<name>/pr_curves", the name as display name.
        assert (step, f"{value.tag}/pr_curves") == (their_step, their_value.tag)
        assert value.tensor == their_value.tensor, value.tag
        assert plugin_content(value.metadata) == plugin_content(their_value.metadata)


def test_encoder_matches_tensorboard_pb():
    for (tag, labels, predictions, num_thresholds, weights), (_, value) in zip(
        PR_CURVE_CASES, written_values(REFERENCE), strict=True
    ):
        tensor, _ = pr_curve_encoding.encode(tag, labels, predictions, num_thresholds, weights)
        assert tensor == value.tensor, tag


@pytest.mark.filterwarnings("ignore:html5lib's sanitizer is deprecated:DeprecationWarning")
def test_tensorboard_dashboard_reads_it(logdir):
    from tensorboard import context
    from tensorboard.plugins import base_plugin
    from tensorboard.plugins.pr_curve.pr_curves_plugin import PrCurvesPlugin

    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        for step in range(3):
            sl.pr_curve("eval/pr", LABELS, PREDICTIONS, step=step, num_thresholds=3, weights=step + 1.0)
    writer.close()
    ((tag, data),) = read_tensors(logdir, "pr_curves")["."].items()
    assert tag == "eval/pr"
    assert [step for step, _ in data] == [0, 1, 2]
    for step, rows in data:
        counts = np.array(CURVE, np.float32)
        counts[:4] *= step + 1
        np.testing.assert_array_equal(rows, counts)

    plugin = PrCurvesPlugin(base_plugin.TBContext(data_provider=provider_for(logdir)))
    entries = plugin.pr_curves_impl(context.RequestContext(), "", ["."], "eval/pr")["."]
    assert [e["step"] for e in entries] == [0, 1, 2]
    # The dashboard trims thresholds where nothing is predicted positive (here the last).
    assert entries[2]["thresholds"] == [0.0, 0.5]
    assert entries[2]["true_positives"] == [6, 6] and entries[2]["false_positives"] == [6, 0]
    assert entries[2]["true_negatives"] == [0, 6] and entries[2]["false_negatives"] == [0, 0]
    assert entries[2]["precision"] == [0.5, 1.0] and entries[2]["recall"] == [1.0, 1.0]


def direct_curve(labels, predictions, num_thresholds, weights) -> np.ndarray:
    """Every threshold counted separately, in float64, with the module's bucket rule."""
    work = np.float32 if predictions.dtype in (np.float16, np.float32) else np.float64
    index = np.floor(predictions.reshape(-1).astype(work) * work(num_thresholds - 1))
    label = labels.reshape(-1) != 0
    weight = np.broadcast_to(1.0 if weights is None else weights, labels.shape).reshape(-1)
    above = index[None, :] >= np.arange(num_thresholds)[:, None]
    tp = (above * (weight * label)).sum(axis=1)
    fp = (above * (weight * ~label)).sum(axis=1)
    tn, fn = fp[0] - fp, tp[0] - tp
    precision = tp / np.maximum(1e-7, tp + fp)
    recall = tp / np.maximum(1e-7, tp + fn)
    return np.stack([tp, fp, tn, fn, precision, recall])


@st.composite
def pr_inputs(draw):
    """Labels, predictions, num_thresholds and weights that the op accepts."""
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=8))
    label_dtype = draw(st.sampled_from([np.bool_, np.int8, np.int64, np.uint8, np.float32]))
    labels = draw(hnp.arrays(label_dtype, shape, elements=st.sampled_from([0, 1])))
    prediction_dtype = draw(st.sampled_from([np.float16, np.float32, np.float64]))
    width = np.dtype(prediction_dtype).itemsize * 8
    predictions = draw(hnp.arrays(prediction_dtype, shape, elements=st.floats(0, 1, width=width)))
    num_thresholds = draw(st.integers(2, 300))
    weights = None
    if draw(st.booleans()):
        weight_shape = tuple(draw(st.sampled_from([1, side])) for side in shape)
        weight_shape = weight_shape[draw(st.integers(0, len(shape))) :]
        weights = draw(hnp.arrays(np.float64, weight_shape, elements=st.integers(0, 1000).map(float)))
    return labels, predictions, num_thresholds, weights


@settings(max_examples=200, deadline=None)
@given(pr_inputs())
def test_any_accepted_input_counts_every_threshold(inputs):
    labels, predictions, num_thresholds, weights = inputs
    rows = encoded_rows(labels, predictions, num_thresholds, weights)
    assert rows.shape == (6, num_thresholds) and rows.dtype == np.float32
    # Integer weights: every count is exact, so the float32 rows must agree to the bit.
    np.testing.assert_array_equal(
        rows, direct_curve(labels, predictions, num_thresholds, weights).astype(np.float32)
    )
    tp, fp, tn, fn = rows[:4]
    assert (np.diff(tp) <= 0).all() and (np.diff(fp) <= 0).all()
    assert (tp + fn == tp[0]).all() and (fp + tn == fp[0]).all()


@settings(max_examples=15, deadline=None)
@given(pr_inputs(), st.integers(0, 2**63 - 1))
def test_any_accepted_input_round_trips_through_a_file(tmp_path_factory, inputs, step):
    labels, predictions, num_thresholds, weights = inputs
    writer = sl.create_file_writer(str(tmp_path_factory.mktemp("pr")))
    with writer.as_default():
        assert sl.pr_curve("x", labels, predictions, step, num_thresholds, weights, "*PR*")
    writer.close()
    ((step_read, value),) = written_values(writer.path)
    tensor, metadata = pr_curve_encoding.encode("x", labels, predictions, num_thresholds, weights, "*PR*")
    assert (step_read, value.tensor, value.metadata) == (step, tensor, metadata)
    assert value.metadata.summary_description == "*PR*"


def test_weighted_counts_over_many_blocks():
    labels, predictions = np.array([T, F] * 70_000), np.linspace(0, 1, 140_000, dtype=np.float32)
    weights = np.linspace(0.001, 0.1, 140_000)
    rows = encoded_rows(labels, predictions, 11, weights)
    expected = direct_curve(labels, predictions, 11, weights)
    np.testing.assert_allclose(rows, expected, rtol=1e-6)


GOOD = {"labels": [T, F], "predictions": [0.5, 0.25], "num_thresholds": 5, "weights": None}

# (argument, bad value, error class, message pattern)
REJECTED = [
    ("labels", [2, 0], ValueError, "expected booleans or 0/1, got 2"),
    ("labels", [0.5, 1.0], ValueError, "expected booleans or 0/1, got 0.5"),
    ("labels", [-1, 0], ValueError, "expected booleans or 0/1, got -1"),
    ("labels", ["a", "b"], TypeError, "dtype <U1"),
    ("labels", [1j, 0], TypeError, "dtype complex128"),
    ("predictions", [0.5, 1.5], ValueError, r"expected values in \[0, 1\], got min 0.5 and max 1.5"),
    ("predictions", [-0.1, 0.5], ValueError, r"expected values in \[0, 1\]"),
    ("predictions", [float("nan"), 0.5], ValueError, "got min nan"),
    ("predictions", [0.5, 0.25, 0.1], ValueError, r"expected the labels' shape \[2\], got shape \[3\]"),
    ("predictions", [[0.5, 0.25]], ValueError, r"got shape \[1, 2\]"),
    ("predictions", object(), TypeError, "expected an array-like"),
    ("num_thresholds", 1, ValueError, "expected an int >= 2, got int 1"),
    ("num_thresholds", -5, ValueError, "expected an int >= 2"),
    ("num_thresholds", 10.0, ValueError, "got float 10.0"),
    ("num_thresholds", True, ValueError, "got bool True"),
    ("num_thresholds", None, ValueError, "got NoneType"),
    ("weights", [1.0, 2.0, 3.0], ValueError, r"broadcasts to the labels' shape \[2\], got shape \[3\]"),
    ("weights", [[1.0], [2.0]], ValueError, r"got shape \[2, 1\]"),
    ("weights", [1.0, float("inf")], ValueError, "expected finite values"),
    ("weights", "heavy", TypeError, "dtype <U5"),
]


@pytest.mark.parametrize(
    ("argument", "value", "error", "pattern"), REJECTED, ids=[f"{r[0]}-{i}" for i, r in enumerate(REJECTED)]
)
def test_bad_input_rejected(argument, value, error, pattern):
    arguments = {**GOOD, argument: value}
    full = rf"summarylib\.pr_curve: tag 'eval/pr': argument '{argument}': .*{pattern}"
    with pytest.raises(error, match=full):
        pr_curve_encoding.encode("eval/pr", **arguments)


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(
        st.floats().filter(lambda x: not 0 <= x <= 1),
        st.floats(0, 1),
    ),
    st.one_of(st.integers(max_value=1), st.integers(2, 1000)),
)
def test_any_out_of_range_argument_rejected(prediction, num_thresholds):
    bad = not 0 <= prediction <= 1 or num_thresholds < 2
    if not bad:
        assert pr_curve_encoding.encode("p", [T], [prediction], num_thresholds)
        return
    with pytest.raises(
        ValueError, match=r"summarylib\.pr_curve: tag 'p': argument '(predictions|num_thresholds)'"
    ):
        pr_curve_encoding.encode("p", [T], [prediction], num_thresholds)


def test_nothing_rejected_reaches_the_file(logdir):
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=1):
        for argument, value, error, _ in REJECTED:
            with pytest.raises(error, match=rf"summarylib\.pr_curve: tag 'eval/pr': argument '{argument}'"):
                sl.pr_curve("eval/pr", **{**GOOD, argument: value})
        with pytest.raises(TypeError, match=r"summarylib\.pr_curve: tag 'eval/pr': argument 'description'"):
            sl.pr_curve("eval/pr", **GOOD, description=1)
        with pytest.raises(
            TypeError, match=r"summarylib\.pr_curve: (tag .*: )?argument .name.: expected a non-empty str"
        ):
            sl.pr_curve(3, **GOOD)
    with writer.as_default(step=2):
        assert sl.pr_curve("eval/pr", **GOOD)  # the writer carries on
    writer.close()
    assert [s for s, _ in written_values(writer.path)] == [2]
    assert writer.stats().errors == 0


def test_mutation_after_the_call_changes_nothing(logdir):
    labels = np.array(LABELS * 25)
    predictions = np.array(PREDICTIONS * 25)
    weights = np.arange(100.0)
    expected = encoded_rows(labels.copy(), predictions.copy(), 11, weights.copy())
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0):
        sl.pr_curve("pr", labels, predictions[::1], num_thresholds=11, weights=weights)
        labels[:] = False
        predictions[:] = 0.0
        weights[:] = 0.0
    writer.close()
    ((_, value),) = written_values(writer.path)
    np.testing.assert_array_equal(tensor_array(value.tensor), expected)


def test_nothing_recorded_without_a_writer():
    assert sl.pr_curve("pr", object(), object()) is False
