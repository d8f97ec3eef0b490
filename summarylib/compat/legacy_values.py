"""TF 1.x's legacy summary values (`simple_value`, `histo`, `Summary.Image`,
`Summary.Audio`), built from inputs the v2 ops' `prepare` functions already checked.

Written once for every compat layer: compat.v1 builds them at the call (its ops return
serialized protos); compat.contrib, compat.torch and compat.tensorboardX on the writer's
thread (torch's and tensorboardX's writers write images, figures, videos and audio as
these values, with no metadata, and so do their drop-ins).

`Summary.Image` and `Summary.Audio` values are laid out by hand (`image_entry`,
`audio_entry`), as the ops lay out their string tensors: they hold megabytes of PNG or
WAV, which the generated code would copy at every level of message nesting. The bytes are
those the generated code writes (fields in number order, zero fields left out).
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

import numpy as np

from summarylib.compat.legacy_histogram import histogram_proto
from summarylib.format.wire import SUMMARY_VALUE, VALUE_TAG, length_delimited, varint
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
# Field keys of Summary.Value's image (4) and audio (6), and of their own fields.
_VALUE_IMAGE = b"\x22"
_VALUE_AUDIO = b"\x32"
_IMAGE_HEIGHT, _IMAGE_WIDTH, _IMAGE_COLORSPACE, _IMAGE_ENCODED = b"\x08", b"\x10", b"\x18", b"\x22"
_AUDIO_SAMPLE_RATE = struct.Struct("<Bf")  # its key (field 1, fixed32), then the float
_AUDIO_SAMPLE_RATE_KEY = 0x0D
_AUDIO_CHANNELS, _AUDIO_FRAMES, _AUDIO_ENCODED, _AUDIO_CONTENT_TYPE = b"\x10", b"\x18", b"\x22", b"\x2a"
WAV_CONTENT_TYPE = "audio/wav"


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


def image_entry(tag: str, encoded: bytes, height: int, width: int, colorspace: int) -> bytes:
    """One `Summary.value` entry, serialized: a `Summary.Image` of `encoded` (PNG, or a
    GIF for a video) stating `height`, `width` and `colorspace` (channels), under `tag`."""
    image = b"".join(
        (
            _int_field(_IMAGE_HEIGHT, height),
            _int_field(_IMAGE_WIDTH, width),
            _int_field(_IMAGE_COLORSPACE, colorspace),
            _bytes_field(_IMAGE_ENCODED, encoded),
        )
    )
    return _value_entry(tag, _VALUE_IMAGE, image)


def audio_entry(tag: str, encoded: bytes, sample_rate: float, channels: int, frames: int) -> bytes:
    """One `Summary.value` entry, serialized: a `Summary.Audio` of the WAV file `encoded`
    stating its sample rate (a float32), channels and frames, content type audio/wav."""
    audio = b"".join(
        (
            _AUDIO_SAMPLE_RATE.pack(_AUDIO_SAMPLE_RATE_KEY, sample_rate) if sample_rate else b"",
            _int_field(_AUDIO_CHANNELS, channels),
            _int_field(_AUDIO_FRAMES, frames),
            _bytes_field(_AUDIO_ENCODED, encoded),
            _bytes_field(_AUDIO_CONTENT_TYPE, WAV_CONTENT_TYPE.encode()),
        )
    )
    return _value_entry(tag, _VALUE_AUDIO, audio)


def _int_field(key: bytes, value: int) -> bytes:
    return key + varint(value) if value else b""


def _bytes_field(key: bytes, value: bytes) -> bytes:
    return length_delimited(key, value) if value else b""


def _value_entry(tag: str, key: bytes, message: bytes) -> bytes:
    """`Summary.value` entry of a Value holding `tag` and the message `message` (field
    `key`, written even when empty, as a oneof member is)."""
    value_head = _bytes_field(VALUE_TAG, tag.encode("utf-8")) + key + varint(len(message))
    return b"".join((SUMMARY_VALUE, varint(len(value_head) + len(message)), value_head, message))


def png_entry(tag: str, pixels: np.ndarray, size: tuple[int, int] | None = None) -> bytes:
    """The `Summary.Image` entry of `[h, w, c]` uint8 pixels as PNG, stating their height
    and width, or `size` (height, width) where the writer followed states another."""
    height, width, channels = pixels.shape
    if size is not None:
        height, width = size
    return image_entry(tag, encode_png(pixels), height, width, channels)


def wav_entry(tag: str, clip: np.ndarray, sample_rate: int) -> bytes:
    """The `Summary.Audio` entry of a `[t, c]` clip of float samples in [-1, 1] (clipped
    silently) as 16-bit WAV."""
    frames, channels = clip.shape
    return audio_entry(tag, encode_wav(clip, sample_rate), sample_rate, channels, frames)


def image_values(
    tag: str, images: np.ndarray, max_outputs: int, bad_color: tuple[int, ...] = DEFAULT_BAD_COLOR
) -> list[bytes]:
    """One `Summary.Image` entry (PNG) per image of the `[n, h, w, c]` batch already cut
    to max_outputs."""
    tags = _numbered_tags(tag, "image", len(images), max_outputs)
    return [png_entry(*each) for each in zip(tags, legacy_uint8(images, bad_color), strict=True)]


def audio_values(tag: str, clips: np.ndarray, sample_rate: int, max_outputs: int) -> list[bytes]:
    """One `Summary.Audio` entry (WAV) per clip of the `[n, t, c]` batch already cut to
    max_outputs."""
    tags = _numbered_tags(tag, "audio", len(clips), max_outputs)
    return [wav_entry(value_tag, clip, sample_rate) for value_tag, clip in zip(tags, clips, strict=True)]


def serialized(values: Sequence[summary_pb2.Summary.Value | bytes]) -> bytes:
    """A serialized Summary of `values`: Value messages, or entries already laid out
    (`image_entry`, `audio_entry`). A Summary's bytes are its entries' one after another."""
    return b"".join(
        value if isinstance(value, bytes) else length_delimited(SUMMARY_VALUE, value.SerializeToString())
        for value in values
    )
