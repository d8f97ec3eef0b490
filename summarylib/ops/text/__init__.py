"""Text for TensorBoard's text dashboard: the op bound to the default writer (`op.py`) and
the strings' checks and Summary (`encoding.py`). May import the shared op helpers
(`summarylib.ops`) and the layers below (the writer, format, checks, the protos); never
another kind's folder."""

from summarylib.ops.text.op import text

__all__ = ["text"]
