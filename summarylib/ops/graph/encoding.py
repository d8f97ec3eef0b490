"""The graph op's encoding: a serialized GraphDef as `Event.graph_def` (field 4).

A graph is not a Summary: TensorFlow's `tf.summary.graph`, `FileWriter.add_graph` and
torch's `SummaryWriter.add_graph` all write the GraphDef bytes straight into the event's
`graph_def` field, which TensorBoard reads as the run's graph (its graphs dashboard shows
the newest one of each run). `graph_def_bytes` turns every accepted graph input into
those bytes on the caller's thread (serializing is the snapshot); `graph_event` makes the
whole event on the writer's thread.
"""

from __future__ import annotations

from typing import Any

from summarylib.format.wire import EVENT_GRAPH_DEF, length_delimited
from summarylib.ops.errors import check_serialized, op_error, wrapped_error
from summarylib.proto import graph_pb2
from summarylib.writer.event_codec import event_head


def graph_def_bytes(graph_def: Any, op: str = "graph") -> bytes:
    """The serialized GraphDef of `graph_def`.

    Accepts summarylib's `GraphDef`, TensorFlow's or TensorBoard's (any protobuf message
    named `GraphDef`: the layouts are the same), serialized GraphDef bytes (checked to
    parse), or an object with `as_graph_def()` such as a `tf.Graph`. Raises TypeError for
    anything else and ValueError for bytes that are not a GraphDef, naming `op`.
    """
    as_graph_def = getattr(graph_def, "as_graph_def", None)
    if callable(as_graph_def) and not _is_graph_def_message(graph_def):
        try:
            graph_def = as_graph_def()
        except Exception as error:
            raise wrapped_error(
                TypeError, op, None, "graph_def", f"{type(graph_def).__name__}.as_graph_def() failed", error
            ) from error
    if _is_graph_def_message(graph_def):
        return graph_def.SerializeToString()
    if isinstance(graph_def, (bytes, bytearray, memoryview)):
        return check_serialized(graph_pb2.GraphDef, bytes(graph_def), op, None, "graph_def")
    raise op_error(
        TypeError,
        op,
        None,
        "graph_def",
        "expected a GraphDef (summarylib's, TensorFlow's or TensorBoard's), its serialized bytes, or an "
        f"object with as_graph_def() such as a tf.Graph; got {type(graph_def).__module__}."
        f"{type(graph_def).__qualname__}",
    )


def _is_graph_def_message(value: Any) -> bool:
    """Whether `value` is a protobuf GraphDef message of any package."""
    descriptor = getattr(value, "DESCRIPTOR", None)
    return getattr(descriptor, "name", None) == "GraphDef" and callable(
        getattr(value, "SerializeToString", None)
    )


def graph_event(wall_time: float, step: int, graph_def: bytes) -> bytes:
    """Serialized `Event{wall_time, step, graph_def}`: an event maker for the writer's queue."""
    return event_head(wall_time, step) + length_delimited(EVENT_GRAPH_DEF, graph_def)
