"""Embeddings for TensorBoard's projector: the op bound to the default writer, which queues
the files' writing for the writer's thread (`op.py`), and the matrix, metadata, sprite and
config files it writes (`encoding.py`). May import the shared op helpers (`summarylib.ops`),
the image op's encoding and PNG encoder (the sprite) and the layers below (the writer,
format, checks, the protos); no other kind's folder."""

from summarylib.ops.embedding.op import embedding

__all__ = ["embedding"]
