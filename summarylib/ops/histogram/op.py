"""The histogram op bound to the default writer."""

from __future__ import annotations

from typing import Any

from summarylib.ops.histogram import encoding
from summarylib.ops.prepared import log_prepared


def histogram(
    name: str, data: Any, step: Any = None, buckets: int | None = None, description: str | None = None
) -> bool:
    """Write a histogram of `data` for TensorBoard's histograms and distributions
    dashboards, as `tf.summary.histogram` does (see summarylib.ops.histogram.encoding)."""
    return log_prepared("histogram", name, step, encoding, data, buckets, description)
