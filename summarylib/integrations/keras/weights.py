"""Model weights as Keras's TensorBoard callback shows them: tag names and weight images.

Keras (keras/src/callbacks/tensorboard.py) names a weight's summaries after its path, with
`:` replaced by `_`, plus `/histogram` or `/image`; an image shows a weight squeezed to
one pixel a value: a bias as one column, a Dense kernel as one image with its longer side
horizontal, a 3-d kernel as one image per output channel; a weight that stays 4-d is
written as it is when its last axis has 1, 3 or 4 entries (as channels). Weights of other
shapes get no image. This module knows no Keras: it works on numpy arrays and names.
"""

from __future__ import annotations

import numpy as np


def weight_tag(path: str, suffix: str) -> str:
    """The tag of a weight's `suffix` ("histogram" or "image") summary, from its path."""
    return f"{path.replace(':', '_')}/{suffix}"


def weight_image(weight: np.ndarray, channels_last: bool = True) -> np.ndarray | None:
    """`weight` as a `[k, h, w, 1]` batch of images as Keras makes it, or None when Keras
    writes no image of a weight of this shape (3-d convolutions and larger)."""
    image = np.squeeze(weight)
    if image.ndim == 1:  # a bias: one column
        image = image.reshape(1, image.shape[0], 1, 1)
    elif image.ndim == 2:  # a Dense kernel: the longer side horizontal
        if image.shape[0] > image.shape[1]:
            image = image.T
        image = image.reshape(1, image.shape[0], image.shape[1], 1)
    elif image.ndim == 3:  # a 3-d kernel: one image per output channel
        if channels_last:
            image = np.transpose(image, (2, 0, 1))
        image = image.reshape(*image.shape, 1)
    if image.ndim == 4 and image.shape[-1] in (1, 3, 4):
        return image
    return None
