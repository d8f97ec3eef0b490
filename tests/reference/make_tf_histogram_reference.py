"""Write what TensorFlow 2's `tf.summary.histogram` logs for the inputs of cases_histogram.py,
as the committed tf2_histogram.tfevents.

Run by hand, in an environment with TensorFlow 2.21, after changing cases_histogram.py:

    python tests/reference/make_tf_histogram_reference.py
"""

from __future__ import annotations

import cases_histogram
import tensorflow as tf
from make_tf_reference import write_reference


def log_histograms() -> None:
    for step, (tag, data, buckets, description) in enumerate(cases_histogram.HISTOGRAM_CASES):
        tf.summary.histogram(tag, data, step=step, buckets=buckets, description=description)


if __name__ == "__main__":
    print("TensorFlow", tf.__version__)
    write_reference("tf2_histogram", log_histograms)
