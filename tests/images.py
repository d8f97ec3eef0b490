"""Photo-like test images, shared by the PNG tests and the media benchmark: what a user's
pictures look like to a compressor (smooth regions, hard edges, sensor noise)."""

from __future__ import annotations

import numpy as np


def photo(height: int = 256, width: int = 256, seed: int = 0) -> np.ndarray:
    """Photo-like RGB: smooth colour fields, a few hard-edged discs, sensor noise."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width] / max(height, width)
    fields = np.zeros((height, width, 3))
    for channel in range(3):
        for _ in range(12):
            fx, fy = rng.uniform(-6, 6, 2)
            amplitude = rng.uniform(0.2, 1) / (1 + abs(fx) + abs(fy))
            fields[..., channel] += amplitude * np.sin(2 * np.pi * (fx * x + fy * y) + rng.uniform(0, 6.3))
    fields = (fields - fields.min()) / np.ptp(fields) * 200 + 25
    for _ in range(6):
        cy, cx, r = rng.uniform(0, 1, 3)
        disc = (y - cy) ** 2 + (x - cx) ** 2 < (0.05 + 0.15 * r) ** 2
        fields[disc] = fields[disc] * 0.6 + rng.uniform(0, 100, 3)
    fields += rng.normal(0, 3, fields.shape)
    return np.clip(fields, 0, 255).astype(np.uint8)
