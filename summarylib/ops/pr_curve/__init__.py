"""Precision-recall curves for TensorBoard's PR curves dashboard: the op bound to the default
writer (`op.py`) and the counts at each threshold and Summary it writes (`encoding.py`). May
import the format layer, the shared op helpers, the writer and the protos."""

from summarylib.ops.pr_curve.op import pr_curve

__all__ = ["pr_curve"]
