"""TF 2 graph tracing: trace_on/trace_export write the traced graph to TensorFlow's default
writer, so that writer (and every tf.summary call with it) stays TensorFlow's."""

import sys

import tensorflow as tf


@tf.function
def double(x):
    return x * 2


writer = tf.summary.create_file_writer(sys.argv[1])
tf.summary.trace_on(graph=True)
double(tf.constant(1.0))
with writer.as_default():
    tf.summary.trace_export("double", step=0)
    tf.summary.scalar("loss", 0.5, step=0)
