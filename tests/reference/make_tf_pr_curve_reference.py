"""Write what TensorBoard's `pr_curve.summary.pb` computes for the inputs of cases_pr_curve.py,
as the committed tensorboard_pr_curve.tfevents (`pb` imports TensorFlow, so tests cannot
call it).

Run by hand, in an environment with TensorFlow 2.21 and TensorBoard 2.21, after changing
cases_pr_curve.py:

    python tests/reference/make_tf_pr_curve_reference.py

`pb` writes its tag as `<name>/pr_curves` and the name as display name, as the TF 1 op did;
the tests compare the tensors and the plugin content.
"""

from __future__ import annotations

import cases_pr_curve
import tensorflow as tf
from make_tf_reference import write_reference
from tensorboard.plugins.pr_curve import summary as pr_curve_summary


def log_pr_curves() -> None:
    for step, (tag, labels, predictions, num_thresholds, weights) in enumerate(cases_pr_curve.PR_CURVE_CASES):
        summary = pr_curve_summary.pb(
            tag, labels, predictions, num_thresholds=num_thresholds, weights=weights
        )
        tf.summary.experimental.write_raw_pb(summary.SerializeToString(), step=step)


if __name__ == "__main__":
    print("TensorFlow", tf.__version__)
    write_reference("tensorboard_pr_curve", log_pr_curves)
