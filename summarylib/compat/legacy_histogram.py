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
    running = np.cumsum(values)  # in order, as TF adds them (numpy's sum is pairwise)
    proto.sum = float(running[-1])
    np.multiply(values, values, out=running)
    proto.sum_squares = float(np.cumsum(running, out=running)[-1])
    counts = bucket_counts(values).astype(np.float64)
    empty = counts == 0
    ends_empty_run = empty & np.append(~empty[1:], True)
    written = ~empty | ends_empty_run
    proto.bucket_limit.extend(BUCKET_LIMITS[written].tolist())
    proto.bucket.extend(counts[written].tolist())
    return proto


_ZERO = BUCKET_LIMITS.size // 2  # the index of the limit 0
_POSITIVE = _ZERO - 1  # positive limits below DBL_MAX: 1e-12 * 1.1**j for j < _POSITIVE
_LAST = BUCKET_LIMITS.size - 1
_PREVIOUS_LIMITS = np.append(-np.inf, BUCKET_LIMITS[:-1])  # limit i - 1 at i, one gather less


def bucket_indices(values: np.ndarray) -> np.ndarray:
    """The bucket of each finite float64 value: the first limit greater than it (the last
    bucket takes the rest), `np.searchsorted(BUCKET_LIMITS, values, "right")` capped at
    the last bucket, in O(n) without a search.

    The positive limits are 1e-12 * 1.1**j, so `j = floor(log(|x| / 1e-12) / log(1.1))`
    is the last one at most |x|: x > 0 goes to the limit after it, x < 0 to -limit[j].
    Only values within rounding of a limit can be placed one off (the limits were built
    by repeated multiplication, and the logarithm here is float32's, ten times faster):
    one comparison with the exact limit on each side moves those to their bucket."""
    with np.errstate(over="ignore"):  # past float32's range: inf, the top bucket's guess
        signed = values.astype(np.float32)
    steps = np.abs(signed)
    with np.errstate(over="ignore", divide="ignore"):  # log(0) = -inf: the bottom guess
        steps *= np.float32(1e12)
        np.log(steps, out=steps)
    steps *= np.float32(1 / np.log(1.1))
    np.floor(steps, out=steps)
    # |x| < 1e-12 is j = -1; the guess stays off the outermost limits, the fix-up reaches them
    np.clip(steps, -1, _POSITIVE - 2, out=steps)
    steps += np.float32(1.5)
    # x >= 0: _ZERO + 2 + j; x < 0: _ZERO - 1 - j (-0.0 lands on 0 and is moved up below)
    np.copysign(steps, signed, out=steps)
    steps += np.float32(_ZERO + 0.5)
    guess = steps.astype(np.intp)
    up = np.take(BUCKET_LIMITS, guess) <= values
    moves = up.view(np.int8)
    moves -= (np.take(_PREVIOUS_LIMITS, guess) > values).view(np.int8)
    guess += moves
    return guess


def bucket_counts(values: np.ndarray) -> np.ndarray:
    """Values of finite `values` (any order) per bucket: a value counts in the first
    bucket whose limit is greater than it (the last bucket takes the rest), so bucket i
    holds the values in [limit[i-1], limit[i])."""
    return np.bincount(bucket_indices(values), minlength=BUCKET_LIMITS.size)
