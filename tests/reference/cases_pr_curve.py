"""PR-curve inputs computed both by TensorBoard's `pr_curve.summary.pb` (once, by
make_tf_pr_curve_reference.py; it needs TensorFlow) and by summarylib (in every test run);
tensorboard_pr_curve.tfevents holds TensorBoard's answers.

The data comes only from integer draws and exact float arithmetic, so it is the same on every
platform and numpy version.
"""

from __future__ import annotations

import numpy as np


def _uniform(seed: int, size: int | tuple[int, ...]) -> np.ndarray:
    """float64 values in [0, 1) with 53 random bits each."""
    return np.random.default_rng(seed).random(size)


def _labelled(seed: int, size: int | tuple[int, ...], skill: float = 0.5):
    """Bool labels and float32 predictions that lean toward them by `skill`."""
    labels = _uniform(seed, size) < 0.4
    predictions = (1.0 - skill) * _uniform(seed + 1000, size) + skill * labels
    return labels, predictions.astype(np.float32)


_LABELS, _PREDICTIONS = _labelled(1, 1000)
_LABELS_2D, _PREDICTIONS_2D = _labelled(2, (4, 50))
_LABELS_BIG, _PREDICTIONS_BIG = _labelled(3, 150_000, skill=0.3)
_GRID = np.arange(201) / 200.0

# (tag, labels, predictions, num_thresholds, weights) per step; step = index in the list.
PR_CURVE_CASES = [
    ("basic", _LABELS, _PREDICTIONS, 201, None),
    ("two_thresholds", _LABELS, _PREDICTIONS, 2, None),
    ("eleven_thresholds", _LABELS, _PREDICTIONS, 11, None),
    ("many_thresholds", _LABELS, _PREDICTIONS, 1000, None),
    ("float64", _LABELS, _PREDICTIONS.astype(np.float64), 201, None),
    ("int_labels", _LABELS.astype(np.int64), _PREDICTIONS, 51, None),
    ("weights/scalar", _LABELS, _PREDICTIONS, 201, 2.5),
    ("weights/array", _LABELS, _PREDICTIONS, 201, (_uniform(4, 1000) * 3.0 - 0.5).astype(np.float32)),
    ("weights/mask", _LABELS, _PREDICTIONS, 201, (_uniform(5, 1000) < 0.5).astype(np.float64)),
    ("weights/broadcast_rows", _LABELS_2D, _PREDICTIONS_2D, 21, np.arange(1.0, 5.0).reshape(4, 1)),
    ("weights/broadcast_columns", _LABELS_2D, _PREDICTIONS_2D, 21, _uniform(6, (1, 50)) * 7.0),
    ("shape/2d", _LABELS_2D, _PREDICTIONS_2D, 201, None),
    ("grid/float32", _uniform(7, 201) < 0.5, _GRID.astype(np.float32), 201, None),
    ("grid/float64", _uniform(7, 201) < 0.5, _GRID, 201, None),
    ("grid/coarser", _uniform(8, 201) < 0.5, _GRID, 7, None),
    ("extremes", np.array([True, False, True, False]), np.array([0.0, 0.0, 1.0, 1.0], np.float32), 201, None),
    ("all_positive", np.ones(100, bool), _PREDICTIONS[:100], 201, None),
    ("all_negative", np.zeros(100, bool), _PREDICTIONS[:100], 201, None),
    ("empty", np.zeros(0, bool), np.zeros(0, np.float32), 201, None),
    ("big/weighted", _LABELS_BIG, _PREDICTIONS_BIG, 201, _uniform(9, 150_000) * 0.1 + 1e-3),
    ("big/unweighted", _LABELS_BIG, _PREDICTIONS_BIG, 201, None),
]
