"""PyTorch integration: `trace_graph(model, *inputs)` records a forward pass as a GraphDef
for TensorBoard's graphs dashboard (tracer.py, with recorder.py and naming.py), and
`watch(model)` writes parameters, gradients and activations while it trains (watch.py;
watch_device.py on CUDA, watch_numerics.py for the first NaN/Inf).

Importing this package imports torch; no module outside the integrations does (compat.torch's
`add_graph` reaches torch through `trace_graph`). Part of integrations, a surface: it may
import every layer below it."""

from summarylib.integrations.torch.tracer import trace_graph
from summarylib.integrations.torch.watch import watch

__all__ = ["trace_graph", "watch"]
