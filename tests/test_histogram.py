"""The histogram op: TensorFlow 2's exact encoding, TensorBoard's histograms and distributions
dashboards reading it, and every input the issue names, accepted or rejected at the call."""

from __future__ import annotations

import itertools
import math
import os
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import summarylib as sl
from summarylib.format.tensor import NUMPY_DTYPES
from summarylib.ops.histogram import encoding as histogram_encoding
from tests.helpers import ArrayLike, written_values
from tests.reference.cases_histogram import HISTOGRAM_CASES
from tests.tensorboard_data import provider_for, read_tensors

REFERENCE = os.path.join(os.path.dirname(__file__), "reference", "tf2_histogram.tfevents")
_unique = itertools.count()


def unique_tag(prefix: str) -> str:
    """A tag no other test has used in this process (non-finite warnings are once per tag)."""
    return f"{prefix}/{next(_unique)}"


def tensor_array(tensor) -> np.ndarray:
    dtype = NUMPY_DTYPES[tensor.dtype].newbyteorder("<")
    shape = [d.size for d in tensor.tensor_shape.dim]
    return np.frombuffer(tensor.tensor_content, dtype).reshape(shape)


def encoded_rows(data, buckets=None, tag="h") -> np.ndarray:
    tensor, metadata = histogram_encoding.encode(tag, data, buckets)
    assert metadata.plugin_data.plugin_name == "histograms"
    return tensor_array(tensor)


def logged_rows(logdir: str, data, buckets=None, tag="h") -> np.ndarray:
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=3):
        assert sl.histogram(tag, data, buckets=buckets)
    writer.close()
    ((step, value),) = written_values(writer.path)
    assert step == 3 and value.tag == tag
    assert value.metadata.plugin_data.plugin_name == "histograms"
    return tensor_array(value.tensor)


PATHS = {"encode": lambda logdir, data, buckets: encoded_rows(data, buckets), "op": logged_rows}

NAN, INF = math.nan, math.inf

# (id, data, buckets, expected [k, 3] rows)
BEHAVIOUR = [
    ("empty", np.zeros(0), 3, [[0, 0, 0]] * 3),
    ("empty_default_30", [], None, [[0, 0, 0]] * 30),
    ("all_equal", [2.5] * 4, 3, [[2.5, 2.5, 0], [2.5, 2.5, 0], [2.5, 2.5, 4]]),
    ("all_equal_one_bucket", np.full(7, -1, np.int8), 1, [[-1, -1, 7]]),
    ("one_value", np.float64(9.0), 2, [[9, 9, 0], [9, 9, 1]]),
    ("buckets_0", [1.0, 2.0], 0, np.zeros((0, 3))),
    ("buckets_1", [3.0, 1.0, 2.0], 1, [[1, 3, 3]]),
    ("two_buckets", np.arange(4.0), 2, [[0, 1.5, 2], [1.5, 3, 2]]),
    ("last_closed", [0.0, 1.0, 2.0, 3.0], 3, [[0, 1, 1], [1, 2, 1], [2, 3, 2]]),
    ("shape_ignored", np.arange(6.0).reshape(2, 3), 2, [[0, 2.5, 3], [2.5, 5, 3]]),
    ("bools", [True, False, True, True], 2, [[0, 0.5, 1], [0.5, 1, 3]]),
    ("ints", np.array([-4, 0, 4], np.int64), 2, [[-4, 0, 1], [0, 4, 2]]),
    ("uint64_max", np.array([0, 2**64 - 1], np.uint64), 1, [[0, 2.0**64, 2]]),
    ("float16", np.array([0.5, 1.0], np.float16), 2, [[0.5, 0.75, 1], [0.75, 1, 1]]),
    ("nan_left_out", [1.0, NAN, 3.0], 2, [[1, 2, 1], [2, 3, 1]]),
    ("inf_left_out", np.array([-INF, 1.0, 3.0, INF], np.float32), 2, [[1, 2, 1], [2, 3, 1]]),
    ("only_nan", [NAN, NAN], 2, [[0, 0, 0]] * 2),
    ("nan_and_one_value", [NAN, 5.0], 2, [[5, 5, 0], [5, 5, 1]]),
    ("range_overflows", np.array([-1e308, 1e308]), 2, [[-1e308, 0, 1], [0, 1e308, 1]]),
    ("subnormal_range", np.array([0.0, 4e-323]), 2, [[0, 2e-323, 1], [2e-323, 4e-323, 1]]),
    ("python_floats_are_float32", [0.1, 0.3], 1, [[np.float32(0.1), np.float32(0.3), 2]]),
    ("numpy_float64_stays", np.array([0.1, 0.3]), 1, [[0.1, 0.3, 2]]),
]


@pytest.mark.filterwarnings("ignore:summarylib.histogram.*left out:RuntimeWarning")
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(
    ("data", "buckets", "expected"), [c[1:] for c in BEHAVIOUR], ids=[c[0] for c in BEHAVIOUR]
)
def test_behaviour(logdir, path, data, buckets, expected):
    rows = PATHS[path](logdir, data, buckets)
    assert rows.dtype == np.float64
    np.testing.assert_array_equal(rows, np.array(expected, np.float64).reshape(-1, 3))


def test_same_summaries_as_tensorflow(logdir):
    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        for step, (tag, data, buckets, description) in enumerate(HISTOGRAM_CASES):
            assert sl.histogram(tag, data, step=step, buckets=buckets, description=description)
    writer.close()
    ours = [(s, v.SerializeToString()) for s, v in written_values(writer.path)]
    theirs = [(s, v.SerializeToString()) for s, v in written_values(REFERENCE)]
    assert len(theirs) == len(HISTOGRAM_CASES)
    assert ours == theirs


def test_encoder_matches_tensorflow():
    theirs = [v for _, v in written_values(REFERENCE)]
    for (tag, data, buckets, description), value in zip(HISTOGRAM_CASES, theirs, strict=True):
        tensor, metadata = histogram_encoding.encode(tag, data, buckets, description)
        assert (tensor, metadata) == (value.tensor, value.metadata), tag


@pytest.mark.filterwarnings("ignore:html5lib's sanitizer is deprecated:DeprecationWarning")
def test_tensorboard_dashboards_read_it(logdir):
    from tensorboard import context
    from tensorboard.plugins import base_plugin
    from tensorboard.plugins.distribution.distributions_plugin import DistributionsPlugin
    from tensorboard.plugins.histogram.histograms_plugin import HistogramsPlugin

    data = {step: np.arange(100.0) * (step + 1) for step in range(3)}
    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        for step, values in data.items():
            sl.histogram("layer/weights", values, step=step, buckets=5)
    writer.close()
    expected = [(step, encoded_rows(values, 5)) for step, values in data.items()]
    (step_rows,) = read_tensors(logdir, "histograms")["."].values()
    assert [s for s, _ in step_rows] == [s for s, _ in expected]
    for (_, rows), (_, want) in zip(step_rows, expected, strict=True):
        np.testing.assert_array_equal(rows, want)

    plugin_context = base_plugin.TBContext(data_provider=provider_for(logdir))
    events, _ = HistogramsPlugin(plugin_context).histograms_impl(
        context.RequestContext(), "layer/weights", ".", experiment="", downsample_to=10
    )
    assert [(step, rows) for _, step, rows in events] == [(s, r.tolist()) for s, r in expected]
    distributions, _ = DistributionsPlugin(plugin_context).distributions_impl(
        context.RequestContext(), "layer/weights", ".", experiment=""
    )
    # The median of 0..99 times (step + 1) falls in the middle bucket, around 50 * (step + 1).
    medians = [dict(compressed)[5000] for _, _, compressed in distributions]
    assert [round(m / (s + 1)) for s, m in enumerate(medians)] == [50, 50, 50]


def tf_buckets(values: np.ndarray, k: int) -> np.ndarray:
    """TensorFlow's bucketing written out plainly (one pass, clamp, one-hot counting)."""
    values = values.reshape(-1).astype(np.float64)
    low, high = values.min(), values.max()
    width = (high - low) / k
    indices = np.minimum(np.floor((values - low) / width).astype(np.int64), k - 1)
    counts = (indices[:, None] == np.arange(k)).sum(axis=0)
    edges = np.concatenate([[low], low + width * np.arange(1, k), [high]])
    return np.stack([edges[:-1], edges[1:], counts]).T


real_dtypes = st.sampled_from(
    [np.float16, np.float32, np.float64, np.int8, np.int32, np.int64, np.uint8, np.uint64, np.bool_]
)


@st.composite
def finite_arrays(draw):
    dtype = np.dtype(draw(real_dtypes))
    elements = None
    if dtype.kind == "f":
        # Keep max - min finite, where TensorFlow's arithmetic is the reference.
        bound = min(1e300, float(np.finfo(dtype).max))
        elements = st.floats(-bound, bound, allow_nan=False, allow_infinity=False, width=dtype.itemsize * 8)
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=12))
    return draw(hnp.arrays(dtype, shape, elements=elements))


@settings(max_examples=300, deadline=None)
@given(finite_arrays(), st.integers(0, 40))
def test_any_finite_array_buckets_as_tensorflow(data, buckets):
    rows = encoded_rows(data, buckets)
    values = data.reshape(-1).astype(np.float64)
    assert rows.shape == (buckets, 3)
    if buckets == 0 or values.size == 0:
        assert not rows.any()
        return
    assert rows[:, 2].sum() == values.size
    assert rows[0, 0] == values.min() and rows[-1, 1] == values.max()
    assert (rows[:, 0] <= rows[:, 1]).all() and (rows[1:, 0] == rows[:-1, 1]).all()
    if values.min() < values.max() and (values.max() - values.min()) / buckets >= 2.3e-308:
        np.testing.assert_array_equal(rows, tf_buckets(values, buckets))


@settings(max_examples=100, deadline=None)
@given(
    hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=1, max_dims=2, max_side=20),
        elements=st.floats(allow_nan=True, allow_infinity=True),
    ),
    st.integers(1, 10),
)
def test_any_float_array_keeps_every_finite_value(data, buckets):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        rows = encoded_rows(data, buckets, tag=unique_tag("any"))
    finite = data[np.isfinite(data)]
    assert np.isfinite(rows).all()
    assert rows[:, 2].sum() == finite.size
    if finite.size:
        assert rows[0, 0] == finite.min() and rows[-1, 1] == finite.max()
        assert (np.diff(rows[:, :2].reshape(-1)) >= 0).all()


@settings(max_examples=20, deadline=None)
@given(finite_arrays(), st.one_of(st.none(), st.integers(0, 40)), st.integers(0, 2**63 - 1))
def test_any_array_round_trips_through_a_file(tmp_path_factory, data, buckets, step):
    logdir = str(tmp_path_factory.mktemp("histogram"))
    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        assert sl.histogram("x", data, step=step, buckets=buckets)
    writer.close()
    ((step_read, value),) = written_values(writer.path)
    assert step_read == step
    tensor, metadata = histogram_encoding.encode("x", data, buckets)
    assert (value.tensor, value.metadata) == (tensor, metadata)


def test_counts_exact_beyond_float32_precision():
    count = 2**24 + 3
    data = np.zeros(count, bool)
    data[:2] = True
    rows = encoded_rows(data, 2)
    assert rows[:, 2].tolist() == [count - 2, 2]


@pytest.mark.parametrize("scale", [0.05, 3.0, 1e-30, 1e30])
def test_float32_bucketing_differs_only_at_the_edges(scale):
    """`exact=False` (the model watch's histograms): same edges, same total, and a count
    differs from TensorFlow's only by values within float32 rounding of an inner edge."""
    values = (np.random.default_rng(1).standard_normal(200_000) * scale).astype(np.float32)
    exact = histogram_encoding.bucketize("h", values, 30)
    fast = histogram_encoding.bucketize("h", values, 30, exact=False)
    np.testing.assert_array_equal(fast[:, :2], exact[:, :2])
    assert fast[:, 2].sum() == values.size
    edges = exact[1:, 0]
    rounding = 4 * np.spacing(np.abs(edges).astype(np.float32))
    near = np.abs(values[:, None].astype(np.float64) - edges) <= rounding
    assert np.abs(fast[:, 2] - exact[:, 2]).sum() <= 2 * near.sum()


@pytest.mark.parametrize(
    "values",
    [
        np.array([-3e38, 0.0, 3e38], np.float32),  # a range beyond float32
        np.array([0.0, 1e-45, 3e-45], np.float32),  # subnormal widths
        np.linspace(-1, 1, 1001),  # float64 values
    ],
)
def test_float32_bucketing_falls_back_to_exact(values):
    exact = histogram_encoding.bucketize("h", values, 7)
    np.testing.assert_array_equal(histogram_encoding.bucketize("h", values, 7, exact=False), exact)


def test_float32_bucketing_of_many_buckets_falls_back_to_exact():
    """With millions of buckets float32 offsets of the largest value could pass the last."""
    values = np.array([6.994113e-05, 369.89417], np.float32)
    rows = histogram_encoding.bucketize("h", values, 10_000_000, exact=False)
    np.testing.assert_array_equal(rows, histogram_encoding.bucketize("h", values, 10_000_000))


BAD_BUCKETS = st.one_of(
    st.integers(max_value=-1),
    st.integers(min_value=2**31),
    st.floats(allow_nan=True),
    st.booleans(),
    st.text(max_size=3),
    st.just(np.float64(3.0)),
    st.just(np.array([3])),
)


@settings(max_examples=200, deadline=None)
@given(BAD_BUCKETS)
def test_bad_buckets_rejected(buckets):
    with pytest.raises(
        ValueError, match=r"summarylib\.histogram: tag 'weights': argument 'buckets': expected"
    ):
        histogram_encoding.encode("weights", [1.0, 2.0], buckets)


def test_nothing_rejected_reaches_the_file(logdir):
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=1):
        for buckets in (-1, 2**31, 2.0, True, "3", np.array([3])):
            with pytest.raises(ValueError, match=r"summarylib\.histogram: tag 'weights': argument 'buckets'"):
                sl.histogram("weights", [1.0, 2.0], buckets=buckets)
        for data in (np.array([1j]), ["a"], object()):
            with pytest.raises(TypeError, match=r"summarylib\.histogram: tag 'weights': argument 'data'"):
                sl.histogram("weights", data)
    with writer.as_default(step=2):
        assert sl.histogram("weights", [1.0, 2.0])  # the writer carries on
    writer.close()
    assert [s for s, _ in written_values(writer.path)] == [2]
    assert writer.stats().errors == 0


@pytest.mark.parametrize(
    ("data", "error", "pattern"),
    [
        (np.array([1 + 2j]), TypeError, "dtype complex128"),
        (np.array(["a", "b"]), TypeError, "dtype <U1"),
        ([1.0, None], TypeError, "dtype object"),
        ([10**30], TypeError, "dtype object"),
        ([[1.0], [2.0, 3.0]], ValueError, "cannot make an array"),
        (object(), TypeError, "expected an array-like"),
        (ArrayLike(np.array([b"x"])), TypeError, "dtype .S1"),
    ],
    ids=["complex", "str", "none", "huge_int", "ragged", "object", "bytes"],
)
def test_bad_data_rejected_at_the_call(logdir, data, error, pattern):
    writer = sl.create_file_writer(logdir)
    with (
        writer.as_default(step=1),
        pytest.raises(error, match=rf"summarylib\.histogram: tag 'w': argument 'data': .*{pattern}"),
    ):
        sl.histogram("w", data)
    with writer.as_default(step=2):
        assert sl.histogram("w", [1.0])
    writer.close()
    assert [s for s, _ in written_values(writer.path)] == [2]


def test_bad_name_and_description(logdir):
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0):
        with pytest.raises(
            TypeError, match=r"summarylib\.histogram: (tag .*: )?argument .name.: expected a non-empty str"
        ):
            sl.histogram(None, [1.0])
        with pytest.raises(TypeError, match=r"summarylib\.histogram: tag 'w': argument 'description'"):
            sl.histogram("w", [1.0], description=3)
    writer.close()
    assert written_values(writer.path) == []


def test_non_finite_values_warned_once_per_tag(logdir):
    tag, other = unique_tag("nonfinite"), unique_tag("nonfinite")
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0):
        with pytest.warns(RuntimeWarning, match=rf"tag '{tag}': left out 3 NaN or infinite value\(s\) of 5"):
            sl.histogram(tag, [1.0, NAN, INF, -INF, 2.0])
            sl.flush()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sl.histogram(tag, [NAN, 1.0])
            sl.histogram(unique_tag("finite"), [1.0, 2.0])
            sl.flush()
        assert caught == []
        with pytest.warns(RuntimeWarning, match=rf"tag '{other}': left out 1 "):
            sl.histogram(other, np.array([NAN], np.float32))
            sl.flush()
    writer.close()
    counts = [tensor_array(v.tensor)[:, 2].sum() for _, v in written_values(writer.path)]
    assert counts == [2, 1, 2, 0]


@pytest.mark.parametrize(
    "make",
    [
        lambda: np.arange(50.0),
        lambda: np.arange(100.0)[::2],
        lambda: np.arange(50.0).reshape(5, 10).T,
    ],
    ids=["array", "strided_view", "transposed"],
)
def test_mutation_after_the_call_changes_nothing(logdir, make):
    data = make()
    original = np.array(np.asarray(data), copy=True)
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0):
        sl.histogram("w", data, buckets=4)
        np.asarray(data)[...] = -1.0
    writer.close()
    ((_, value),) = written_values(writer.path)
    np.testing.assert_array_equal(tensor_array(value.tensor), encoded_rows(original, 4))


def test_array_likes_and_numpy_integer_buckets(logdir):
    rows = logged_rows(logdir, ArrayLike(np.array([1, 2, 3], np.int16)), buckets=np.int64(2))
    np.testing.assert_array_equal(rows, [[1, 2, 1], [2, 3, 2]])


def test_nothing_recorded_without_a_writer():
    assert sl.histogram("w", object()) is False


def test_torch_style_buckets_of_a_range_float64_cannot_split_need_no_numpy_version():
    """compat.torch's add_histogram(bins="fd") of one value of 4.5e15: numpy cannot make the
    buckets (numpy >= 2.2 raises ValueError, older ones IndexError: both are caught), and
    equal buckets hold the value instead, on every numpy the project declares."""
    from summarylib.compat.torch.histogram_bins import bounded_histogram

    counts, edges = bounded_histogram(np.array([4.5036e15]), "fd", None)
    assert counts.sum() == 1 and edges[0] <= 4.5036e15 <= edges[-1]
