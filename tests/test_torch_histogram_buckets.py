"""add_histogram writes torch's file: the same program through torch.utils.tensorboard's
SummaryWriter (and tensorboardX's) and through summarylib's drop-ins, read back with
TensorBoard's EventAccumulator and as raw HistogramProtos, compared field for field and
byte for byte: min, max, num, sum, bucket_limit and bucket. sum_squares is compared to a
relative 1e-12: torch's is BLAS's dot, ours numpy's sums of products of blocks of the
values (see summarylib.compat.torch.default_bins), equal to the last bits or so.

The default `bins="tensorflow"` is torch's `default_bins` edges counted by np.histogram and
trimmed to the support (issue 29: ours was TF 1.x's own bucketing). Adversarial values
(on an edge and next to it, signed zeros, subnormals, values beyond the outer edges,
huge ones) in every input dtype are drawn by hypothesis; NaN and ±Inf are the one
documented difference (left out with a warning, where torch's numpy call keeps them in
min, max and the sums).
"""

from __future__ import annotations

import glob
import tempfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")

import torch
from tensorboard.backend.event_processing import event_accumulator, event_file_loader
from torch.utils.tensorboard import SummaryWriter as TorchWriter

from summarylib.compat import tensorboardX as compat_tensorboardx
from summarylib.compat.torch import SummaryWriter
from tests.hostile_values import examples

RNG = np.random.default_rng(29)
NORMAL = RNG.normal(size=1000).astype(np.float32)
WIDE = RNG.normal(size=3000) * 10.0 ** RNG.uniform(-16, 24, size=3000)  # past both outer edges


def default_edges() -> list[float]:
    """torch's default_bins, built as its writer builds them (TensorBoard's generate_testdata)."""
    positive, limit = [], 1e-12
    while limit < 1e20:
        positive.append(limit)
        limit *= 1.1
    return [-v for v in reversed(positive)] + [0.0] + positive


EDGES = np.array(default_edges())

# (tag, values, keyword arguments of add_histogram) of the program both writers run.
PROGRAM = [
    ("default/float32", NORMAL, {}),
    ("default/tensor", torch.from_numpy(NORMAL * 3), {}),
    ("default/float64_wide", WIDE, {}),
    ("default/float16", NORMAL.astype(np.float16), {}),
    ("default/int64", np.arange(-500, 700) * 37, {}),
    ("default/uint8", np.arange(256, dtype=np.uint8), {}),
    ("default/bool", np.array([True, False, True]), {}),
    ("default/zeros", np.array([0.0, -0.0, 0.0]), {}),
    ("default/edges", np.concatenate([EDGES, np.nextafter(EDGES, np.inf), np.nextafter(EDGES, -np.inf)]), {}),
    ("default/float32_edges", EDGES.astype(np.float32), {}),
    ("default/many", RNG.normal(size=150_000).astype(np.float32) * 1e-3, {}),  # several chunks
    # 65,536 values or more: one compiled loop where numba is installed (the fast extra)
    ("default/many_float64", RNG.normal(size=70_000) * 10.0 ** RNG.uniform(-16, 24, size=70_000), {}),
    ("default/max_bins_7", WIDE, {"max_bins": 7}),
    ("default/max_bins_100", NORMAL, {"max_bins": 100}),
    ("default/one_value", np.array([2.5]), {}),
    ("numpy/ten", NORMAL, {"bins": 10}),
    ("numpy/auto", NORMAL.astype(np.float64), {"bins": "auto"}),
    ("numpy/fd_max_bins", NORMAL, {"bins": "fd", "max_bins": 5}),
    ("numpy/edges", NORMAL, {"bins": np.linspace(-1, 1, 9)}),
    ("numpy/ints", np.arange(100) % 7, {"bins": 10}),
]
ANCHORS = {"torch": TorchWriter}
try:
    from tensorboardX import SummaryWriter as TensorboardXWriter

    ANCHORS["tensorboardX"] = TensorboardXWriter
except ImportError:  # tensorboardX is optional: compared with torch's alone
    pass
OURS = {"torch": SummaryWriter, "tensorboardX": compat_tensorboardx.SummaryWriter}


def run(writer_class, logdir: str, program) -> None:
    with writer_class(logdir) as writer:
        for step, (tag, values, kwargs) in enumerate(program):
            writer.add_histogram(tag, values, step, **kwargs)


SQUARES_RTOL = 1e-12  # sum_squares: BLAS's dot (torch) against a pairwise sum (ours)


def raw_histograms(logdir: str) -> dict[str, list]:
    """{tag: [HistogramProto, ...]} of every `histo` value in the logdir, as written."""
    found: dict[str, list] = {}
    for path in sorted(glob.glob(f"{logdir}/events.out.tfevents.*")):
        for event in event_file_loader.LegacyEventFileLoader(path).Load():
            for value in event.summary.value:
                if value.HasField("histo"):
                    found.setdefault(value.tag, []).append(value.histo)
    return found


def assert_same_histogram(expected, got, tag: str) -> None:
    """Two HistogramProtos byte for byte, but sum_squares, which agrees to SQUARES_RTOL."""
    np.testing.assert_allclose(got.sum_squares, expected.sum_squares, rtol=SQUARES_RTOL, err_msg=tag)
    expected = type(expected).FromString(expected.SerializeToString())
    got = type(got).FromString(got.SerializeToString())
    expected.ClearField("sum_squares")
    got.ClearField("sum_squares")
    assert got.SerializeToString() == expected.SerializeToString(), (tag, got, expected)


def assert_same_raw(theirs: dict[str, list], ours: dict[str, list]) -> None:
    assert sorted(ours) == sorted(theirs)
    for tag, protos in theirs.items():
        assert len(ours[tag]) == len(protos), tag
        for expected, got in zip(protos, ours[tag], strict=True):
            assert_same_histogram(expected, got, tag)


def accumulated(logdir: str, tags) -> dict[str, list[tuple]]:
    """{tag: [(step, HistogramValue), ...]} as TensorBoard's EventAccumulator reads them."""
    accumulator = event_accumulator.EventAccumulator(logdir, size_guidance={"histograms": 0}).Reload()
    return {tag: [(e.step, e.histogram_value) for e in accumulator.Histograms(tag)] for tag in tags}


@pytest.fixture(scope="module", params=sorted(ANCHORS))
def logdirs(request, tmp_path_factory) -> dict[str, str]:
    """{"theirs": logdir, "ours": logdir} of PROGRAM through the anchor and its drop-in."""
    anchor = request.param
    dirs = {}
    for side, writer_class in (("theirs", ANCHORS[anchor]), ("ours", OURS[anchor])):
        dirs[side] = str(tmp_path_factory.mktemp(f"{anchor}_{side}"))
        run(writer_class, dirs[side], PROGRAM)
    return dirs


def test_event_accumulator_reads_the_same_histograms(logdirs):
    tags = [tag for tag, _, _ in PROGRAM]
    theirs, ours = accumulated(logdirs["theirs"], tags), accumulated(logdirs["ours"], tags)
    for tag in tags:
        assert [step for step, _ in ours[tag]] == [step for step, _ in theirs[tag]], tag
        for (_, got), (_, expected) in zip(ours[tag], theirs[tag], strict=True):
            for field in ("min", "max", "num", "sum", "bucket_limit", "bucket"):
                assert getattr(got, field) == getattr(expected, field), (tag, field)
            np.testing.assert_allclose(got.sum_squares, expected.sum_squares, rtol=SQUARES_RTOL, err_msg=tag)


def test_raw_histogram_protos_are_byte_for_byte_the_anchors(logdirs):
    theirs, ours = raw_histograms(logdirs["theirs"]), raw_histograms(logdirs["ours"])
    assert sorted(theirs) == sorted(tag for tag, _, _ in PROGRAM)
    assert_same_raw(theirs, ours)


def test_default_bins_buckets_are_the_support_of_torchs_edges(logdirs):
    """What a reader relies on, said directly: the right edges are torch's, consecutive,
    from the bucket left of the first non-empty one to the last non-empty one."""
    ((_, histogram),) = accumulated(logdirs["ours"], ["default/float32"])["default/float32"]
    first = int(np.flatnonzero(histogram.bucket_limit[0] == EDGES)[0])
    np.testing.assert_array_equal(histogram.bucket_limit, EDGES[first : first + len(histogram.bucket_limit)])
    assert histogram.bucket[0] == 0 and histogram.bucket[1] > 0 and histogram.bucket[-1] > 0
    assert sum(histogram.bucket) == histogram.num == NORMAL.size


def _float_neighbours(dtype) -> st.SearchStrategy:
    """Values of `dtype` on torch's edges (as `dtype` rounds them) and next to them."""
    with np.errstate(over="ignore"):
        on_edges = EDGES.astype(dtype)
    on_edges = on_edges[np.isfinite(on_edges)]
    edge = st.sampled_from(on_edges.tolist()).map(dtype)
    return st.one_of(
        edge,
        edge.map(lambda v: np.nextafter(v, dtype(np.inf))),
        edge.map(lambda v: np.nextafter(v, dtype(-np.inf))),
    )


_SPECIALS = [0.0, -0.0, 1e-13, -1e-13, 1e-12, 1e20, -1e20, 9.85e19, -9.85e19, 1.0, -1.0]
_ELEMENTS = {
    np.float64: st.one_of(
        _float_neighbours(np.float64),
        st.sampled_from([*_SPECIALS, 5e-324, -5e-324, 2.2e-308, 1e300, -1e300, 1.7e308]),
        st.floats(allow_nan=False, allow_infinity=False),
        st.floats(-10, 10),
    ),
    np.float32: st.one_of(
        _float_neighbours(np.float32),
        st.sampled_from([*_SPECIALS, 1e-45, -1e-45, 1.2e-38, 3.4e38, -3.4e38]).map(np.float32),
        st.floats(allow_nan=False, allow_infinity=False, width=32),
    ),
    np.float16: st.one_of(
        st.sampled_from([0.0, -0.0, 6e-8, -6e-8, 6.1e-5, 65504.0, -65504.0]),
        st.floats(allow_nan=False, allow_infinity=False, width=16),
    ),
    np.int8: st.integers(-128, 127),
    np.int32: st.integers(-(2**31), 2**31 - 1),
    np.int64: st.integers(-(2**63), 2**63 - 1),
}


@st.composite
def adversarial_arrays(draw) -> np.ndarray:
    dtype = draw(st.sampled_from(sorted(_ELEMENTS, key=str)))
    return draw(hnp.arrays(dtype, st.integers(1, 60), elements=_ELEMENTS[dtype]))


@settings(max_examples=examples(60), deadline=None)
@given(values=adversarial_arrays(), max_bins=st.sampled_from([None, None, 3, 50]))
def test_adversarial_values_give_torchs_default_bins_histogram(values, max_bins):
    program = [("h", values, {"max_bins": max_bins})]
    with tempfile.TemporaryDirectory() as theirs, tempfile.TemporaryDirectory() as ours:
        with np.errstate(all="ignore"):  # torch's numpy calls, on huge values
            try:
                run(TorchWriter, theirs, program)
            except ValueError:  # "The histogram is empty": no value inside the edges
                assert (np.abs(values.astype(np.float64)) > EDGES[-1]).all()
                return
        run(SummaryWriter, ours, program)
        assert_same_raw(raw_histograms(theirs), raw_histograms(ours))


def test_nan_and_inf_are_left_out_with_a_warning_and_the_rest_is_torchs(tmp_path):
    values = WIDE.copy()
    values[:3] = [np.nan, np.inf, -np.inf]
    tag = "h/non_finite"  # a tag of its own: the warning comes once per tag in a process
    with pytest.warns(RuntimeWarning, match="left out 3 NaN or infinite"):
        run(SummaryWriter, str(tmp_path / "ours"), [(tag, values, {})])
    run(TorchWriter, str(tmp_path / "theirs"), [(tag, values[3:], {})])
    assert_same_raw(raw_histograms(str(tmp_path / "theirs")), raw_histograms(str(tmp_path / "ours")))


def test_values_changed_after_the_call_change_nothing(tmp_path):
    """The snapshot (recycled memory, the values' own dtype) is what is written."""
    values = RNG.normal(size=100_000).astype(np.float32)  # large enough for the snapshot pool
    original = values.copy()
    with SummaryWriter(str(tmp_path / "ours")) as writer:
        for step in range(3):
            writer.add_histogram("h", values, step)
            values *= 1000.0
    values = original
    with TorchWriter(str(tmp_path / "theirs")) as writer:
        for step in range(3):
            writer.add_histogram("h", values, step)
            values = values * np.float32(1000.0)
    assert_same_raw(raw_histograms(str(tmp_path / "theirs")), raw_histograms(str(tmp_path / "ours")))
