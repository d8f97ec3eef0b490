"""Audio for TensorBoard's audio dashboard: the op bound to the default writer (`op.py`) and
the clips' checks, WAV encoding and Summary (`encoding.py`). May import the shared op
helpers (`summarylib.ops`) and the layers below (the writer, format, checks, the protos);
never another kind's folder."""

from summarylib.ops.audio.op import audio

__all__ = ["audio"]
