"""Record what Keras's own TensorBoard callback writes on the TensorFlow backend, once.

The tests have no TensorFlow, so this script, run by hand in an environment with
TensorFlow and Keras 3 (`pip install tensorflow keras==3.15.1`; summarylib need not be
installed), trains examples/keras_fit.py's model with `keras.callbacks.TensorBoard` and
every option the tests use, and keeps its logdir as tests/reference/keras_tf/. The
projector's checkpoint files (`.weights.h5`) are removed: summarylib writes embeddings
differently, and the tests compare only the event files.

    KERAS_BACKEND=tensorflow python tests/reference/make_keras_reference.py
"""

from __future__ import annotations

import glob
import os
import shutil
import sys

os.environ["KERAS_BACKEND"] = "tensorflow"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

import keras  # noqa: E402

from examples.keras_fit import callback_options, train  # noqa: E402

OUTPUT = os.path.join(ROOT, "tests", "reference", "keras_tf")


def main() -> None:
    shutil.rmtree(OUTPUT, ignore_errors=True)
    train(keras.callbacks.TensorBoard(OUTPUT, **callback_options()), OUTPUT)
    for checkpoint in glob.glob(os.path.join(OUTPUT, "train", "*.weights.h5")):
        os.remove(checkpoint)
    print(f"keras {keras.__version__} on {keras.backend.backend()}: wrote {OUTPUT}")


if __name__ == "__main__":
    main()
