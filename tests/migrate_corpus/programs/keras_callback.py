"""Keras's TensorBoard callback, through tf.keras and through keras."""

import sys

import keras
import numpy as np
import tensorflow as tf

keras.utils.set_random_seed(0)
x = np.linspace(-1, 1, 32, dtype="float32").reshape(-1, 1)
model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
model.fit(x, 2 * x, epochs=2, verbose=0, callbacks=[tf.keras.callbacks.TensorBoard(sys.argv[1] + "/a")])
model.fit(
    x,
    2 * x,
    epochs=2,
    verbose=0,
    callbacks=[keras.callbacks.TensorBoard(log_dir=sys.argv[1] + "/b", histogram_freq=0)],
)
