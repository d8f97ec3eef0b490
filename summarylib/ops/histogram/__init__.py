"""Histograms for TensorBoard's histograms and distributions dashboards: the op bound to the
default writer (`op.py`) and the buckets and Summary it writes (`encoding.py`). May import
the shared op helpers (`summarylib.ops`) and the layers below (the writer, format, checks,
the protos); never another kind's folder."""

from summarylib.ops.histogram.op import histogram

__all__ = ["histogram"]
