"""Histograms for TensorBoard's histograms and distributions dashboards: the op bound to the
default writer (`op.py`) and the buckets and Summary it writes (`encoding.py`). May import
the format layer, the shared op helpers, the writer and the protos."""

from summarylib.ops.histogram.op import histogram

__all__ = ["histogram"]
