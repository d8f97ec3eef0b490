"""Meshes and point clouds for TensorBoard's mesh dashboard: the op bound to the default
writer (`op.py`) and the components' checks and Summaries (`encoding.py`). May import the
format layer, the shared op helpers, the writer and the protos."""

from summarylib.ops.mesh.op import mesh

__all__ = ["mesh"]
