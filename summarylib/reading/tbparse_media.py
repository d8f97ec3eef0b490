"""Images, audio and hparams as tbparse hands them out, without TensorFlow.

tbparse decodes images with `tf.image.decode_image` and audio with `tf.audio.decode_wav`, so
it needs TensorFlow for them; these give the same arrays with pillow and soundfile (the
reader's own decoders): an image as a `[height, width, channels]` uint8 array in its own
channels (gray 1, gray and alpha 2, RGB 3, RGBA 4; a palette as RGB, or RGBA when it has a
transparent colour), a GIF as `[frames, height, width, 3]`; a clip as a `[frames, channels]`
float32 array in [-1, 1). A 16-bit PNG keeps its high byte (TensorFlow converts it to uint8 by
scaling, which may round the other way by one).
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from summarylib.proto import hparams_pb2
from summarylib.reading.values import Audio, Images


def decode_image(encoded: bytes) -> np.ndarray:
    """One encoded image (PNG, JPEG, GIF, BMP) as tbparse's uint8 array."""
    from PIL import Image, ImageSequence

    with Image.open(io.BytesIO(encoded)) as image:
        if image.format == "GIF":
            return np.stack([np.asarray(frame.convert("RGB")) for frame in ImageSequence.Iterator(image)])
        if image.mode in ("I;16", "I;16B", "I;16L", "I"):
            return (np.asarray(image).astype(np.uint32) >> 8).astype(np.uint8)[..., np.newaxis]
    return Images(0, 0, (encoded,)).array(0)


def decode_wav(encoded: bytes) -> np.ndarray:
    """One WAV clip as tbparse's `[frames, channels]` float32 array."""
    return Audio((encoded,), ("",)).samples(0)


def session_hparams(content: bytes) -> dict[str, Any]:
    """{name: value} of the hparams of a session_start_info's plugin content, in the order
    they are stored; each value its one set field (a float, str or bool)."""
    start = hparams_pb2.HParamsPluginData.FromString(content).session_start_info
    hparams = {}
    for name, value in start.hparams.items():
        fields = value.ListFields()
        if len(fields) != 1:
            raise ValueError(f"hparam {name!r} holds {len(fields)} values, not one")
        hparams[name] = fields[0][1]
    return hparams
