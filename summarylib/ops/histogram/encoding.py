"""The histogram op's encoding: a `[k, 3]` float64 tensor for TensorBoard's histograms plugin.

Each row is one bucket, `(left edge, right edge, count)`: `k` equal-width buckets from the
smallest value to the largest, each closed on the left and open on the right except the last,
which is closed on both ends. This is what TensorFlow 2.21's `tf.summary.histogram` writes
(TensorBoard's `histogram/summary_v2.py`), value for value:

- values are taken as float64 (bool as 0 and 1, integers rounded as a float64 cast rounds);
  Python floats (a float, or lists and tuples of Python numbers holding one) are first
  rounded to float32, because TensorFlow converts them to a float32 tensor;
- a value's bucket is `floor((x - min) / ((max - min) / k))`, clamped to `k - 1`; the edges
  are `min + i * ((max - min) / k)` for `0 < i < k`, with `min` and `max` at the ends;
- no values: `k` rows of zeros; all values equal to `v`: `k` rows `[v, v, 0]` with the whole
  count in the last row; `buckets=0`: shape `[0, 3]`;
- the metadata names the `histograms` plugin; its content, `HistogramPluginData{version: 0}`,
  serializes to no bytes.

Where TensorFlow is broken, summarylib does what a user expects instead:

- NaN and ±Inf are left out (with a RuntimeWarning once per tag saying how many, raised on
  the caller's thread at the user's line: see summarylib.writer.context.warn_user);
  TensorFlow writes NaN or infinite edges and loses the counts, and the dashboards break.
- A range too wide for float64 (`max - min` overflows, e.g. -1e308 and 1e308): TensorFlow
  writes infinite edges and drops values. A range so narrow that `(max - min) / k` is not a
  normal float64 (below 2.2e-308; only values that close to 0 can be that close together):
  TensorFlow flushes subnormals to zero, so it calls such values all equal (or divides by a
  zero width and drops them). summarylib buckets both at a power-of-two scale, exactly, and
  writes finite edges.
- Python floats beyond float32's range, which TensorFlow refuses, are kept as float64.
- A negative or non-integer `buckets` is a ValueError (TensorFlow takes a negative count as
  0), and so is one beyond int32, which TensorFlow cannot take either.

Counts are exact integers for any number of values (int64 counting, float64 in the tensor;
TensorFlow's float64 sums are exact up to 2**53 too).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from summarylib.checks import optional_int_at_least
from summarylib.format.tensor import make_tensor_proto
from summarylib.ops.convert import as_real_array, snapshot
from summarylib.ops.errors import check_description, check_name, op_error
from summarylib.ops.histogram import compiled
from summarylib.ops.summary import summary_bytes
from summarylib.proto import summary_pb2, tensor_pb2
from summarylib.writer.context import warn_user_once

PLUGIN_NAME = "histograms"
DEFAULT_BUCKETS = 30
# TensorFlow takes the bucket count as an int32.
MAX_BUCKETS = 2**31 - 1

# Values bucketed per numpy call: the float offsets and int64 indices of one block stay in
# the CPU cache, which makes bucketing 1,000,000 values about twice as fast as in one pass.
_BLOCK = 1 << 16
_SMALLEST_NORMAL = float(np.finfo(np.float64).tiny)
_FLOAT32_TINY = float(np.finfo(np.float32).tiny)
_FLOAT32_MAX = float(np.finfo(np.float32).max)
# A float32 range at least this many times float32's smallest normal number has normal
# bucket widths for any bucket count up to MAX_BUCKETS.
_FLOAT32_SPAN_MARGIN = 2.0**32
# Bucket counts up to which float32 offsets of the largest value stay below k + 1 (their
# rounding is a few parts in 2**24 of k), so it lands in the last bucket.
_FLOAT32_MAX_BUCKETS = 1 << 16
# Scales that make a degenerate range bucketable (see _scale_for).
_WIDE_SCALE = 0.5
_NARROW_SCALE = 2.0**1000


def create_metadata(description: str | None = None) -> summary_pb2.SummaryMetadata:
    """The histograms plugin's metadata, with the user's description if any.

    The plugin's content is `HistogramPluginData{version: 0}`, which serializes to no bytes.
    """
    metadata = summary_pb2.SummaryMetadata(summary_description=description or "")
    metadata.plugin_data.plugin_name = PLUGIN_NAME
    return metadata


def _check_buckets(tag: str, buckets: Any) -> int:
    count = optional_int_at_least("histogram", tag, "buckets", buckets, least=0)
    if count is None:
        return DEFAULT_BUCKETS
    if count > MAX_BUCKETS:
        raise op_error(
            ValueError, "histogram", tag, "buckets", f"expected an int in [0, {MAX_BUCKETS}], got {count}"
        )
    return count


def _python_numbers(data: Any) -> bool:
    """Whether `data` is a Python number or nested lists and tuples of them."""
    if isinstance(data, (list, tuple)):
        return all(_python_numbers(element) for element in data)
    return type(data) in (float, int, bool)


def _as_tensorflow_converts(array: np.ndarray, data: Any) -> np.ndarray:
    """`array` in the dtype TensorFlow gives `data`: float32 for Python floats that fit."""
    if array.dtype != np.float64 or not isinstance(data, (float, list, tuple)) or not _python_numbers(data):
        return array
    with np.errstate(over="ignore"):
        narrowed = array.astype(np.float32)
    return narrowed if np.array_equal(np.isinf(narrowed), np.isinf(array)) else array


def prepare(tag: str, data: Any, buckets: Any, description: Any) -> tuple[str, np.ndarray, int, str | None]:
    """Check the arguments and snapshot `data`, on the caller's thread.

    `data` is any array-like of real numbers or bools, of any shape (it is flattened).
    Returns the arguments of `summary`.
    """
    bucket_count = _check_buckets(tag, buckets)
    check_description("histogram", tag, description)
    array = as_real_array("histogram", tag, "data", data)
    return tag, snapshot(_as_tensorflow_converts(array, data), data), bucket_count, description


def finite_values(tag: str, values: np.ndarray) -> np.ndarray:
    """`values` without NaN and ±Inf, warning the first time a tag has any (TensorBoard
    cannot show them); the warning reaches the caller's thread, pointing at the user's
    line (see summarylib.writer.context.warn_user). Shared with the legacy histograms of
    compat.v1 and contrib."""
    kept = values[np.isfinite(values)]
    if kept.size != values.size:
        warn_user_once(
            "histogram",
            tag,
            f"summarylib.histogram: tag {tag!r:.200}: left out {values.size - kept.size} NaN or infinite "
            f"value(s) of {values.size}; TensorBoard cannot show them (warned once per tag)",
        )
    return kept


def _scale_for(width: float) -> float:
    """A power of two at which bucketing the range is exact and finite: 1 normally, 1/2 when
    `max - min` overflows, 2**1000 when the bucket width is not a normal float64 (then all
    values lie within 2**-938 of 0, so scaling keeps them finite and exact)."""
    if math.isinf(width):
        return _WIDE_SCALE
    if width < _SMALLEST_NORMAL:
        return _NARROW_SCALE
    return 1.0


def _bucket_counts(
    values: np.ndarray, low: float, width: float, scale: float, k: int, arithmetic: type = np.float64
) -> np.ndarray:
    """int64 counts of `values` in the `k` buckets `[low + i*width, low + (i+1)*width)` (at
    `scale`), the last closed, computed in `arithmetic` (float64, TensorFlow's; see
    `bucketize` for float32): in one compiled loop where numba serves (see `compiled`),
    else block by block, so numpy's temporaries stay in the cache."""
    # The compiled loop's float64 arithmetic is TensorFlow's: it serves float32's too.
    counts = compiled.uniform_counts(values, low, width, k) if scale == 1.0 else None
    if counts is None:
        counts = np.zeros(k + 1, np.int64)
        block = min(_BLOCK, values.size)
        offsets: np.ndarray = np.empty(block, arithmetic)
        indices = np.empty(block, np.intp)
        for start in range(0, values.size, block):
            chunk = values[start : start + block]
            offset, index = offsets[: chunk.size], indices[: chunk.size]
            if scale != 1.0:
                chunk = np.multiply(chunk, scale, out=offset, dtype=arithmetic)
            np.subtract(chunk, low, out=offset, dtype=arithmetic)
            np.divide(offset, width, out=offset)
            # Offsets are >= 0, so truncating toward zero is TensorFlow's floor.
            np.copyto(index, offset, casting="unsafe")
            counts += np.bincount(index, minlength=k + 1)
    # The largest values land on index k (never past it: in float64 width rounds to within an
    # ulp of (max - min) / k, and float32 is used only for few buckets, see _arithmetic): the
    # last bucket is closed, as TensorFlow's clamp to k - 1 makes it.
    counts[k - 1] += counts[k]
    return counts[:k]


def _arithmetic(values: np.ndarray, low: float, high: float, k: int, exact: bool) -> type:
    """float32 where allowed (not `exact`) and safe (float32 values whose range and bucket
    widths are normal float32 numbers, at most _FLOAT32_MAX_BUCKETS buckets), else float64."""
    if exact or values.dtype != np.float32 or k > _FLOAT32_MAX_BUCKETS:
        return np.float64
    span = high - low
    return np.float32 if _FLOAT32_TINY * _FLOAT32_SPAN_MARGIN < span < _FLOAT32_MAX else np.float64


def bucketize(tag: str, values: np.ndarray, k: int, exact: bool = True) -> np.ndarray:
    """The `[k, 3]` float64 rows `(left, right, count)` of `values`' histogram.

    Non-finite values are left out (warning once per `tag`); see the module docstring for
    the edge cases. `exact=False` lets float32 values be bucketed in float32, about twice
    as fast: a value within float32 rounding of an inner edge may then be counted in the
    bucket beside it (the model watch's views take that; the ops do not). Where the compiled
    loop serves (see `compiled`), every count is exact, the fastest either way.
    """
    rows = np.zeros((k, 3), np.float64)
    values = values.reshape(-1)
    if values.dtype.kind == "b":
        values = values.view(np.uint8)
    if k == 0 or values.size == 0:
        return rows
    low, high = values.min(), values.max()
    if values.dtype.kind == "f" and not (np.isfinite(low) and np.isfinite(high)):
        values = finite_values(tag, values)
        if values.size == 0:
            return rows
        low, high = values.min(), values.max()
    low, high = float(low), float(high)
    if low == high:
        counts = np.zeros(k, np.int64)
        counts[-1] = values.size
        return rows_from_counts(low, high, counts)
    width = (high - low) / k
    scale = _scale_for(width)
    scaled_low, scaled_width = low, width
    if scale != 1.0:
        scaled_low, scaled_width = low * scale, (high * scale - low * scale) / k
    arithmetic = _arithmetic(values, scaled_low, high, k, exact) if scale == 1.0 else np.float64
    return rows_from_counts(low, high, _bucket_counts(values, scaled_low, scaled_width, scale, k, arithmetic))


def rows_from_counts(low: float, high: float, counts: np.ndarray) -> np.ndarray:
    """The `[k, 3]` rows of k = `counts.size` buckets from `low` to `high` (the smallest and
    largest value) holding `counts`: TensorFlow's edges, `low + i * ((high - low) / k)`
    (at a power-of-two scale where that is not a finite normal number, see `_scale_for`).
    When `low == high`, every value is counted in the last bucket (`counts.sum()`), all
    edges `low`. Shared with counts made elsewhere (the model watch's GPU path)."""
    k = counts.size
    rows = np.zeros((k, 3), np.float64)
    if k == 0:
        return rows
    if low == high:
        rows[:, :2] = high
        rows[-1, 2] = counts.sum()
        return rows
    width = (high - low) / k
    scale = _scale_for(width)
    scaled_low, width = low * scale, (high * scale - low * scale) / k
    rows[:, 2] = counts
    inner_edges = (scaled_low + width * np.arange(1, k, dtype=np.float64)) / scale
    rows[1:, 0] = inner_edges
    rows[:-1, 1] = inner_edges
    rows[0, 0], rows[-1, 1] = low, high
    return rows


def _build(
    tag: str, values: np.ndarray, bucket_count: int, description: str | None, exact: bool = True
) -> tuple[tensor_pb2.TensorProto, summary_pb2.SummaryMetadata]:
    return make_tensor_proto(bucketize(tag, values, bucket_count, exact)), create_metadata(description)


def encode(
    tag: str, data: Any, buckets: int | None = None, description: str | None = None
) -> tuple[tensor_pb2.TensorProto, summary_pb2.SummaryMetadata]:
    """The histogram tensor and metadata of `data`, as `tf.summary.histogram` would write
    them; no I/O. Raises as the op does for bad arguments."""
    tag = check_name("histogram", tag)
    return _build(*prepare(tag, data, buckets, description))


def summary(
    tag: str, values: np.ndarray, bucket_count: int, description: str | None, exact: bool = True
) -> bytes:
    """The serialized Summary of `prepare`'s result (run on the writer's thread); `exact` as
    in `bucketize`."""
    return summary_bytes(tag, *_build(tag, values, bucket_count, description, exact))


def summary_of_rows(tag: str, rows: np.ndarray) -> bytes:
    """The serialized Summary of histogram `rows` already made (`rows_from_counts`)."""
    return summary_bytes(tag, make_tensor_proto(rows), create_metadata(None))
