"""TF 2 hparams through TensorBoard's hparams API (as hp), written to the default writer."""

import sys

import tensorflow as tf
from tensorboard.plugins.hparams import api as hp

HP_LR = hp.HParam("lr", hp.RealInterval(0.001, 0.1))
HP_OPT = hp.HParam("optimizer", hp.Discrete(["adam", "sgd"]))
with tf.summary.create_file_writer(sys.argv[1]).as_default():
    hp.hparams_config(hparams=[HP_LR, HP_OPT], metrics=[hp.Metric("accuracy", display_name="Accuracy")])
for run, (lr, opt) in enumerate([(0.01, "adam"), (0.1, "sgd")]):
    with tf.summary.create_file_writer(f"{sys.argv[1]}/run-{run}").as_default():
        hp.hparams({HP_LR: lr, HP_OPT: opt})
        tf.summary.scalar("accuracy", 0.5 + run / 4, step=1)
