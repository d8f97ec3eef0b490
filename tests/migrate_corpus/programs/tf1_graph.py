"""TF 1.x graph code: summary ops on placeholders, merge_all, Session.run."""

import sys

import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

logdir = sys.argv[1]
x = tf.placeholder(tf.float32, shape=[], name="input")
tf.summary.scalar("x", x)
tf.summary.scalar("x_squared", x * x)
merged = tf.summary.merge_all()

with tf.Session() as sess:
    writer = tf.summary.FileWriter(logdir)
    for step in range(3):
        summary = sess.run(merged, feed_dict={x: float(step) + 0.5})
        writer.add_summary(summary, step)
    manual = tf.Summary(value=[tf.Summary.Value(tag="manual", simple_value=7.0)])
    writer.add_summary(manual, 3)
    writer.close()
