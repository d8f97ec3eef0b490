"""Keras 3 integration, for every backend and without TensorFlow:

- `TensorBoard`: a drop-in for `keras.callbacks.TensorBoard` (summarylib.integrations.keras.callback).
- `model_graph(model)`: the conceptual graph of a Keras model for TensorBoard's graphs dashboard.

`model_graph` uses models through their own methods and never imports Keras; the
callback, which subclasses Keras's `Callback`, imports it when first asked for.
"""

from typing import Any

from summarylib.integrations.keras.model_graph import model_graph

__all__ = ["TensorBoard", "model_graph"]


def __getattr__(name: str) -> Any:
    if name == "TensorBoard":
        from summarylib.integrations.keras.callback import TensorBoard

        return TensorBoard
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
