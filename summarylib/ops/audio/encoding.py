"""The audio op's encoding: WAV clips in a string tensor for TensorBoard's audio plugin.

As TensorFlow 2's `tf.summary.audio` writes it: a `DT_STRING` tensor of shape `[n, 2]`,
one row `(WAV bytes, empty label)` for each of the first `n = min(k, max_outputs)` clips
of a `[k, t, c]` batch, and metadata naming the `audio` plugin with
`AudioPluginData{encoding: WAV}`. The WAV files are 16-bit PCM with the samples TF's
`encode_wav` computes: `x * 32768` in float32, rounded half away from zero, clamped to
[-32768, 32767], NaN written as 0.

Where summarylib accepts more than TF: `[t, c]` and `[t]` data are one clip; float16 and
float64 samples are rounded to float32 first (TF takes float32 only); a sample rate may
be an integral float such as 44100.0. Samples outside [-1, 1] (and NaN) are clipped as
in TF, with a RuntimeWarning the first time a tag has any (raised on the caller's thread,
at the user's line: see summarylib.writer.context.warn_user). Integer samples are rejected,
as in TF: their scale (16-bit PCM or not) is unknown.
"""

from __future__ import annotations

import functools
import operator
import struct
from typing import Any

import numpy as np

from summarylib.format.tensor import make_tensor_proto
from summarylib.ops.batch import as_batch, check_max_outputs, first, string_tensor_summary
from summarylib.ops.convert import as_array, as_float
from summarylib.ops.errors import check_description, op_error
from summarylib.proto import plugin_data_pb2, summary_pb2, tensor_pb2
from summarylib.writer.context import warn_user_once

PLUGIN_NAME = "audio"

_AXES = ("k", "t", "c")
_UINT32_END = 1 << 32
_BYTES_PER_SAMPLE = 2
# RIFF header, "fmt " chunk of 16-bit PCM, "data" chunk header: 44 bytes, little-endian.
_WAV_HEADER = struct.Struct("<4sI4s4sIHHIIHH4sI")
_HEADER_SIZE_IN_RIFF = _WAV_HEADER.size - 8
# The bits of the largest float32 below 0.5, and of a float32's sign; see to_pcm16.
_JUST_BELOW_HALF_BITS = np.nextafter(np.float32(0.5), np.float32(0)).view(np.uint32)
_SIGN_BIT = np.uint32(1 << 31)


def create_metadata(description: str | None = None) -> summary_pb2.SummaryMetadata:
    """The audio plugin's metadata: AudioPluginData{version: 0, encoding: WAV}."""
    metadata = summary_pb2.SummaryMetadata(summary_description=description or "")
    metadata.plugin_data.plugin_name = PLUGIN_NAME
    metadata.plugin_data.content = plugin_data_pb2.AudioPluginData(
        version=0, encoding=plugin_data_pb2.AudioPluginData.WAV
    ).SerializeToString()
    return metadata


def prepare(
    tag: str, data: Any, sample_rate: Any, max_outputs: Any, encoding: Any, description: str | None
) -> tuple[str, np.ndarray, int, str | None]:
    """Validate on the caller's thread; keep a private copy of the clips to write.

    Returns `(tag, clips, sample_rate, description)` for `summary`.
    """
    if encoding is not None and (not isinstance(encoding, str) or encoding != "wav"):
        raise op_error(ValueError, "audio", tag, "encoding", f"expected None or 'wav', got {encoding!r}")
    rate = _check_sample_rate(tag, sample_rate)
    count = check_max_outputs("audio", tag, max_outputs)
    check_description("audio", tag, description)
    array = as_array("audio", tag, "data", data)
    if array.dtype.kind != "f":
        raise op_error(
            TypeError,
            "audio",
            tag,
            "data",
            f"expected floating-point samples in [-1, 1], got dtype {array.dtype}"
            " (divide 16-bit integer PCM by 32768)",
        )
    batch = as_batch("audio", tag, array, _AXES)
    if not 0 < batch.shape[2] < 1 << 16:
        raise op_error(
            ValueError,
            "audio",
            tag,
            "data",
            f"expected 1 to 65535 channels (last dimension), got shape {list(array.shape)}",
        )
    _check_wav_limits(tag, batch.shape, rate)
    return tag, first(batch, count, data), rate, description


def _check_sample_rate(tag: str, sample_rate: Any) -> int:
    """The sample rate as a positive int that a WAV header holds (below 2**32)."""
    rate = None
    if not isinstance(sample_rate, (bool, np.bool_)):
        try:
            rate = operator.index(sample_rate)
        except TypeError:
            rate = _integral(tag, sample_rate)
    if rate is None or not 0 < rate < _UINT32_END:
        raise op_error(
            ValueError,
            "audio",
            tag,
            "sample_rate",
            f"expected a positive integer number of samples per second, got "
            f"{type(sample_rate).__name__} {sample_rate!r}",
        )
    return rate


def _integral(tag: str, value: Any) -> int | None:
    """A real number's value if it is a whole number (44100.0), else None."""
    try:
        number = as_float("audio", tag, "sample_rate", value)
    except (TypeError, ValueError):
        return None
    return int(number) if number.is_integer() else None


def _check_wav_limits(tag: str, shape: tuple[int, ...], rate: int) -> None:
    """A WAV header holds byte counts and byte rates in 32 bits."""
    _, frames, channels = shape
    if rate * channels * _BYTES_PER_SAMPLE >= _UINT32_END:
        problem = f"{rate} samples per second of {channels} channels is too fast for a WAV header"
    elif _HEADER_SIZE_IN_RIFF + frames * channels * _BYTES_PER_SAMPLE >= _UINT32_END:
        problem = f"clips of {frames} frames of {channels} channels are too long for a WAV file"
    else:
        return
    raise op_error(ValueError, "audio", tag, "data", problem)


def summary(tag: str, clips: np.ndarray, sample_rate: int, description: str | None) -> bytes:
    """The serialized Summary of prepared clips (on the writer's thread)."""
    strings = audio_strings(tag, clips, sample_rate)
    return string_tensor_summary(tag, (len(clips), 2), strings, _serialized_metadata(description))


@functools.lru_cache(maxsize=64)
def _serialized_metadata(description: str | None) -> bytes:
    """`create_metadata(description)`'s bytes, made once per description: building the
    protos each call cost a tenth of the writer thread's time on a second of audio."""
    return create_metadata(description).SerializeToString()


def encode(
    tag: str,
    data: Any,
    sample_rate: Any,
    max_outputs: Any = 3,
    encoding: str | None = None,
    description: str | None = None,
) -> tuple[tensor_pb2.TensorProto, summary_pb2.SummaryMetadata]:
    """The tensor and metadata `tf.summary.audio(tag, data, ...)` would write, without I/O."""
    _, clips, rate, description = prepare(tag, data, sample_rate, max_outputs, encoding, description)
    rows = np.array(audio_strings(tag, clips, rate), dtype=object).reshape(len(clips), 2)
    return make_tensor_proto(rows), create_metadata(description)


def audio_strings(tag: str, clips: np.ndarray, sample_rate: int) -> list[bytes]:
    """The elements of the `[n, 2]` string tensor of `[n, t, c]` clips, row by row: each
    clip's WAV file and an empty label. Warns once per tag when samples were clipped."""
    pcm, clipped = to_pcm16(clips)
    if clipped:
        warn_user_once(
            "audio",
            tag,
            f"summarylib.audio: tag {tag!r:.200}: samples outside [-1, 1] (or NaN) were clipped "
            "(NaN written as 0); reported once per tag",
        )
    strings: list[bytes] = []
    for clip in pcm:
        strings += (wav_bytes(clip, sample_rate), b"")
    return strings


def to_pcm16(samples: np.ndarray) -> tuple[np.ndarray, bool]:
    """Float samples as int16 PCM, as TF's `encode_wav` computes them, and whether any
    sample was outside [-1, 1] or NaN."""
    with np.errstate(over="ignore"):
        scaled = np.multiply(samples, np.float32(32768), dtype=np.float32)
    highest = scaled.max() if scaled.size else 0
    clipped = scaled.size > 0 and not (scaled.min() >= -32768 and highest <= 32768)
    if clipped:
        np.nan_to_num(scaled, copy=False, nan=0.0)
        np.clip(scaled, -32768, 32767, out=scaled)
    elif highest > 32767:
        # Samples in [-1, 1] only need 1.0 (32768) brought into int16: a pass of its own
        # only where one may be that high (np.clip's pass was a quarter of the time).
        np.minimum(scaled, np.float32(32767), out=scaled)
    # Round half away from zero (C's roundf) by adding ±0.49999997 (the float32 just below
    # 0.5, with the sample's sign, set by bit operations: copysign is several times
    # slower) and truncating. Exact for every float32 in this range, where adding 0.5
    # itself would round 0.49999997 up to 1.
    offset = scaled.view(np.uint32) & _SIGN_BIT
    offset |= _JUST_BELOW_HALF_BITS
    scaled += offset.view(np.float32)
    return scaled.astype(np.int16), clipped


def wav_bytes(pcm: np.ndarray, sample_rate: int) -> bytes:
    """A WAV file of `[t, c]` int16 PCM samples."""
    frames, channels = pcm.shape
    data_size = frames * channels * _BYTES_PER_SAMPLE
    block_align = channels * _BYTES_PER_SAMPLE
    header = _WAV_HEADER.pack(
        b"RIFF",
        _HEADER_SIZE_IN_RIFF + data_size,
        b"WAVE",
        b"fmt ",
        16,  # size of the fmt chunk
        1,  # PCM
        channels,
        sample_rate,
        sample_rate * block_align,
        block_align,
        8 * _BYTES_PER_SAMPLE,
        b"data",
        data_size,
    )
    return b"".join((header, np.ascontiguousarray(pcm, dtype="<i2").data))  # one copy of the samples


def encode_wav(samples: np.ndarray, sample_rate: int) -> bytes:
    """A WAV file of `[t, c]` float samples in [-1, 1], clipped silently."""
    return wav_bytes(to_pcm16(samples)[0], sample_rate)
