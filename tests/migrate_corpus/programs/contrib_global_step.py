"""tf.contrib.summary with TF's global step created by create_global_step and handed to the
optimizer: the step stays TensorFlow's, and the ops are given it."""

import sys

import tensorflow as tf

tf.enable_eager_execution()

logdir = sys.argv[1]
global_step = tf.train.create_global_step()
weight = tf.Variable(1.0)
optimizer = tf.train.GradientDescentOptimizer(0.1)
checkpoint = tf.train.Checkpoint(step_counter=global_step, weight=weight)
writer = tf.contrib.summary.create_file_writer(logdir)
with writer.as_default(), tf.contrib.summary.record_summaries_every_n_global_steps(2):
    for i in range(4):
        optimizer.apply_gradients([(tf.constant(0.1), weight)], global_step=global_step)
        tf.contrib.summary.scalar("loss", 0.5 * i)
        tf.contrib.summary.histogram("weight", weight, step=i)
