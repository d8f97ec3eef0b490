"""A TF 1.x helper module: its summary ops are on graph tensors; nothing in it says TF 1.x,
but train.py beside it merges them with merge_all."""

import tensorflow as tf


def dense_summary(name, activations):
    tf.summary.histogram(name, activations)
    return activations
