"""A Keras model whose train_step override logs with tf.summary: Keras traces train_step with
tf.function, so its summaries are symbolic and go to TensorFlow's default writer."""

import sys

import tensorflow as tf


class Model(tf.keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            loss = self.compiled_loss(y, self(x, training=True))
        tf.summary.scalar("train_loss", loss, step=self.optimizer.iterations)
        return {"loss": loss}

    def test_step(self, data):
        x, y = data
        loss = self.compiled_loss(y, self(x, training=False))
        tf.summary.scalar("val_loss", loss, step=self.optimizer.iterations)
        return {"loss": loss}


writer = tf.summary.create_file_writer(sys.argv[1])
with writer.as_default():
    model = Model()
