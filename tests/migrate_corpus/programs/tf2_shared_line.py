"""A TF 2 script whose imports share a line: the removed import takes its `; ` with it."""

import sys; import tensorflow as tf

with tf.summary.create_file_writer(sys.argv[1]).as_default():
    tf.summary.scalar("loss", 0.5, step=0)
