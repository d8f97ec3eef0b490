"""TF 2 eager: a default writer, explicit steps and experimental.set_step."""

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
writer = tf.summary.create_file_writer(logdir + "/train")
with writer.as_default():
    for step in range(3):
        tf.summary.experimental.set_step(step)
        tf.summary.scalar("loss", 1.0 / (step + 1))
        tf.summary.histogram("weights", np.arange(10, dtype=np.float32) * (step + 1))
        tf.summary.text("note", f"step {step}", step=step)
        tf.summary.image("pixels", np.zeros((1, 4, 4, 3), dtype=np.uint8), step=step)
    with tf.summary.record_if(False):
        tf.summary.scalar("hidden", 5.0, step=9)
    tf.summary.flush()
writer.close()
