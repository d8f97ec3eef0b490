"""Write what TF 1.x's summary ops (tf.compat.v1.summary, run in a graph) make of the cases
of cases_v1.py, as a committed event file written by TF's own v1 FileWriter.

Run by hand, in an environment with TensorFlow 2.21, after changing cases_v1.py:

    python tests/reference/make_tf_v1_reference.py
"""

from __future__ import annotations

import glob
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import tensorflow as tf  # noqa: E402
from cases_v1 import V1_CASES  # noqa: E402

tf.compat.v1.disable_eager_execution()
v1 = tf.compat.v1.summary


def summary_of(op: str, name: str, data, options: dict) -> bytes:
    """The serialized Summary TF 1.x's op makes, in a fresh graph (no `_1` renaming)."""
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        tensor = tf.constant(data)
        if op == "audio":
            options = dict(options)
            summary = v1.audio(name, tensor, options.pop("sample_rate"), **options)
        else:
            summary = getattr(v1, op)(name, tensor, **options)
        return session.run(summary)


if __name__ == "__main__":
    print("TensorFlow", tf.__version__)
    with tempfile.TemporaryDirectory() as logdir:
        with tf.Graph().as_default():
            writer = v1.FileWriter(logdir)
            for step, case in enumerate(V1_CASES):
                writer.add_summary(summary_of(*case), step)
            writer.close()
        (path,) = glob.glob(os.path.join(logdir, "events.out.tfevents.*"))
        shutil.copyfile(path, os.path.join(HERE, "tf1_summaries.tfevents"))
