"""The graph op bound to the default writer: a GraphDef for TensorBoard's graphs dashboard."""

from __future__ import annotations

import time
from typing import Any

from summarylib.ops.graph.encoding import graph_def_bytes, graph_event
from summarylib.writer.context import emit_pending_warnings, pending_warnings, resolve_step
from summarylib.writer.queue import recording_writer


def graph(graph_def: Any, step: Any = 0) -> bool:
    """Write a graph as the run's `Event.graph_def`, as `tf.summary.graph` does.

    `graph_def` is a GraphDef (summarylib's, TensorFlow's or TensorBoard's), its
    serialized bytes, or an object with `as_graph_def()` such as a `tf.Graph`; a
    `GraphDef` from `summarylib.integrations.torch.trace_graph` (also the partial one on
    a failed trace's `error.graph_def`) draws a PyTorch model. TensorBoard shows the
    newest graph of each run. `step` defaults to 0 as in TensorFlow (which has no step
    argument); None means the default step. The graph is serialized at the call, so
    changing it afterwards changes nothing written. Returns False, without looking at
    `graph_def`, when there is no default writer or recording is off.
    """
    writer = recording_writer()
    if writer is None:
        return False
    data = graph_def_bytes(graph_def)
    step = resolve_step("graph", None, step)
    writer.submit(graph_event, (data,), time.time(), step, len(data))
    if pending_warnings:
        emit_pending_warnings()
    return True
