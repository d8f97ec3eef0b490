"""torch's `add_histogram` and `add_histogram_raw`: TF 1.x `histo` values (HistogramProto),
as torch writes them, so the histograms and distributions dashboards show the buckets
torch users chose with `bins`.

- `bins="tensorflow"` (the default): TF's exponential buckets (limits growing by 10% from
  1e-12, mirrored), the `histo` of `summarylib.compat.legacy_values`. torch counts the
  same buckets with numpy; TensorBoard shows the same bars for both.
- any other `bins` numpy's `histogram` takes (a number of bins, a rule name such as
  `"auto"` or `"fd"`, or the edges): numpy's buckets, cut to `max_bins` by adding up
  neighbours as torch does, trimmed to the non-empty ones plus one empty bucket on the
  left (TensorBoard writes only right edges). At most `MAX_BUCKETS` (65,536) buckets are
  ever counted: `bins=10**8`, or `"fd"` on data with one far outlier, gives buckets
  merged down to that bound, where numpy would allocate what was asked (see
  `histogram_bins`).

Differences from torch: NaN and ±Inf are left out with a warning (torch's numpy call
fails on them, or counts them nowhere with explicit edges); bad `bins` or `max_bins`
and empty input are a ValueError at the call naming the tag. Bucketing happens on the
writer's thread, on a float64 snapshot of the values.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from summarylib.checks import int_at_least, optional_int_at_least, real_number
from summarylib.compat.legacy_values import histogram_value, serialized
from summarylib.compat.torch.core import WriterCore
from summarylib.compat.torch.histogram_bins import bounded_histogram
from summarylib.ops.convert import as_real_array
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


def numpy_histogram_proto(values: np.ndarray, bins: str | int | np.ndarray, max_bins: int | None) -> Any:
    """The HistogramProto of finite float64 `values` bucketed by numpy with `bins`."""
    counts, edges = bounded_histogram(values, bins, max_bins)
    nonzero = np.flatnonzero(counts)
    if nonzero.size == 0:  # every value outside explicit edges
        counts, limits = np.zeros(1), edges[-1:]
    elif nonzero[0] > 0:
        counts, limits = counts[nonzero[0] - 1 : nonzero[-1] + 1], edges[nonzero[0] : nonzero[-1] + 2]
    else:
        counts, limits = np.append(0, counts[: nonzero[-1] + 1]), edges[: nonzero[-1] + 2]
    with np.errstate(over="ignore"):  # a sum past float64's range is written as inf
        total, squares = float(values.sum()), float(values.dot(values))
    return histogram_pb2.HistogramProto(
        min=float(values.min()),
        max=float(values.max()),
        num=float(values.size),
        sum=total,
        sum_squares=squares,
        bucket_limit=limits.tolist(),
        bucket=counts.astype(np.float64).tolist(),
    )


def histogram_summary(tag: str, values: np.ndarray, bins: Any, max_bins: int | None) -> bytes:
    """The serialized Summary of a prepared histogram (on the writer's thread)."""
    if isinstance(bins, str) and bins == "tensorflow":
        return serialized([histogram_value(tag, values)])
    proto = numpy_histogram_proto(finite_values(tag, values), bins, max_bins)
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
        snapshot = np.array(array, dtype=np.float64).reshape(-1)  # a copy: the snapshot
        self._queue(
            _OP, tag, global_step, histogram_summary, (tag, snapshot, checked_bins, checked_max), walltime
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
