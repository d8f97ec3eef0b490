"""One `Summary.Value` as plain data: `decode_value`, and the `Images`, `Audio` and `PrCurve`
it returns; `value_problem`, why a forged one cannot be decoded.

Whatever wrote the value: the v2 tensor encodings of TensorBoard's plugins and the legacy v1
fields (`simple_value`, `histo`, `image`, `audio`), which TensorBoard migrates to the same
plugins. The general path, one value at a time, as values are handed out.
"""

from __future__ import annotations

import functools
import io
from dataclasses import dataclass
from typing import Any

import numpy as np

from summarylib.proto import histogram_pb2, summary_pb2, tensor_pb2
from summarylib.reading.plugins import layout_problem
from summarylib.reading.tensors import dtype_name, read_tensor, tensor_problem, tensor_shape

PR_CURVE_ROWS = (
    "true_positives",
    "false_positives",
    "true_negatives",
    "false_negatives",
    "precision",
    "recall",
)


@dataclass(frozen=True)
class Images:
    """The images of one summary value (PNG or JPEG bytes), decoded only when asked.

    `width` and `height` are those the writer declared for the batch.
    """

    width: int
    height: int
    encoded: tuple[bytes, ...]

    def __len__(self) -> int:
        return len(self.encoded)

    def array(self, index: int = 0) -> np.ndarray:
        """Image `index` as a `[height, width, channels]` uint8 array (decoded with pillow)."""
        from PIL import Image

        with Image.open(io.BytesIO(self.encoded[index])) as image:
            if image.mode not in ("L", "LA", "RGB", "RGBA"):
                image = image.convert("RGBA" if "transparency" in image.info else "RGB")
            pixels = np.asarray(image)
        return pixels[..., np.newaxis] if pixels.ndim == 2 else pixels

    def arrays(self) -> list[np.ndarray]:
        """Every image, decoded."""
        return [self.array(i) for i in range(len(self))]


@dataclass(frozen=True)
class Audio:
    """The clips of one summary value (WAV bytes and labels), decoded only when asked."""

    encoded: tuple[bytes, ...]
    labels: tuple[str, ...]
    # Legacy `Summary.Audio` values declare their rate; v2 ones keep it only in the WAV header.
    declared_sample_rate: float | None = None

    def __len__(self) -> int:
        return len(self.encoded)

    @functools.cached_property
    def sample_rate(self) -> float:
        """Samples per second: as declared, else read from the first clip's header."""
        if self.declared_sample_rate:
            return self.declared_sample_rate
        import soundfile

        return float(soundfile.info(io.BytesIO(self.encoded[0])).samplerate)

    def samples(self, index: int = 0) -> np.ndarray:
        """Clip `index` as a `[frames, channels]` float32 array in [-1, 1] (soundfile)."""
        import soundfile

        data, _ = soundfile.read(io.BytesIO(self.encoded[index]), dtype="float32", always_2d=True)
        return data


@dataclass(frozen=True)
class PrCurve:
    """A precision-recall curve: `data` holds the six rows of `PR_CURVE_ROWS` at `thresholds`."""

    data: np.ndarray

    @property
    def thresholds(self) -> np.ndarray:
        """The thresholds of the columns, evenly spaced over [0, 1] as TensorBoard draws them."""
        return np.linspace(0.0, 1.0, self.data.shape[1])

    def as_dict(self) -> dict[str, np.ndarray]:
        """The six rows by name, and the thresholds."""
        rows = dict(zip(PR_CURVE_ROWS, self.data, strict=True))
        rows["thresholds"] = self.thresholds
        return rows


# numpy's str arrays give every element the width of the longest: one long string among many
# short ones would take far more memory than the text. Past this many times the text's length
# (plus a little), text arrays hold Python str objects instead.
_STR_WIDTH_FACTOR = 8
_STR_WIDTH_SLACK = 4096


def _strings(array: np.ndarray) -> np.ndarray:
    """An object array of bytes as a numpy array of str (UTF-8, undecodable bytes replaced):
    of numpy's fixed-width str dtype, or of objects when that would take much more memory than
    the text (see `_STR_WIDTH_FACTOR`)."""
    texts = [b.decode("utf-8", "replace") for b in array.reshape(-1)]
    lengths = [len(text) for text in texts]
    if len(texts) * max(lengths, default=0) <= _STR_WIDTH_FACTOR * sum(lengths) + _STR_WIDTH_SLACK:
        return np.array(texts, dtype=str).reshape(array.shape)
    objects = np.empty(len(texts), object)
    objects[:] = texts
    return objects.reshape(array.shape)


def legacy_histogram(histo: histogram_pb2.HistogramProto) -> np.ndarray:
    """A v1 HistogramProto as a `[k, 3]` float64 array of (left, right, count) buckets.

    As TensorBoard's data_compat converts it: empty buckets at both ends are dropped and the
    outer edges (often -DBL_MAX and DBL_MAX) become the data's min and max. TensorBoard keeps
    float32; this keeps float64, so edges are exactly the written ones.
    """
    counts = np.asarray(histo.bucket, dtype=np.float64)
    filled = np.flatnonzero(counts > 0)
    if not filled.size:
        return np.zeros((0, 3))
    start, end = int(filled[0]), int(filled[-1])
    inner = np.asarray(histo.bucket_limit[start:end], dtype=np.float64)
    lefts = np.concatenate([[histo.min], inner])
    rights = np.concatenate([inner, [histo.max]])
    return np.stack([lefts, rights, counts[start : end + 1]], axis=1)


def _plugin_data(plugin: str, array: np.ndarray) -> Any:
    """A tensor that fits `plugin`'s layout as that plugin's data."""
    if plugin == "scalars":
        return float(array.reshape(-1)[0])
    if plugin == "histograms":
        return array.astype(np.float64)
    if plugin == "images":
        return Images(int(array[0]), int(array[1]), tuple(array[2:].tolist()))
    if plugin == "audio":
        labels = tuple(label.decode("utf-8", "replace") for label in array[:, 1].tolist())
        return Audio(tuple(array[:, 0].tolist()), labels)
    if plugin == "text":
        text = _strings(array)
        return str(text[()]) if text.ndim == 0 else text
    if plugin == "pr_curves":
        return PrCurve(array.astype(np.float64))
    return array


def _leading_strings(tensor: tensor_pb2.TensorProto, count: int) -> list[bytes]:
    """The first `count` strings of a string tensor as `tensor_array` fills them."""
    strings = tensor.string_val
    last = strings[-1] if strings else b""
    return [strings[i] if i < len(strings) else last for i in range(count)]


def value_problem(value: summary_pb2.Summary.Value, plugin: str) -> str | None:
    """Why `decode_value(value, plugin)` cannot decode `value`, or None.

    A forged or damaged value: a tensor that `tensor_problem` rejects, an images tensor whose
    first two strings (width and height) are not integers, a legacy histogram with fewer bucket
    limits than its buckets need. O(1) for most values: it reads no tensor's data.
    """
    kind = value.WhichOneof("value")
    if kind == "histo":
        return _histogram_problem(value.histo)
    if kind == "tensor":
        return _tensor_problem(value.tensor, tensor_shape(value.tensor), plugin)
    return None


def _histogram_problem(histo: histogram_pb2.HistogramProto) -> str | None:
    if len(histo.bucket_limit) < len(histo.bucket) - 1:
        return f"histogram of {len(histo.bucket)} buckets has {len(histo.bucket_limit)} limits"
    return None


def _tensor_problem(tensor: tensor_pb2.TensorProto, shape: tuple[int, ...], plugin: str) -> str | None:
    problem = tensor_problem(tensor, shape)
    if problem or plugin != "images" or layout_problem(plugin, dtype_name(tensor.dtype), shape):
        return problem
    for size in _leading_strings(tensor, 2):
        try:
            int(size)
        except ValueError:
            return f"image width or height {size[:20]!r} is not an integer"
    return None


def decode_tensor(tensor: tensor_pb2.TensorProto, plugin: str) -> Any:
    """A v2 tensor summary as plain data: the plugin's data when the tensor fits the plugin's
    layout (see `layout_problem`), else the numpy array. ValueError for a tensor that cannot
    be decoded (see `value_problem`)."""
    shape = tensor_shape(tensor)
    problem = _tensor_problem(tensor, shape, plugin)
    if problem:
        raise ValueError(problem)
    if layout_problem(plugin, dtype_name(tensor.dtype), shape):
        return read_tensor(tensor, shape)
    return _plugin_data(plugin, read_tensor(tensor, shape))


def decode_value(value: summary_pb2.Summary.Value, plugin: str) -> Any:
    """One summary value as plain data.

    scalars: float. histograms: `[k, 3]` float64 array of (left, right, count). images: `Images`.
    audio: `Audio`. text: str, or a numpy array of str. pr_curves: `PrCurve`. Any other
    tensor: its numpy array. `plugin` is the one TensorBoard assigns the value's tag.
    ValueError for a value that cannot be decoded (saying why, as `value_problem` does).
    """
    kind = value.WhichOneof("value")
    if kind == "simple_value":
        return value.simple_value
    if kind == "histo":
        problem = _histogram_problem(value.histo)
        if problem:
            raise ValueError(problem)
        return legacy_histogram(value.histo)
    if kind == "image":
        image = value.image
        return Images(image.width, image.height, (image.encoded_image_string,))
    if kind == "audio":
        audio = value.audio
        return Audio((audio.encoded_audio_string,), ("",), audio.sample_rate or None)
    if kind == "tensor":
        return decode_tensor(value.tensor, plugin)
    raise ValueError(f"value of tag {value.tag!r} holds no data")


def value_type(value: summary_pb2.Summary.Value) -> tuple[str, tuple[int, ...]]:
    """(dtype, shape) of a value's data; legacy fields are named by their field."""
    kind = value.WhichOneof("value")
    if kind == "tensor":
        return dtype_name(value.tensor.dtype), tensor_shape(value.tensor)
    if kind == "simple_value":
        return "float32", ()
    return kind or "none", ()
