"""TF 2 with tf.function: summary ops traced into a graph."""

import sys

import tensorflow as tf

logdir = sys.argv[1]
writer = tf.summary.create_file_writer(logdir)


@tf.function
def train_step(x, step):
    loss = tf.reduce_mean(x * x)
    tf.summary.scalar("loss", loss, step=step)
    return loss


with writer.as_default():
    for step in range(3):
        train_step(tf.constant([1.0, 2.0]) * step, tf.constant(step, dtype=tf.int64))
    tf.summary.scalar("final", 1.5, step=3)
writer.close()
