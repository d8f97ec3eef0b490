"""A TF 1.x model module: graph tensors and summary ops, no Session (train.py runs it)."""

import tensorflow as tf


def build(features, labels):
    weights = tf.get_variable("weights", [3, 1])
    loss = tf.reduce_mean(tf.square(tf.matmul(features, weights) - labels))
    tf.summary.scalar("loss", loss)
    tf.summary.histogram("weights", weights)
    return tf.train.AdamOptimizer(0.01).minimize(loss)
