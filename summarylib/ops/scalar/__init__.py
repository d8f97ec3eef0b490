"""Scalars for TensorBoard's scalars dashboard: the op bound to the default writer (`op.py`)
and the Summary and Event bytes it makes, one at a time or a batch at once from the writer's
scalar lane (`encoding.py`). May import the shared op helpers (`summarylib.ops`) and the
layers below (the writer, format, checks, the protos); never another kind's folder."""

from summarylib.ops.scalar.op import scalar

__all__ = ["scalar"]
