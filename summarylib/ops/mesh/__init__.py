"""Meshes and point clouds for TensorBoard's mesh dashboard: the op bound to the default
writer (`op.py`) and the components' checks and Summaries (`encoding.py`). May import the
shared op helpers (`summarylib.ops`) and the layers below (the writer, format, checks, the
protos); never another kind's folder."""

from summarylib.ops.mesh.op import mesh

__all__ = ["mesh"]
