"""Write what TensorFlow 2 itself logs for the inputs of cases.py, as committed event files.

Run by hand, in an environment with TensorFlow 2.21, after changing cases.py:

    python tests/reference/make_tf_reference.py

The test suite compares summarylib's encodings with these files and needs no TensorFlow.
"""

from __future__ import annotations

import glob
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cases  # noqa: E402
import tensorflow as tf  # noqa: E402


def write_reference(name: str, log) -> None:
    """Run `log()` under a TF writer and keep its event file as `<name>.tfevents`."""
    with tempfile.TemporaryDirectory() as logdir:
        writer = tf.summary.create_file_writer(logdir)
        with writer.as_default():
            log()
        writer.close()
        (path,) = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
        shutil.copyfile(path, os.path.join(HERE, f"{name}.tfevents"))


def log_scalars() -> None:
    for step, (tag, data, description) in enumerate(cases.SCALAR_CASES):
        tf.summary.scalar(tag, data, step=step, description=description)


if __name__ == "__main__":
    print("TensorFlow", tf.__version__)
    write_reference("tf2_scalar", log_scalars)
