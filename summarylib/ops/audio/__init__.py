"""Audio for TensorBoard's audio dashboard: the op bound to the default writer (`op.py`) and
the clips' checks, WAV encoding and Summary (`encoding.py`). May import the format layer,
the shared op helpers, the writer and the protos."""

from summarylib.ops.audio.op import audio

__all__ = ["audio"]
