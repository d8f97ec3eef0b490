"""torch's `add_histogram` and `add_histogram_raw`: TF 1.x `histo` values (HistogramProto),
field for field as torch's writer (and tensorboardX's) writes them, so readers of
`HistogramProto` (TensorBoard's EventAccumulator, DataFrame loaders) find the same buckets.

- `bins="tensorflow"` (the default): torch's `default_bins` edges (0 and ±1e-12 * 1.1**k
  up to 9.8e19), counted as `np.histogram` counts them (see `default_bins`, which counts
  without numpy's sort). Values beyond ±9.8e19 are in min, max and the sums but in no
  bucket, as in torch's file.
- any other `bins` numpy's `histogram` takes (a number of bins, a rule name such as
  `"auto"` or `"fd"`, or the edges): numpy's buckets over the values as float64. At most
  `MAX_BUCKETS` (65,536) buckets are ever counted: `bins=10**8`, or `"fd"` on data with
  one far outlier, gives buckets merged down to that bound, where numpy would allocate
  what was asked (see `histogram_bins`).

Either way, more buckets than `max_bins` are merged as torch merges them, then trimmed to
the support as torch does: the buckets from the first non-empty one to the last, plus
one empty bucket on the left (HistogramProto holds right edges only: that bucket's limit
is the support's left edge). min, max and sum (numpy's pairwise sum) are those of the
values as float64, bit for bit, found in one pass with the counting (`default_bins.scan`);
sum_squares is the same pairwise sum of the squares, where torch's is BLAS's dot: equal
to the last bits or so, not always in them (see `default_bins` for why not BLAS).

The caller's thread only copies the values, in their own dtype; converting and counting
happen on the writer's thread.

Differences from torch: NaN and ±Inf are left out with a warning (torch's numpy call
fails on them, or counts them nowhere with explicit edges); bad `bins` or `max_bins` and
empty input are a ValueError at the call naming the tag. Where torch's writer raises on
the writer's data (values that no bucket holds: all beyond ±9.8e19, or outside explicit
edges), ours writes one empty bucket at the last edge; where none of the values is
finite, TF's empty histogram. A bfloat16 tensor is counted as its float32 values (torch
converts it to float16 first, which rounds values below 6e-5 and makes those above 65504
infinite).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from summarylib.checks import int_at_least, optional_int_at_least, real_number
from summarylib.compat.legacy_histogram import histogram_proto as empty_histogram_proto
from summarylib.compat.legacy_values import serialized
from summarylib.compat.torch.core import WriterCore
from summarylib.compat.torch.default_bins import EDGES, Scan, scan
from summarylib.compat.torch.histogram_bins import bounded_histogram, merged
from summarylib.ops.convert import as_real_array, snapshot
from summarylib.ops.errors import op_error
from summarylib.ops.histogram.encoding import finite_values
from summarylib.proto import histogram_pb2, summary_pb2
from summarylib.writer.event_codec import event_of_summary

_NUMPY_RULES = ("auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt")
_OP = "add_histogram"


def check_bins(tag: str, bins: Any) -> str | int | np.ndarray:
    """`bins` as numpy takes it (or "tensorflow"), checked at the call."""
    if isinstance(bins, str):
        if bins == "tensorflow" or bins in _NUMPY_RULES:
            return bins
        raise op_error(
            ValueError, _OP, tag, "bins", f"expected 'tensorflow' or one of {_NUMPY_RULES}, got {bins!r}"
        )
    if isinstance(bins, (int, np.integer, np.bool_)):  # a number of bins (a bool is none)
        return int_at_least(_OP, tag, "bins", bins)
    edges = as_real_array(_OP, tag, "bins", bins).astype(np.float64)
    if edges.ndim != 1 or edges.size < 2 or not (np.diff(edges) >= 0).all():
        raise op_error(
            ValueError, _OP, tag, "bins", f"expected increasing bin edges, got shape {list(edges.shape)}"
        )
    return edges


def _support(counts: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """torch's trim: the buckets from the first non-empty one to the last, after one empty
    bucket on the left, and the right edge of each (one empty bucket at the last edge if
    none holds a value, where torch's writer raises)."""
    nonzero = np.flatnonzero(counts)
    if nonzero.size == 0:
        return np.zeros(1, counts.dtype), edges[-1:]
    first, last = nonzero[0], nonzero[-1]
    if first > 0:
        return counts[first - 1 : last + 1], edges[first : last + 2]
    return np.append(0, counts[: last + 1]), edges[: last + 2]


def histogram_proto(
    values: np.ndarray, found: Scan, bins: str | int | np.ndarray, max_bins: int | None
) -> Any:
    """The HistogramProto torch writes for finite, non-empty `values`, their scan and
    checked `bins`."""
    if found.counts is not None:  # bins="tensorflow"
        counts, edges = merged(found.counts, EDGES, max_bins)
    else:
        counts, edges = bounded_histogram(values.astype(np.float64, copy=False), bins, max_bins)
    counts, limits = _support(counts, edges)
    low, high = found.low, found.high
    if low == 0 or high == 0:  # the sign of a zero: as the float64 values' min and max have it
        wide = values.astype(np.float64, copy=False)
        low, high = wide.min(), wide.max()
    return histogram_pb2.HistogramProto(
        min=float(low),
        max=float(high),
        num=float(values.size),
        sum=found.total,
        sum_squares=found.squares,
        bucket_limit=limits.tolist(),
        bucket=counts.astype(np.float64).tolist(),
    )


def histogram_summary(tag: str, values: np.ndarray, bins: Any, max_bins: int | None) -> bytes:
    """The serialized Summary of a snapshot of values (on the writer's thread): NaN and
    ±Inf, found by a min or max that is not finite, are left out with a warning."""
    count = isinstance(bins, str) and bins == "tensorflow"
    with np.errstate(over="ignore", invalid="ignore"):  # sums past float64's range are inf
        found = scan(values, count)
        if not (np.isfinite(found.low) and np.isfinite(found.high)):
            values = finite_values(tag, values)
            if not values.size:
                return serialized([summary_pb2.Summary.Value(tag=tag, histo=empty_histogram_proto(values))])
            found = scan(values, count)
    proto = histogram_proto(values, found, bins, max_bins)
    return serialized([summary_pb2.Summary.Value(tag=tag, histo=proto)])


class HistogramMethods(WriterCore):
    """The histogram methods of torch's writer (see the module docstring)."""

    def add_histogram(
        self,
        tag: str,
        values: Any,
        global_step: int | None = None,
        bins: Any = "tensorflow",
        walltime: float | None = None,
        max_bins: int | None = None,
    ) -> None:
        """Write a histogram of `values` (any shape, flattened) bucketed by `bins`."""
        tag = self._tag(_OP, tag)
        checked_bins = check_bins(tag, bins)
        checked_max = optional_int_at_least(_OP, tag, "max_bins", max_bins)
        array = as_real_array(_OP, tag, "values", values)
        if array.size == 0:
            raise op_error(
                ValueError, _OP, tag, "values", f"expected at least one value, got shape {list(array.shape)}"
            )
        copy = snapshot(array, values).reshape(-1)  # in the values' own dtype, in recycled memory
        self._queue(
            _OP, tag, global_step, histogram_summary, (tag, copy, checked_bins, checked_max), walltime
        )

    def add_histogram_raw(
        self,
        tag: str,
        min: float,
        max: float,
        num: int,
        sum: float,
        sum_squares: float,
        bucket_limits: Any,
        bucket_counts: Any,
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """Write a histogram given as its statistics and buckets (`bucket_limits`: the
        right edge of each bucket), as TF 1.x's HistogramProto holds it."""
        tag = self._tag("add_histogram_raw", tag)
        limits = as_real_array("add_histogram_raw", tag, "bucket_limits", bucket_limits).reshape(-1)
        counts = as_real_array("add_histogram_raw", tag, "bucket_counts", bucket_counts).reshape(-1)
        if limits.size != counts.size:
            raise op_error(
                ValueError,
                "add_histogram_raw",
                tag,
                "bucket_counts",
                f"expected as many counts as bucket_limits ({limits.size}), got {counts.size}",
            )
        op = "add_histogram_raw"
        proto = histogram_pb2.HistogramProto(
            min=real_number(op, tag, "min", min),
            max=real_number(op, tag, "max", max),
            num=real_number(op, tag, "num", num),
            sum=real_number(op, tag, "sum", sum),
            sum_squares=real_number(op, tag, "sum_squares", sum_squares),
            bucket_limit=limits.astype(np.float64).tolist(),
            bucket=counts.astype(np.float64).tolist(),
        )
        data = serialized([summary_pb2.Summary.Value(tag=tag, histo=proto)])
        step = self._step("add_histogram_raw", tag, global_step)
        wall_time = self._wall_time("add_histogram_raw", tag, walltime)
        self._writer.submit(event_of_summary, (bytes, data), wall_time, step)
