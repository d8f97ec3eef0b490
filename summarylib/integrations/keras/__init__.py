"""Keras 3 integration, for every backend and without TensorFlow:

- `TensorBoard`: a drop-in for `keras.callbacks.TensorBoard` (summarylib.integrations.keras.callback).
- `Watch`: parameter, gradient and NaN views of a model while it trains (summarylib.integrations.keras.watch).
- `model_graph(model)`: the conceptual graph of a Keras model for TensorBoard's graphs dashboard.

`model_graph` uses models through their own methods and never imports Keras; the
callbacks, which subclass Keras's `Callback`, import it when first asked for.

Part of integrations, a surface: it may import every layer below it (the callback's
scalars go straight into the writer's scalar lane); nothing else in summarylib imports it.
"""

from typing import Any

from summarylib.integrations.keras.model_graph import model_graph

__all__ = ["TensorBoard", "Watch", "model_graph"]


def __getattr__(name: str) -> Any:
    if name == "TensorBoard":
        from summarylib.integrations.keras.callback import TensorBoard

        return TensorBoard
    if name == "Watch":
        from summarylib.integrations.keras.watch import Watch

        return Watch
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
