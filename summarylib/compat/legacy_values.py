"""TF 1.x's legacy summary values (`simple_value`, `histo`, `Summary.Image`,
`Summary.Audio`), built from inputs the v2 ops' `prepare` functions already checked.

Written once for both compat layers: compat.v1 builds them at the call (its ops return
serialized protos), compat.contrib on the writer's thread.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from summarylib.compat.legacy_histogram import histogram_proto
from summarylib.ops.audio.encoding import encode_wav
from summarylib.ops.convert import as_array
from summarylib.ops.histogram.encoding import finite_values
from summarylib.ops.image.encoding import to_uint8
from summarylib.ops.image.png import encode_png
from summarylib.proto import summary_pb2

# TF 1.x paints pixels with a NaN or infinite channel in this color (opaque red).
DEFAULT_BAD_COLOR = (255, 0, 0, 255)
# Below this largest magnitude a float image is all black (TF 1.x's kZeroThreshold).
_ZERO_THRESHOLD = np.float32(1e-6)


def legacy_clips(op: str, tag: str, data: Any) -> np.ndarray:
    """TF 1.x audio data: `[k, t, c]`, or `[k, t]` as `k` mono clips."""
    array = as_array(op, tag, "tensor", data)
    return array[..., np.newaxis] if array.ndim == 2 else array


def scalar_value(tag: str, value: float) -> summary_pb2.Summary.Value:
    """`simple_value`, a float32."""
    return summary_pb2.Summary.Value(tag=tag, simple_value=value)


def histogram_value(tag: str, values: np.ndarray) -> summary_pb2.Summary.Value:
    """`histo` of the finite values (TF 1.x refused NaN and ±Inf; they are left out
    with a warning, as the v2 histogram op does)."""
    finite = finite_values(tag, np.asarray(values, dtype=np.float64).reshape(-1))
    return summary_pb2.Summary.Value(tag=tag, histo=histogram_proto(finite))


def _numbered_tags(tag: str, kind: str, count: int, max_outputs: int) -> list[str]:
    """`tag/kind` when max_outputs is 1, else `tag/kind/0` ... (TF 1.x's rule)."""
    if max_outputs == 1:
        return [f"{tag}/{kind}"] * count
    return [f"{tag}/{kind}/{index}" for index in range(count)]


def legacy_uint8(images: np.ndarray, bad_color: tuple[int, ...] = DEFAULT_BAD_COLOR) -> np.ndarray:
    """`[n, h, w, c]` images as uint8 the way TF 1.x's image summaries made them.

    uint8 stays as it is. Floats are rescaled per image, ignoring pixels with a NaN or
    infinite channel (painted `bad_color`): by 255 / max when no value is negative, else
    by 127 / max(|min|, |max|) around 128, then truncated. Other integers and bools,
    which TF 1.x refused, are converted as the v2 image op converts them.
    """
    if images.dtype == np.uint8:
        return images
    if images.dtype.kind != "f":
        return to_uint8(images)
    out = np.empty(images.shape, dtype=np.uint8)
    bad = np.asarray(bad_color, dtype=np.uint8)[: images.shape[-1]]
    for index, image in enumerate(images):
        out[index] = _normalized(image, bad)
    return out


def _normalized(image: np.ndarray, bad_color: np.ndarray) -> np.ndarray:
    finite_pixels = np.isfinite(image).all(axis=-1)
    finite = image[finite_pixels].astype(np.float32)
    low = finite.min() if finite.size else np.float32(np.inf)
    high = finite.max() if finite.size else np.float32(-np.inf)
    dtype = image.dtype.type
    if low < 0:
        largest = max(abs(low), abs(high))
        scale, offset = dtype(0.0 if largest < _ZERO_THRESHOLD else np.float32(127.0) / largest), dtype(128.0)
    else:
        scale, offset = dtype(0.0 if high < _ZERO_THRESHOLD else np.float32(255.0) / high), dtype(0.0)
    with np.errstate(invalid="ignore", over="ignore"):
        pixels = (image * scale + offset).astype(np.uint8)
    pixels[~finite_pixels] = bad_color
    return pixels


def image_values(
    tag: str, images: np.ndarray, max_outputs: int, bad_color: tuple[int, ...] = DEFAULT_BAD_COLOR
) -> list[summary_pb2.Summary.Value]:
    """One `Summary.Image` (PNG) per image of the `[n, h, w, c]` batch already cut to
    max_outputs."""
    values = []
    for value_tag, pixels in zip(
        _numbered_tags(tag, "image", len(images), max_outputs), legacy_uint8(images, bad_color), strict=True
    ):
        height, width, channels = pixels.shape
        image = summary_pb2.Summary.Image(
            height=height, width=width, colorspace=channels, encoded_image_string=encode_png(pixels)
        )
        values.append(summary_pb2.Summary.Value(tag=value_tag, image=image))
    return values


def audio_values(
    tag: str, clips: np.ndarray, sample_rate: int, max_outputs: int
) -> list[summary_pb2.Summary.Value]:
    """One `Summary.Audio` (WAV) per clip of the `[n, t, c]` batch already cut to
    max_outputs."""
    values = []
    for value_tag, clip in zip(_numbered_tags(tag, "audio", len(clips), max_outputs), clips, strict=True):
        frames, channels = clip.shape
        audio = summary_pb2.Summary.Audio(
            sample_rate=float(sample_rate),
            num_channels=channels,
            length_frames=frames,
            encoded_audio_string=encode_wav(clip, sample_rate),
            content_type="audio/wav",
        )
        values.append(summary_pb2.Summary.Value(tag=value_tag, audio=audio))
    return values


def serialized(values: list[summary_pb2.Summary.Value]) -> bytes:
    """A serialized Summary of `values`."""
    return summary_pb2.Summary(value=values).SerializeToString()
