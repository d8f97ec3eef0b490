"""Inputs logged both by TensorFlow 2 (once, by make_tf_reference.py) and by summarylib
(in every test run): the committed event files hold TensorFlow's answers."""

from __future__ import annotations

import numpy as np

# (tag, data, description) per step; step = index in the list.
SCALAR_CASES = [
    ("loss", 0.0, None),
    ("loss", 1.5, None),
    ("loss", -2.25, None),
    ("tiny", 1e-45, None),
    ("huge", 3.4028234e38, None),
    ("overflow", np.float64(1e39), None),
    ("nan", float("nan"), None),
    ("inf", float("inf"), None),
    ("neg_inf", float("-inf"), None),
    ("int", 7, None),
    ("bool", True, None),
    ("float16", np.float16(0.1), None),
    ("float64", np.float64(0.1), None),
    ("int64", np.int64(2**40 + 1), None),
    ("uint8", np.uint8(200), None),
    ("array0d", np.array(3.25, dtype=np.float32), None),
    ("described", 1.0, "The *loss*, in nats."),
    ("ünïcode/tag", 2.0, "déscription"),
    ("nested/scope/tag", 3.0, ""),
]
