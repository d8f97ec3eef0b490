"""Hypothesis strategies of hostile values for the entry points' fuzz suites: tags and
strings that cannot be written (lone surrogates, NUL, 100k characters, not str), steps
outside int64 or of odd types, and arrays of every dtype and layout a user can hand over
(NaN/Inf, empty, bounded-huge, object/complex/structured/string/bool/long double, torch
tensors in bfloat16/float16/int8 or requiring grad, non-contiguous and negative strides,
generators, objects whose `__array__` raises)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

# The hostile values include torch tensors: a suite drawing from them needs torch.
pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")

import torch
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

SURROGATE = "bad\ud800"
LONG_TAG = "x" * 100_000


def examples(count: int) -> int:
    """`count` examples in the CI profile, scaled with the profile's own number (so the
    long profile, SUMMARYLIB_HYPOTHESIS=long, runs 20 times as many)."""
    return max(1, count * settings.default.max_examples // 100)


class RaisingArray:
    """A framework object whose own conversion to numpy fails."""

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        raise KeyError("device lost")

    def __repr__(self) -> str:
        return "RaisingArray()"


lone_surrogates = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)

tags = st.one_of(
    st.text(min_size=1, max_size=12),
    st.sampled_from(["loss", "a/b", "ünï/cødé", "..", "a\x00b", LONG_TAG, "é" * 200, SURROGATE, ""]),
    st.builds(lambda head, bad: head + bad, st.text(max_size=4), lone_surrogates),
    st.sampled_from([None, 3, b"tag", 1.5]),
)

# Descriptions, display names, text: mostly writable strings, some not, some not strings.
strings = st.one_of(
    st.none(),
    st.text(max_size=30),
    st.sampled_from(["a\x00b", SURROGATE, "x" * 10_000]),
    st.builds(lambda head, bad: head + bad, st.text(max_size=4), lone_surrogates),
    st.sampled_from([3, b"bytes", 1.5]),
)

steps = st.one_of(
    st.none(),
    st.integers(-(2**65), 2**65),
    st.sampled_from(
        [
            np.int64(5),
            np.uint64(2**63),
            np.longdouble(3),
            np.longdouble(2.5),
            1.5,
            2.0,
            float("nan"),
            "3",
            True,
            np.array([1, 2]),
        ]
    ),
    st.builds(lambda n: torch.tensor(n), st.integers(-5, 5)),
    st.just(None).map(lambda _: torch.ones(2, requires_grad=True)),
)

NUMERIC_DTYPES = [
    np.float16,
    np.float32,
    np.float64,
    np.int8,
    np.uint8,
    np.int32,
    np.int64,
    np.uint64,
    np.bool_,
    np.complex64,
]


def _torch(array: np.ndarray) -> Any:
    if array.dtype in (np.uint64, np.complex64) or (array.dtype.kind == "b" and array.ndim == 0):
        return torch.from_numpy(np.ascontiguousarray(array).astype(np.float32))
    return torch.from_numpy(np.ascontiguousarray(array))


def _float_tensor(array: np.ndarray, **options: Any) -> Any:
    with np.errstate(all="ignore"):
        return torch.tensor(np.real(array).astype(np.float32), **options)


def _int8(array: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.asarray(np.nan_to_num(np.real(array))).astype(np.int8)


# How a value reaches the op: numpy in several layouts, framework tensors, Python
# containers, and what should be refused.
LAYOUTS: dict[str, Callable[[np.ndarray], Any]] = {
    "as is": lambda a: a,
    "reversed": lambda a: a[::-1] if a.ndim else a,
    "strided": lambda a: np.repeat(a, 2, axis=0)[::2] if a.ndim else a,
    "fortran": np.asfortranarray,
    "list": lambda a: a.tolist(),
    "torch": _torch,
    "torch bfloat16": lambda a: _float_tensor(a).to(torch.bfloat16),
    "torch float16": lambda a: _float_tensor(a).to(torch.float16),
    "torch int8": lambda a: torch.from_numpy(_int8(a)),
    "torch requires grad": lambda a: _float_tensor(a, requires_grad=True),
    "long double": lambda a: np.real(a).astype(np.longdouble),
    "generator": lambda a: (x for x in a.reshape(-1).tolist()),
    "raising __array__": lambda a: RaisingArray(),
    "object": lambda a: a.astype(object),
    "structured": lambda a: np.zeros(a.shape, dtype=[("a", "i4"), ("b", "f8")]),
    "strings": lambda a: a.astype(str),
}


def laid_out(arrays: st.SearchStrategy[np.ndarray]) -> st.SearchStrategy[Any]:
    """`arrays`, each handed over in one of LAYOUTS."""
    return st.tuples(arrays, st.sampled_from(sorted(LAYOUTS))).map(lambda pair: LAYOUTS[pair[1]](pair[0]))


def numeric_arrays(shape: Any, dtypes: list = NUMERIC_DTYPES) -> st.SearchStrategy[np.ndarray]:
    """Arrays of `shape` (a tuple or a strategy of tuples) and one of `dtypes`, with every
    value the dtype has (NaN, ±Inf, extremes)."""
    return hnp.arrays(st.sampled_from(dtypes), shape)


any_shape = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5)

# Arrays no op should take whole: bounded but large, or empty with large dimensions.
huge_arrays = st.sampled_from(["flat", "empty", "wide image"]).map(
    lambda kind: {
        "flat": lambda: np.zeros(1 << 20, np.float32),
        "empty": lambda: np.zeros((0, 1 << 20), np.float32),
        "wide image": lambda: np.zeros((1, 1, 1 << 16, 1), np.uint8),
    }[kind]()
)


def hostile(shape: Any, dtypes: list = NUMERIC_DTYPES) -> st.SearchStrategy[Any]:
    """Values of an array argument: of `shape` in any layout, of any shape, or huge."""
    return st.one_of(
        laid_out(numeric_arrays(shape, dtypes)),
        laid_out(numeric_arrays(any_shape)),
        huge_arrays,
        st.sampled_from([None, 1.0, "text", [[1.0], [1.0, 2.0]]]),
    )
