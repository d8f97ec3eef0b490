"""The compiled histogram counts (numba, the [fast] extra) are numpy's passes' counts.

sl.histogram's equal-width buckets: the same rows as numpy's path on adversarial values
(on the edges TensorFlow's arithmetic computes, next to them, at both ends of the range)
of both float widths, for every bucket count.

compat.torch's default-bins scan finds what numpy's passes find: the same counts
(np.histogram's, of torch's default_bins edges), the same min and max, numpy's pairwise
sum of the values as float64 bit for bit, and the sum of squares to a relative 1e-13, on
adversarial values of every width, at the sizes where numpy's pairwise sum changes shape
(under 8, 8 to 128, halves) and on a long array.

`SUMMARYLIB_NUMBA=0` keeps every count on numpy's path.

The compiled loops serve snapshots of COMPILED_FROM values or more; tests that draw small
arrays lower that bound to 1 (the loops are the same at every size), and raise it past
every size for numpy's path.
"""

from __future__ import annotations

import ast
import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

pytest.importorskip("numba", reason="numba is not installed (the fast extra)")

from summarylib.compat.torch import compiled_scan
from summarylib.compat.torch.default_bins import EDGES, numpy_scan, scan
from summarylib.ops.histogram import compiled
from summarylib.ops.histogram.encoding import bucketize
from tests.hostile_values import examples

SQUARES_RTOL = 1e-13  # both are pairwise sums of the squares, in different runs


SHARED_FROM = 2048  # in these tests: counts of 2,048 values or more shared with the helper thread


@contextmanager
def compiled_from(size: int) -> Iterator[None]:
    """Counts of `size` values or more compiled (1: all of them; sys.maxsize: none), and
    from SHARED_FROM values on shared with the helper thread (see shared_work)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compiled, "COMPILED_FROM", size)
        patch.setattr(compiled, "SHARED_FROM", SHARED_FROM)
        assert compiled_scan.kernel() is not None
        yield


def compiled_at_every_size() -> contextlib.AbstractContextManager[None]:
    return compiled_from(1)


def rows_both_ways(values: np.ndarray, buckets: int) -> tuple[np.ndarray, np.ndarray]:
    """sl.histogram's rows of `values` from the compiled loop and from numpy's passes."""
    with compiled_from(1):
        from_loop = bucketize("h", values, buckets)
    with compiled_from(sys.maxsize):
        passes = bucketize("h", values, buckets)
    return from_loop, passes


@st.composite
def uniform_adversarial(draw) -> tuple[np.ndarray, int]:
    """Values of either width, some on the inner edges TensorFlow's arithmetic computes
    from the range and next to them, and a bucket count."""
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    buckets = draw(st.sampled_from([1, 2, 3, 7, 30, 1000, 65_535]))
    bits = 8 * np.dtype(dtype).itemsize
    ends = draw(hnp.arrays(dtype, 2, elements=st.floats(-(2.0**100), 2.0**100, width=bits)))
    low, high = float(ends.min()), float(ends.max())
    width = (high - low) / buckets
    edges = np.array([low + i * width for i in range(min(buckets, 200) + 1)], dtype).clip(low, high)
    near = np.concatenate([edges, np.nextafter(edges, dtype(np.inf)), np.nextafter(edges, dtype(-np.inf))])
    near = near[(near >= ends.min()) & (near <= ends.max())]
    inside = draw(hnp.arrays(dtype, st.integers(0, 200), elements=st.floats(low, high, width=bits)))
    return np.concatenate([ends, near, inside]).astype(dtype), buckets


@settings(max_examples=examples(80), deadline=None)
@given(case=uniform_adversarial())
def test_equal_width_buckets_count_as_numpys_passes(case):
    values, buckets = case
    from_loop, passes = rows_both_ways(values, buckets)
    np.testing.assert_array_equal(from_loop, passes)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_equal_width_buckets_of_a_million_values(dtype):
    """At the default bound, with a narrow cluster (every counter busy in turn) and the
    range's two ends, and the bucket count above which numpy counts."""
    rng = np.random.default_rng(11)
    values = np.concatenate([rng.standard_normal(500_000), 3.0 + 1e-6 * rng.standard_normal(500_000)])
    values = values.astype(dtype)
    for buckets in (30, compiled.MOST_BUCKETS - 1, compiled.MOST_BUCKETS):
        with compiled_from(sys.maxsize):
            passes = bucketize("h", values, buckets)
        from_loop = bucketize("h", values, buckets)
        np.testing.assert_array_equal(from_loop, passes)
        assert from_loop[:, 2].sum() == values.size


@pytest.mark.parametrize("size", [SHARED_FROM - 1, SHARED_FROM, 5001])
def test_equal_width_buckets_shared_with_the_helper_thread(size):
    """Pieces of one count on two threads: the same rows as numpy's passes."""
    values = np.random.default_rng(size).standard_normal(size)
    values[::97] = values.min()  # many values at the left end, some at the right
    values[::89] = values.max()
    for buckets in (1, 30, 4096):
        from_loop, passes = rows_both_ways(values, buckets)
        np.testing.assert_array_equal(from_loop, passes)


def assert_same_scan(values: np.ndarray) -> None:
    """scan (compiled) against numpy_scan, and both counts against np.histogram."""
    with np.errstate(over="ignore", invalid="ignore"):
        from_loop, passes = scan(values), numpy_scan(values)
    np.testing.assert_array_equal(from_loop.counts, passes.counts)
    finite = values[np.isfinite(values)].astype(np.float64)
    np.testing.assert_array_equal(from_loop.counts, np.histogram(finite, EDGES)[0])
    if np.isnan(passes.total):  # a NaN's sign is no one's: the writer leaves NaN out and scans again
        assert np.isnan(from_loop.total)
    else:
        assert from_loop.total == passes.total and np.signbit(from_loop.total) == np.signbit(passes.total)
    np.testing.assert_allclose(from_loop.squares, passes.squares, rtol=SQUARES_RTOL)
    np.testing.assert_equal((from_loop.low, from_loop.high), (passes.low, passes.high))
    assert type(from_loop.low) is type(passes.low) and type(from_loop.high) is type(passes.high)


def _near_edges(dtype) -> st.SearchStrategy:
    """Values of `dtype` on torch's edges (as `dtype` rounds them), next to them and
    beyond the outer ones, with the special values of the width."""
    with np.errstate(over="ignore"):
        edges = EDGES.astype(dtype)
    edges = edges[np.isfinite(edges)]
    edge = st.sampled_from(edges.tolist()).map(dtype)
    tiny, huge = np.finfo(dtype).smallest_subnormal, np.finfo(dtype).max
    return st.one_of(
        edge,
        edge.map(lambda v: np.nextafter(v, dtype(np.inf))),
        edge.map(lambda v: np.nextafter(v, dtype(-np.inf))),
        st.sampled_from([0.0, -0.0, tiny, -tiny, huge, -huge, 1e20, -1e20]).map(dtype),
        st.floats(allow_nan=False, allow_infinity=False, width=8 * np.dtype(dtype).itemsize),
    )


@settings(max_examples=examples(80), deadline=None)
@given(
    values=st.sampled_from([np.float32, np.float64]).flatmap(
        lambda dtype: hnp.arrays(dtype, st.integers(1, 300), elements=_near_edges(dtype))
    )
)
def test_adversarial_values_scan_as_numpys_passes(values):
    with compiled_at_every_size():
        assert_same_scan(values)


@pytest.mark.parametrize("size", [1, 7, 8, 9, 127, 128, 129, 136, 1000, 2047, 2048, 2049, 65_537, 300_001])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int64])
def test_every_shape_of_numpys_pairwise_sum(size, dtype):
    rng = np.random.default_rng(size)
    values = rng.standard_normal(size) * 10.0 ** rng.uniform(-14, 22, size)
    if np.dtype(dtype).kind == "f":
        with np.errstate(over="ignore"):
            values = values.astype(dtype)
        values[~np.isfinite(values)] = 1.0
    else:
        values = (values % 2**40).astype(dtype) - 2**39
    with compiled_at_every_size():
        assert_same_scan(values)


def test_a_narrow_gradient_and_non_finite_values_at_the_default_bound():
    """A million values in a few buckets (every counter busy in turn), and NaN and ±Inf,
    which numpy's min and max report and no bucket counts."""
    rng = np.random.default_rng(7)
    narrow = (1.0 + 1e-4 * rng.standard_normal(1_000_000)).astype(np.float32)
    assert narrow.size >= compiled.COMPILED_FROM
    assert_same_scan(narrow)
    wide = rng.standard_normal(compiled.COMPILED_FROM) * 1e10
    wide[[5, 700, 4000]] = [np.inf, -np.inf, np.nan]
    assert_same_scan(wide)
    assert np.isnan(scan(wide).low)


def test_summarylib_numba_0_keeps_numpys_path():
    probe = (
        "import sys; from summarylib.compat.torch import compiled_scan; "
        "print(compiled_scan.kernel() is None, 'numba' in sys.modules)"
    )
    for setting, expected in (("0", "True False"), ("1", "False True")):
        found = subprocess.run(
            [sys.executable, "-c", probe],
            env={**os.environ, "SUMMARYLIB_NUMBA": setting},
            capture_output=True,
            text=True,
            check=True,
        )
        assert found.stdout.split() == expected.split(), found.stderr


FALLBACK = """
import sys, warnings
import numpy as np
{setup}
from summarylib.compat.torch.default_bins import EDGES, scan
from summarylib.ops.histogram.encoding import bucketize
values = np.random.default_rng(3).standard_normal(100_000)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    counts = scan(values).counts
    rows = bucketize("h", values, 30)
assert (counts == np.histogram(values, EDGES)[0]).all()
assert rows[:, 2].sum() == values.size
print([str(w.message) for w in caught])
"""


def run_fallback(setup: str, tmp_path, path: str = "") -> list[str]:
    """The warnings of a fresh interpreter that counts 100,000 values after `setup`."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [path, os.getcwd()]))}
    found = subprocess.run(
        [sys.executable, "-c", FALLBACK.format(setup=setup)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert found.returncode == 0, found.stderr
    return ast.literal_eval(found.stdout.strip())


def test_without_numba_numpy_counts_silently(tmp_path):
    assert run_fallback("sys.modules['numba'] = None  # as if not installed", tmp_path) == []


def test_a_numba_that_cannot_be_imported_is_warned_about_and_numpy_counts(tmp_path):
    broken = tmp_path / "site" / "numba"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise ImportError('Numba needs NumPy 2.3 or less')\n")
    warned = run_fallback("", tmp_path, str(tmp_path / "site"))
    assert len(warned) == 1 and "numba is installed but cannot be imported" in warned[0], warned
    assert "Numba needs NumPy 2.3 or less" in warned[0]


FORKED = """
import os, sys
import numpy as np
from summarylib.ops.histogram import compiled
from summarylib.ops.histogram.encoding import bucketize
values = np.random.default_rng(5).standard_normal(compiled.SHARED_FROM)
expected = bucketize("h", values, 30)  # the parent's helper thread is started here
pid = os.fork()
if pid == 0:
    ok = np.array_equal(bucketize("h", values, 30), expected)  # the child's own helper
    os._exit(0 if ok else 1)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_shares_its_counts_with_a_helper_of_its_own():
    """The parent's helper thread is not in a forked child: a count there must neither
    wait for it nor leave its pieces queued to it."""
    found = subprocess.run([sys.executable, "-c", FORKED], capture_output=True, text=True, timeout=120)
    assert found.returncode == 0, found.stderr


def test_a_piece_that_raises_raises_on_the_asking_thread_after_the_others():
    from summarylib.ops.histogram.shared_work import shared

    ran = []

    def piece(index: int) -> int:
        ran.append(index)
        if index == 3:
            raise ValueError("piece 3")
        return index

    with pytest.raises(ValueError, match="piece 3"):
        shared([lambda index=index: piece(index) for index in range(8)])
    assert sorted(ran) == list(range(8))
    assert shared([lambda index=index: index * 2 for index in range(8)]) == [2 * i for i in range(8)]


def test_where_numba_finds_no_writable_cache_numpy_counts_with_one_warning(tmp_path):
    """A read-only install and home: numba raises on importing a loop it cannot cache."""
    import shutil

    package = tmp_path / "site" / "summarylib"
    shutil.copytree(
        os.path.join(os.path.dirname(compiled.__file__), "..", ".."),
        package,
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    for loops in ("ops/histogram", "compat/torch"):  # no in-tree cache: a file where it would go
        (package / loops / "__pycache__").write_text("")
    env = {**os.environ, "XDG_CACHE_HOME": "/proc/no-cache", "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("NUMBA_CACHE_DIR", None)
    env["PYTHONPATH"] = str(tmp_path / "site")
    found = subprocess.run(
        [sys.executable, "-c", FALLBACK.format(setup="")],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert found.returncode == 0, found.stderr
    warned = ast.literal_eval(found.stdout.strip())
    assert len(warned) == 2 and all("numba cannot prepare its histogram loop" in w for w in warned), warned


DISPATCH = """
import numpy as np
from summarylib.compat.torch import compiled_scan
from summarylib.compat.torch.default_bins import scan
from summarylib.ops.histogram import compiled
from summarylib.ops.histogram.encoding import bucketize
few = np.random.default_rng(1).standard_normal(compiled.COMPILED_FROM - 1).astype(np.float32)
scan(few), bucketize("h", few, 30)
uniform = compiled.compiled_loop("summarylib.ops.histogram.uniform_loop", "count_uniform")
before = (len(compiled_scan.kernel().signatures), len(uniform.signatures))
many = np.random.default_rng(1).standard_normal(compiled.COMPILED_FROM).astype(np.float32)
scan(many), bucketize("h", many, 30)
print(before, (len(compiled_scan.kernel().signatures), len(uniform.signatures)))
"""


def test_the_loops_serve_from_compiled_from_values_on_and_not_below():
    """The equality tests above compare the two paths; this one checks that the dispatch
    takes the compiled loops at all: in a fresh process, nothing compiled for fewer than
    COMPILED_FROM values, both loops compiled (called) at that size."""
    found = subprocess.run([sys.executable, "-c", DISPATCH], capture_output=True, text=True, check=True)
    assert found.stdout.split() == ["(0,", "0)", "(1,", "1)"], found.stderr
