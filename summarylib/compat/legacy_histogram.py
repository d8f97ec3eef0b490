"""The TF 1.x `histo` encoding (HistogramProto), shared by compat.v1 and compat.contrib.

TF 1.x counts values into fixed exponential buckets: limits growing by 10% from 1e-12 to
1e20, mirrored for negative values, with 0 and ±DBL_MAX, about 1,550 in all. A value goes
to the first bucket whose limit is greater than it. Only non-empty buckets are written;
a run of empty buckets collapses into one empty bucket at the run's last limit.
"""

from __future__ import annotations

import sys

import numpy as np

from summarylib.proto import histogram_pb2

_DBL_MAX = sys.float_info.max


def _default_bucket_limits() -> np.ndarray:
    positive = []
    limit = 1.0e-12
    while limit < 1.0e20:
        positive.append(limit)
        limit *= 1.1
    positive.append(_DBL_MAX)
    return np.array([-v for v in reversed(positive)] + [0.0] + positive, dtype=np.float64)


BUCKET_LIMITS = _default_bucket_limits()


def histogram_proto(values: np.ndarray) -> histogram_pb2.HistogramProto:
    """The HistogramProto TF 1.x writes for finite float64 `values` (any shape)."""
    values = values.reshape(-1)
    proto = histogram_pb2.HistogramProto()
    if values.size == 0:
        proto.min, proto.max = _DBL_MAX, -_DBL_MAX  # TF's empty histogram
        proto.bucket_limit.append(_DBL_MAX)
        proto.bucket.append(0.0)
        return proto
    proto.min = float(values.min())
    proto.max = float(values.max())
    proto.num = float(values.size)
    proto.sum, proto.sum_squares = ordered_sums(values)
    counts = bucket_counts(values).astype(np.float64)
    empty = counts == 0
    ends_empty_run = empty & np.append(~empty[1:], True)
    written = ~empty | ends_empty_run
    proto.bucket_limit.extend(BUCKET_LIMITS[written].tolist())
    proto.bucket.extend(counts[written].tolist())
    return proto


_CHUNK = 16384  # values handled at a time: temporaries stay in cache, none page-faults


def ordered_sums(values: np.ndarray) -> tuple[float, float]:
    """The sum and the sum of squares of float64 `values`, added one by one from 0.0 in
    order, as TF adds them (numpy's `sum` is pairwise: its last bits differ)."""
    buffer = np.empty(min(values.size, _CHUNK) + 1)
    total = squares = 0.0
    with np.errstate(over="ignore", invalid="ignore"):  # past float64's range: inf, as TF
        for start in range(0, values.size, _CHUNK):
            chunk = values[start : start + _CHUNK]
            running = buffer[: chunk.size + 1]
            running[0] = total
            running[1:] = chunk
            total = float(np.cumsum(running, out=running)[-1])
            running[0] = squares
            np.multiply(chunk, chunk, out=running[1:])
            squares = float(np.cumsum(running, out=running)[-1])
    return total, squares


_PREVIOUS_LIMITS = np.append(-np.inf, BUCKET_LIMITS[:-1])  # limit i - 1 at i, one gather less
_CELL_SHIFT = 48  # a cell: the float64s sharing sign, exponent and 4 leading mantissa bits
_CELL_OFFSET = 1 << 15  # the signed cell numbers made non-negative (take's fast path)


def _cell_guesses() -> np.ndarray:
    """For each cell, the bucket of its first value, kept off the two outermost limits
    (so both neighbours of a guess exist). A cell spans at most a factor 1 + 1/16 of
    magnitudes, less than the 1.1 between limits: at most one limit falls inside it, so a
    guess is the bucket or next to it."""
    cells = np.arange(-_CELL_OFFSET, _CELL_OFFSET, dtype=np.int64)
    firsts = (cells << _CELL_SHIFT).view(np.float64)  # the cells of NaN and ±inf included
    with np.errstate(invalid="ignore"):
        guesses = np.searchsorted(BUCKET_LIMITS, firsts, side="right")
    return np.clip(guesses, 1, BUCKET_LIMITS.size - 2)


_GUESSES = _cell_guesses()


def bucket_indices(values: np.ndarray) -> np.ndarray:
    """The bucket of each finite float64 value: the first limit greater than it (the last
    bucket takes the rest), `np.searchsorted(BUCKET_LIMITS, values, "right")` capped at
    the last bucket, in O(n) without a search.

    A value's top bits (sign, exponent, 4 mantissa bits) are a coarse logarithm: a table
    of 65,536 cells gives its bucket or a neighbour, and one comparison with the exact
    limit on each side moves it to its bucket. Cheaper than a logarithm of each value,
    and exact on every float64 (the limits were built by repeated multiplication: only
    the exact ones can be compared with)."""
    cells = values.view(np.int64) >> _CELL_SHIFT
    cells += _CELL_OFFSET
    guess = np.take(_GUESSES, cells)
    moves = (np.take(BUCKET_LIMITS, guess) <= values).view(np.int8)
    moves -= (np.take(_PREVIOUS_LIMITS, guess) > values).view(np.int8)
    guess += moves
    return guess


def bucket_counts(values: np.ndarray) -> np.ndarray:
    """Values of finite `values` (any order) per bucket: a value counts in the first
    bucket whose limit is greater than it (the last bucket takes the rest), so bucket i
    holds the values in [limit[i-1], limit[i]). Counted `_CHUNK` values at a time."""
    counts = np.zeros(BUCKET_LIMITS.size, dtype=np.intp)
    for start in range(0, values.size, _CHUNK):
        counts += np.bincount(bucket_indices(values[start : start + _CHUNK]), minlength=counts.size)
    return counts
