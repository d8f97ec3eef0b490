"""tf.contrib.summary (TF 1.x): a global step and recording every n steps."""

import sys

import tensorflow as tf

tf.enable_eager_execution()

logdir = sys.argv[1]
global_step = tf.train.get_or_create_global_step()
writer = tf.contrib.summary.create_file_writer(logdir)
with writer.as_default(), tf.contrib.summary.record_summaries_every_n_global_steps(2):
    for i in range(5):
        tf.contrib.summary.scalar("loss", 0.5 * i)
        tf.contrib.summary.histogram("acts", [1.0, 2.0, float(i)])
        global_step.assign_add(1)
with writer.as_default(), tf.contrib.summary.always_record_summaries():
    tf.contrib.summary.scalar("final", 9.0, step=100)
    tf.contrib.summary.flush()
