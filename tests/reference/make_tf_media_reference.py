"""Write what TensorFlow 2 itself logs for the inputs of cases_media.py, as committed event
files (tf2_image.tfevents, tf2_audio.tfevents, tf2_text.tfevents).

Run by hand, in an environment with TensorFlow 2.21, after changing cases_media.py:

    python tests/reference/make_tf_media_reference.py

TF takes images only as a `[k, h, w, c]` batch and audio only as a float32 `[k, t, c]`
batch, so the one-item forms summarylib also accepts are given to TF as a batch of one,
and float64 audio as float32: what summarylib documents they mean.
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cases_media  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from make_tf_reference import write_reference  # noqa: E402


def as_batch(data: np.ndarray, rank: int) -> np.ndarray:
    """One item without its batch dimension (and maybe without its channel dimension) as a
    batch of one."""
    if data.ndim == rank - 1:
        return data[np.newaxis]
    if data.ndim == rank - 2:
        return data[np.newaxis, ..., np.newaxis]
    return data


def log_images() -> None:
    for step, (tag, data, max_outputs, description) in enumerate(cases_media.IMAGE_CASES):
        tf.summary.image(tag, as_batch(data, 4), step=step, max_outputs=max_outputs, description=description)


def log_audio() -> None:
    for step, (tag, data, sample_rate, max_outputs, description) in enumerate(cases_media.AUDIO_CASES):
        clips = as_batch(data, 3).astype(np.float32)
        tf.summary.audio(tag, clips, sample_rate, step=step, max_outputs=max_outputs, description=description)


def log_text() -> None:
    for step, (tag, data, description) in enumerate(cases_media.TEXT_CASES):
        tf.summary.text(tag, data, step=step, description=description)


if __name__ == "__main__":
    print("TensorFlow", tf.__version__)
    write_reference("tf2_image", log_images)
    write_reference("tf2_audio", log_audio)
    write_reference("tf2_text", log_text)
