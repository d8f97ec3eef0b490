"""Keras integration: the conceptual graph of a Keras model for TensorBoard's graphs
dashboard. Keras is never imported by summarylib itself; models are used through their
own methods."""

from summarylib.integrations.keras.model_graph import model_graph

__all__ = ["model_graph"]
