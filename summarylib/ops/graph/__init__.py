"""Graphs for TensorBoard's graphs dashboard: the op bound to the default writer (`op.py`)
and the GraphDef's bytes and the event that carries them (`encoding.py`). May import the
format layer, the shared op helpers, the writer and the protos."""

from summarylib.ops.graph.op import graph

__all__ = ["graph"]
