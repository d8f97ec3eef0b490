"""TF 1.x eager-style code that --to v2 keeps on compat: a text op made once before the loop
(the first merge_all takes it), a scalar in a family, and a step that is not a simple name."""

import sys

import tensorflow as tf

logdir = sys.argv[1]
writer = tf.summary.FileWriter(logdir)
tf.summary.text("config", "lr=0.1")
for epoch in range(3):
    tf.summary.scalar("loss", 1.0 / (epoch + 1), family="train")
    writer.add_summary(tf.summary.merge_all(), epoch * 10)
writer.close()
