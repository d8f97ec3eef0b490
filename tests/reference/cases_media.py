"""Image, audio and text inputs logged both by TensorFlow 2 (once, by
make_tf_media_reference.py) and by summarylib (in every test run).

Each list holds one tuple per step (step = index). Data is in the form summarylib is
given; make_tf_media_reference.py gives TensorFlow the same data in the form it accepts
(a batch, float32 audio).
"""

from __future__ import annotations

import itertools

import numpy as np

_streams = itertools.count(1)


def _bits(shape) -> np.ndarray:
    """64 pseudo-random bits per element (splitmix64 in uint64 arithmetic, so the same on
    every platform and numpy version; each call draws a new stream)."""
    x = np.arange(int(np.prod(shape)), dtype=np.uint64) + np.uint64(next(_streams) << 32)
    x = x * np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return (x ^ (x >> np.uint64(31))).reshape(shape)


def _ints(dtype, shape) -> np.ndarray:
    """Values over the dtype's whole range, starting with its edges and small values."""
    dtype = np.dtype(dtype)
    bits = 8 * dtype.itemsize
    values = (_bits(shape) >> np.uint64(64 - bits)).astype(f"u{dtype.itemsize}").view(dtype)
    info = np.iinfo(dtype)
    edges = [info.min, info.min + 1, -1, 0, 1, 2, 127, 128, 255, 256, 257, info.max - 1, info.max]
    kept = [v for v in edges if info.min <= v <= info.max]
    values.reshape(-1)[: len(kept)] = kept
    return values


def _uniform(shape) -> np.ndarray:
    """float32 samples in [-1, 1)."""
    return ((_bits(shape) >> np.uint64(11)).astype(np.float64) / 2.0**52 - 1).astype(np.float32)


def _uint8(shape) -> np.ndarray:
    return (_bits(shape) >> np.uint64(56)).astype(np.uint8)


# Floats at and around TF's truncation edges (x * 255.5), out of range, NaN and ±inf.
_SPECIAL_PIXELS = [0.0, 0.5, 1 / 255, 0.998, 0.999, 1.0, 1.5, -0.5, np.nan, np.inf, -np.inf]
_SPECIAL_PIXELS += [k / 255.5 for k in (1, 2, 127, 128, 254, 255)]
_SPECIAL_PIXELS += [np.nextafter(k / 255.5, 0) for k in (1, 2, 127, 128, 254, 255)]


def _floats(dtype, shape) -> np.ndarray:
    """A ramp over [-0.1, 1.1] after the special values, in `dtype`."""
    size = int(np.prod(shape))
    ramp = np.linspace(-0.1, 1.1, size)
    ramp[: len(_SPECIAL_PIXELS)] = _SPECIAL_PIXELS
    return ramp.astype(dtype).reshape(shape)


# (tag, data, max_outputs, description)
IMAGE_CASES = [
    ("uint8/every_value", (np.arange(16 * 16 * 3) % 256).astype(np.uint8).reshape(1, 16, 16, 3), 3, None),
    ("float32/ramp", _floats(np.float32, (1, 48, 40, 1)), 3, None),
    ("float64/ramp", _floats(np.float64, (2, 24, 20, 3)), 3, None),
    ("float16/ramp", _floats(np.float16, (1, 40, 30, 1)), 3, None),
    ("int8/every_value", np.arange(-128, 128, dtype=np.int8).reshape(1, 16, 16, 1), 3, None),
    ("int16/range", _ints(np.int16, (1, 16, 16, 2)), 3, None),
    ("int32/range", _ints(np.int32, (1, 16, 16, 1)), 3, None),
    ("int64/range", _ints(np.int64, (1, 16, 16, 1)), 3, None),
    ("uint16/range", _ints(np.uint16, (1, 16, 16, 4)), 3, None),
    ("channels/1", _uint8((2, 5, 7, 1)), 3, None),
    ("channels/2", _uint8((2, 5, 7, 2)), 3, None),
    ("channels/3", _uint8((2, 5, 7, 3)), 3, None),
    ("channels/4", _uint8((2, 5, 7, 4)), 3, None),
    ("max_outputs/default_of_4", _uint8((4, 3, 2, 3)), 3, None),
    ("max_outputs/0", _uint8((3, 3, 2, 3)), 0, None),
    ("max_outputs/1", _uint8((3, 3, 2, 3)), 1, None),
    ("max_outputs/more_than_k", _uint8((3, 3, 2, 3)), 5, None),
    ("max_outputs/int64", _uint8((3, 3, 2, 3)), np.int64(2), None),
    ("empty/batch", np.zeros((0, 4, 6, 3), np.uint8), 3, None),
    ("empty/no_pixels_none_written", np.zeros((2, 0, 3, 1), np.uint8), 0, None),
    ("rank/3_is_one_image", _uint8((5, 6, 3)), 3, None),
    ("rank/2_is_one_gray_image", _uint8((5, 6)), 3, None),
    ("large", _uint8((1, 64, 48, 3)), 3, None),
    ("described", _uint8((1, 2, 2, 3)), 3, "Some *images*, in Markdown."),
    ("ünïcode/tag", _uint8((1, 2, 2, 1)), 3, "déscription"),
]

# Samples at and around TF's rounding edges (x * 32768, halves round away from zero).
_HALVES = np.array([k / 2 / 32768 for k in range(-9, 10)], dtype=np.float32)
_TIES = np.concatenate(
    [
        _HALVES,
        np.nextafter(_HALVES, np.float32(-1)),
        np.nextafter(_HALVES, np.float32(1)),
        np.float32([0.49999997 / 32768, -0.49999997 / 32768, 32767.5 / 32768, -32767.5 / 32768, 1.0, -1.0]),
        np.float32([0.999, -0.999, 0.25, -0.25, 1 / 3, -1 / 3]),
    ]
)
_OUT_OF_RANGE = np.float32([1.5, -1.5, 1.0001, -1.0001, 3e38, -3e38, np.inf, -np.inf, np.nan, 0.5])


def _triangle(frames: int, channels: int) -> np.ndarray:
    """A tone per channel, computed exactly (no libm) so it is the same everywhere."""
    phase = (np.arange(frames)[:, None] * np.arange(1, channels + 1) * 16) % 256
    return (np.abs(phase - 128) / 160 - 0.4).astype(np.float32)


# (tag, data, sample_rate, max_outputs, description)
AUDIO_CASES = [
    ("mono/tone", _triangle(441, 1)[None], 44100, 3, None),
    ("ties", _TIES[None, :, None], 8000, 3, None),
    ("out_of_range", _OUT_OF_RANGE[None, :, None], 8000, 3, None),
    ("uniform", _uniform((2, 1000, 1)), 22050, 3, None),
    ("channels/2", _triangle(100, 2)[None].repeat(2, axis=0), 16000, 3, None),
    ("channels/3", _uniform((3, 50, 3)), 16000, 3, None),
    ("max_outputs/default_of_4", _uniform((4, 20, 1)), 8000, 3, None),
    ("max_outputs/0", _uniform((3, 20, 1)), 8000, 0, None),
    ("max_outputs/1", _uniform((3, 20, 1)), 8000, 1, None),
    ("max_outputs/more_than_k", _uniform((3, 20, 1)), 8000, 5, None),
    ("empty/batch", np.zeros((0, 10, 1), np.float32), 8000, 3, None),
    ("empty/clips", np.zeros((2, 0, 1), np.float32), 8000, 3, None),
    ("rank/1_is_one_mono_clip", _uniform(30), 8000, 3, None),
    ("rank/2_is_one_clip", _uniform((30, 2)), 8000, 3, None),
    ("float64_as_float32", _uniform((1, 40, 1)).astype(np.float64) / 3, 8000, 3, None),
    ("sample_rate/int64", _uniform((1, 10, 1)), np.int64(48000), 3, None),
    ("described", _triangle(80, 1)[None], 8000, 3, "A *tone*."),
    ("ünïcode/tag", _triangle(80, 1)[None], 8000, 3, "déscription"),
]

# (tag, data, description)
TEXT_CASES = [
    ("str", "hello *world*", None),
    ("unicode", "héllo wörld ✓ 日本語 🎉", None),
    ("bytes", b"raw bytes", None),
    ("bytes/not_utf8", b"\xff\xfe\x00a", None),
    ("str/empty", "", None),
    ("str/trailing_nul", "a\x00", None),
    ("markdown", "# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\ncode\n```", None),
    ("list", ["a", "b", "c"], None),
    ("list/mixed_str_bytes", ["a", b"b"], None),
    ("rank2/table", [["a", "b"], ["c", "dé"]], None),
    ("rank3", np.full((2, 1, 2), "z"), None),
    ("numpy/unicode", np.array(["x", "yy", "ü"]), None),
    ("numpy/bytes", np.array([b"x", b"yy"]), None),
    ("numpy/object", np.array(["x", b"y"], dtype=object), None),
    ("numpy/empty", np.array([], dtype=str), None),
    ("numpy/empty_2d", np.zeros((0, 3), dtype="U1"), None),
    ("described", "text", "A *description*."),
    ("ünïcode/tag", "text", "déscription"),
]
