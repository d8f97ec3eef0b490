"""The fields `tensorboard --inspect` counts, under its names: one vocabulary for gathering,
statistics and warnings, so that our sections line up with TensorBoard's."""

from __future__ import annotations

from summarylib.proto import event_pb2

# `tensorboard --inspect`'s fields: value fields under their display names, then events.
VALUE_FIELDS = {
    "simple_value": "scalars",
    "histo": "histograms",
    "image": "images",
    "audio": "audio",
    "tensor": "tensor",
}
TAG_FIELDS = sorted(VALUE_FIELDS.values())
LONG_FIELDS = ("sessionlog:start", "sessionlog:stop")
TRACKED_FIELDS = sorted([*TAG_FIELDS, "graph", "sessionlog:checkpoint", *LONG_FIELDS])
SESSION_FIELDS = {
    event_pb2.SessionLog.START: "sessionlog:start",
    event_pb2.SessionLog.STOP: "sessionlog:stop",
    event_pb2.SessionLog.CHECKPOINT: "sessionlog:checkpoint",
}
# The value fields in a fixed order: a row's kind is its index here.
KINDS = list(VALUE_FIELDS)
