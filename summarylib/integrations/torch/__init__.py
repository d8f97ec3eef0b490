"""PyTorch integration: `trace_graph(model, *inputs)` records a forward pass as a GraphDef
for TensorBoard's graphs dashboard. Importing this package imports torch; nothing else in
summarylib does."""

from summarylib.integrations.torch.tracer import trace_graph
from summarylib.integrations.torch.watch import watch

__all__ = ["trace_graph", "watch"]
