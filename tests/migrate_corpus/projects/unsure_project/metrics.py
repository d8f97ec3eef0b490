"""Summary ops with no writer in the file and nothing around it that says TF 1.x or TF 2."""

import tensorflow as tf


def log_loss(loss):
    tf.summary.scalar("loss", loss)
