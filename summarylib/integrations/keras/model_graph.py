"""A Keras model's conceptual graph, written as Keras's TensorBoard callback writes it.

Keras's `keras_model_summary("keras", model, step=0)` (keras/src/callbacks/tensorboard.py)
writes the model's JSON (`model.to_json()`) as a scalar string tensor tagged `keras`, with
metadata naming the `graph_keras_model` plugin, content `b"1"` (the format's version).
TensorBoard's graphs dashboard lists it as the run's conceptual graph and draws the layers.
"""

from __future__ import annotations

import warnings
from typing import Any

from summarylib.ops.errors import op_error
from summarylib.ops.tensor import encoding as tensor_encoding
from summarylib.proto import summary_pb2
from summarylib.writer.queue import queue_summary, recording_writer

PLUGIN_NAME = "graph_keras_model"
TAG = "keras"
_OP = "integrations.keras.model_graph"


def create_metadata() -> summary_pb2.SummaryMetadata:
    """The conceptual graph's metadata: plugin `graph_keras_model`, content `b"1"`."""
    metadata = summary_pb2.SummaryMetadata()
    metadata.plugin_data.plugin_name = PLUGIN_NAME
    metadata.plugin_data.content = b"1"
    return metadata


def model_graph(model: Any, step: Any = 0) -> bool:
    """Write `model`'s conceptual graph (tag `keras`) through the default writer.

    `model` is a Keras model (anything with `to_json()`); it is serialized at the call, so
    changing it afterwards changes nothing written. As Keras does, a model that fails to
    serialize (a subclassed model without a config) is skipped with a warning and False
    returned, so logging never breaks training. `step` defaults to 0 as in Keras's
    callback; None means the default step. Returns False when there is no default writer
    or recording is off.
    """
    writer = recording_writer()
    if writer is None:
        return False
    to_json = getattr(model, "to_json", None)
    if not callable(to_json):
        raise op_error(
            TypeError,
            _OP,
            TAG,
            "model",
            f"expected a Keras model (with to_json()), got {type(model).__name__}",
        )
    try:
        json_string = to_json()
    except Exception as error:  # Keras too ignores a model it cannot serialize
        warnings.warn(
            f"summarylib: Keras model failed to serialize as JSON, not written: {error}", stacklevel=2
        )
        return False
    args = tensor_encoding.prepare(_OP, TAG, json_string, create_metadata())
    return queue_summary(writer, _OP, TAG, step, tensor_encoding.summary, args)
