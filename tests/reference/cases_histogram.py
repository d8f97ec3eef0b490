"""Histogram inputs logged both by TensorFlow 2 (once, by make_tf_histogram_reference.py) and
by summarylib (in every test run); tf2_histogram.tfevents holds TensorFlow's answers.

The data comes only from integer draws and exact float arithmetic, so it is the same on every
platform and numpy version (no transcendental functions, no distribution samplers).
"""

from __future__ import annotations

import numpy as np


def _uniform(seed: int, size: int | tuple[int, ...]) -> np.ndarray:
    """float64 values in [0, 1) with 53 random bits each."""
    return np.random.default_rng(seed).random(size)


def _bell(seed: int, size: int) -> np.ndarray:
    """Roughly normal float64 values (a sum of four uniforms, centred) in (-2, 2)."""
    return _uniform(seed, (4, size)).sum(axis=0) - 2.0


def _integers(seed: int, low: int, high: int, size: int, dtype: type) -> np.ndarray:
    return np.random.default_rng(seed).integers(low, high, size, dtype=dtype)


# (tag, data, buckets, description) per step; step = index in the list.
HISTOGRAM_CASES = [
    ("empty", np.zeros(0, np.float32), None, None),
    ("empty/k5", [], 5, None),
    ("equal", np.full(100, 2.5), None, None),
    ("equal/k1", [3.0, 3.0, 3.0, 3.0], 1, None),
    ("equal/negative", np.full((3, 4), -7, np.int32), 4, None),
    ("single", 7.0, None, None),
    ("buckets0", np.arange(10.0), 0, None),
    ("buckets0/empty", np.zeros(0), 0, None),
    ("buckets1", np.arange(10.0), 1, None),
    ("bell/float32", _bell(1, 10_000).astype(np.float32), None, None),
    ("bell/float64", _bell(2, 10_000) * 1e-3 + 100.0, 1000, None),
    ("uniform/k7", _uniform(3, 5000) * 8.0 - 3.0, 7, None),
    ("ints", _integers(4, -50, 50, 1000, np.int32), 13, None),
    ("int64/big", np.array([2**62, 2**62 + 1, -(2**62), 2**53 + 1, 3], np.int64), 4, None),
    ("uint8", _integers(5, 0, 256, 1000, np.uint8), None, None),
    ("uint64", np.array([0, 2**64 - 1, 2**63], np.uint64), 3, None),
    ("bool", _uniform(6, 101) < 0.3, 2, None),
    ("float16", _bell(7, 1000).astype(np.float16), 17, None),
    ("range/float32_max", np.array([-3.4028235e38, 0.0, 3.4028235e38], np.float32), 5, None),
    ("range/1e300", np.array([-1e300, 1e300, 0.5]), 3, None),
    ("range/ulps", 1.0 + np.arange(5) * 2.0**-52, 3, None),
    ("negative", -(_uniform(8, 1000) ** 3) * 50.0 - 10.0, 9, None),
    ("edges/integers", np.arange(31.0), 30, None),
    ("edges/thirds", np.arange(31.0) / 30.0, 30, None),
    ("edges/tenths", np.arange(31.0) / 10.0, 30, None),
    ("edges/float32", (np.arange(301) / 300).astype(np.float32), 30, None),
    ("more_buckets_than_values", _bell(9, 100), 500, None),
    ("shape/3d", _bell(10, 120).reshape(4, 5, 6), 8, None),
    ("list/ints", [1, 2, 2, 3, 3, 3], 3, None),
    ("list/floats", [[0.1, 0.7], [0.35, 1]], 4, None),
    ("list/float64_scalars", [np.float64(0.1), np.float64(0.7)], 4, None),
    ("float", 0.1, 2, None),
    ("described", [0.5, 1.5], None, "Weights of *layer 1*."),
    ("ünïcode/tag", [1.0, 2.0], 2, "déscription"),
]
