"""TF 1.x summary ops on Python values, no session: merge_all each step."""

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
writer = tf.summary.FileWriter(logdir)
for step in range(3):
    tf.summary.scalar("loss", 2.0 - step)
    tf.summary.histogram("values", [float(step), 1.0, 2.0])
    tf.summary.image("frame", np.full((1, 2, 2, 3), 50 * step, dtype=np.uint8), max_outputs=1)
    writer.add_summary(tf.summary.merge_all(), step)
writer.flush()
writer.close()
