"""A compact, encoding-independent digest of a logdir, read through TensorBoard's own data
access: {run: {"plugin/tag": [[step, value digest], ...]}}.

TF 1.x's legacy values (simple_value, histo, Summary.Image) and TF 2's plugin tensors of the
same data give the same digest, because TensorBoard converts both before its dashboards see
them. Wall times, PNG bytes and file names are left out: they differ between any two runs.
"""

from __future__ import annotations

import numpy as np

from tests.tensorboard_data import read_blob_sequences, read_scalars, read_tensors


def _round(value: float) -> float:
    return float(f"{float(value):.5g}")


def _histogram(array: np.ndarray) -> list:
    """Bucket count total and the value range the buckets cover."""
    if array.size == 0:
        return [0, None, None]
    counts = array[:, 2]
    filled = array[counts > 0]
    return [_round(counts.sum()), _round(filled[:, 0].min()), _round(filled[:, 1].max())]


def _text(array: np.ndarray) -> str:
    item = array.reshape(-1)[0]
    return item.decode() if isinstance(item, bytes) else str(item)


def digest(logdir: str) -> dict:
    """The digest of every scalar, histogram, text, image and audio point under `logdir`."""
    result: dict = {}

    def add(plugin: str, data: dict, value) -> None:
        for run, tags in data.items():
            for tag, points in tags.items():
                entry = result.setdefault(run, {}).setdefault(f"{plugin}/{tag}", [])
                entry.extend([step, value(v)] for step, v in points)

    add("scalars", read_scalars(logdir), _round)
    add("histograms", read_tensors(logdir, "histograms"), _histogram)
    add("text", read_tensors(logdir, "text"), _text)
    add("images", read_blob_sequences(logdir, "images"), lambda blobs: len(blobs) - 2)
    add("audio", read_blob_sequences(logdir, "audio"), lambda blobs: len(blobs))
    for tags in result.values():
        for points in tags.values():
            points.sort(key=lambda point: point[0])
    return result
