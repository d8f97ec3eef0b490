"""Graphs for TensorBoard's graphs dashboard: the op bound to the default writer (`op.py`)
and the GraphDef's bytes and the event that carries them (`encoding.py`). May import the
shared op helpers (`summarylib.ops`) and the layers below (the writer, format, checks, the
protos); never another kind's folder."""

from summarylib.ops.graph.op import graph

__all__ = ["graph"]
