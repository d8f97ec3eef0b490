"""Precision-recall curves for TensorBoard's PR curves dashboard: the op bound to the
default writer (`op.py`) and the counts at each threshold and Summary it writes
(`encoding.py`). May import the shared op helpers (`summarylib.ops`) and the layers below
(the writer, format, checks, the protos); never another kind's folder."""

from summarylib.ops.pr_curve.op import pr_curve

__all__ = ["pr_curve"]
