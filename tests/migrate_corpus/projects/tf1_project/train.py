"""The training loop of tf1_project: merge_all and a FileWriter over the model's graph."""

import sys

import tensorflow as tf
from model import build

logdir = sys.argv[1]
features = tf.placeholder(tf.float32, [None, 3])
labels = tf.placeholder(tf.float32, [None, 1])
train_op = build(features, labels)
merged = tf.summary.merge_all()
with tf.Session() as sess:
    writer = tf.summary.FileWriter(logdir, sess.graph)
    for step in range(3):
        summary, _ = sess.run([merged, train_op])
        writer.add_summary(summary, step)
