"""Generic tensor summaries: the ops bound to the default writer (`op.py`: `write`, a tensor
with any metadata, and `write_raw_pb`, an already serialized Summary) and the tensor's
conversion, metadata and Summary (`encoding.py`). May import the shared op helpers
(`summarylib.ops`) and the layers below (the writer, format, checks, the protos); never
another kind's folder."""

from summarylib.ops.tensor.op import write, write_raw_pb

__all__ = ["write", "write_raw_pb"]
