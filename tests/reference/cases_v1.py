"""Inputs of TF 1.x summary ops, run once through TF 1.x's ops by make_tf_v1_reference.py
and in every test run through summarylib.compat.v1 and summarylib.compat.contrib.

Each case: (op, name, data, keyword arguments). The reference file holds, at step i, the
Summary TF 1.x made of case i.
"""

from __future__ import annotations

import numpy as np

_rng = np.random.default_rng(0)
_wave = np.sin(np.linspace(0, 20, 300, dtype=np.float32))

V1_CASES = [
    ("scalar", "loss", 1.5, {}),
    ("scalar", "int", 3, {}),
    ("scalar", "float64", np.float64(2.5), {}),
    ("scalar", "loss", 0.25, {"family": "train"}),
    ("scalar", "bad name!", 1.0, {}),
    ("histogram", "small", np.array([1.0, 2.0, 2.0, -3.0], np.float32), {}),
    ("histogram", "empty", np.zeros([0], np.float32), {}),
    ("histogram", "normal", _rng.normal(0, 3, size=(40, 25)).astype(np.float32), {}),
    ("histogram", "wide", np.array([-1e30, -1e-13, 0.0, 1e-13, 1e-12, 5e19, 2e20], np.float64), {}),
    ("histogram", "ints", np.arange(-50, 50, dtype=np.int32), {"family": "weights"}),
    ("histogram", "half", np.linspace(-2, 2, 33).astype(np.float16), {}),
    ("image", "uint8", _rng.integers(0, 256, size=(3, 4, 5, 1), dtype=np.uint8), {}),
    ("image", "positive", _rng.uniform(0, 3, size=(2, 6, 4, 3)).astype(np.float32), {}),
    ("image", "signed", _rng.normal(0, 1, size=(2, 5, 5, 3)).astype(np.float32), {"family": "f"}),
    ("image", "rgba", _rng.uniform(0, 1, size=(1, 3, 3, 4)).astype(np.float32), {}),
    ("image", "one", _rng.uniform(0, 1, size=(4, 3, 3, 3)).astype(np.float32), {"max_outputs": 1}),
    ("image", "zeros", np.zeros((1, 2, 2, 3), np.float32), {}),
    (
        "image",
        "nonfinite",
        np.array([[[[0.5, np.nan, 0.2], [1.0, 2.0, 0.0]], [[np.inf, 0, 0], [0.25, 0.5, 0.75]]]], np.float32),
        {},
    ),
    ("image", "double", _rng.uniform(-1, 1, size=(1, 4, 4, 1)), {}),
    ("image", "halfimage", _rng.uniform(0, 1, size=(1, 4, 4, 3)).astype(np.float16), {}),
    ("audio", "mono", np.stack([_wave, 0.5 * _wave])[..., np.newaxis], {"sample_rate": 8000}),
    ("audio", "flat", np.stack([_wave, _wave, _wave]), {"sample_rate": 16000, "max_outputs": 2}),
    ("audio", "stereo", np.stack([_wave, -_wave], axis=-1)[np.newaxis], {"sample_rate": 22050}),
    ("audio", "loud", 1.7 * np.stack([_wave])[..., np.newaxis], {"sample_rate": 8000, "max_outputs": 1}),
    ("text", "hello", "hello *world*", {}),
    ("text", "list", ["a", "b"], {}),
    ("text", "table", [["x", "ÿ"], ["z", "w"]], {}),
    ("tensor_summary", "ints", np.array([1, 2], np.int32), {}),
    (
        "tensor_summary",
        "described",
        np.arange(6.0).reshape(2, 3),
        {"display_name": "D", "summary_description": "desc", "family": "fam"},
    ),
]
