"""A TF 1.x logger that builds its own Summary protos: a histogram from numpy, no ops."""

import sys

import numpy as np
import tensorflow as tf


class Logger:
    def __init__(self, logdir):
        self.writer = tf.summary.FileWriter(logdir)

    def histo_summary(self, tag, values, step, bins=10):
        counts, edges = np.histogram(values, bins=bins)
        hist = tf.HistogramProto()
        hist.min = float(np.min(values))
        hist.max = float(np.max(values))
        hist.num = int(np.prod(values.shape))
        hist.sum = float(np.sum(values))
        hist.sum_squares = float(np.sum(values**2))
        hist.bucket_limit.extend(edges[1:])
        hist.bucket.extend(counts)
        summary = tf.Summary(value=[tf.Summary.Value(tag=tag, histo=hist)])
        self.writer.add_summary(summary, step)
        self.writer.flush()


logger = Logger(sys.argv[1])
for step in range(3):
    logger.histo_summary("weights", np.arange(10, dtype=np.float64) * (step + 1), step)
