"""Images for TensorBoard's images dashboard: the op bound to the default writer (`op.py`),
the batch's checks, conversion to uint8 and Summary (`encoding.py`), and the PNG encoder
every image path uses (`png.py`, its filters and sampling; `png_deflate.py`, its deflate).
May import the shared op helpers (`summarylib.ops`) and the layers below (the writer,
format, checks, the protos); never another kind's folder."""

from summarylib.ops.image.op import image

__all__ = ["image"]
