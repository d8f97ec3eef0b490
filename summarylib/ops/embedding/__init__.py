"""Embeddings for TensorBoard's projector: the op bound to the default writer, which queues
the files' writing for the writer's thread (`op.py`), and the matrix, metadata, sprite and
config files it writes (`encoding.py`). May import the format layer (storage), the shared
op helpers, the image op's encoding, the writer and the protos."""

from summarylib.ops.embedding.op import embedding

__all__ = ["embedding"]
