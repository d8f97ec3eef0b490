"""The Custom Scalars dashboard's layout: the op bound to the default writer (`op.py`) and
the layout's checks and Summary (`encoding.py`). May import the shared op helpers
(`summarylib.ops`) and the layers below (the writer, format, checks, the protos); never
another kind's folder."""

from summarylib.ops.custom_scalars.op import custom_scalars

__all__ = ["custom_scalars"]
