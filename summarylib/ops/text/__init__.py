"""Text for TensorBoard's text dashboard: the op bound to the default writer (`op.py`) and
the strings' checks and Summary (`encoding.py`). May import the format layer, the shared
op helpers, the writer and the protos."""

from summarylib.ops.text.op import text

__all__ = ["text"]
