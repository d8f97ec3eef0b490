"""What the records of an event file mean: summary values as plain Python and numpy.

Two halves. `decode_value` turns one `Summary.Value` into plain data, whatever wrote it: the
v2 tensor encodings of TensorBoard's plugins and the legacy v1 fields (`simple_value`,
`histo`, `image`, `audio`), which TensorBoard migrates to the same plugins.

`decode_records` turns the records of a stretch of a file into `Rows`, one per summary value,
and is the reader's hot path. A protobuf message per event costs microseconds, so scalar
events are recognized at the byte level instead: records of one length whose bytes agree
everywhere except in the wall time, step and value of one parsed example (a "scalar shape")
have the example's structure, so those three fields are read for all of them at once with
numpy. Every other record is parsed with protobuf; both paths give the same values.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from google.protobuf.message import DecodeError

from summarylib.ops.tensor import NUMPY_DTYPES
from summarylib.proto import event_pb2, histogram_pb2, summary_pb2, tensor_pb2, types_pb2

if TYPE_CHECKING:
    from summarylib.reader import Records

# Plugins of the legacy value fields, as TensorBoard's data_compat migrates them.
LEGACY_PLUGINS = {"simple_value": "scalars", "histo": "histograms", "image": "images", "audio": "audio"}
# The value fields that carry data (the obsolete old-style histogram is ignored, as by TensorBoard).
DATA_KINDS = ("simple_value", "histo", "image", "audio", "tensor")

# Plugins that ship with TensorBoard 2.x.
TENSORBOARD_PLUGINS = frozenset(
    {
        "audio",
        "custom_scalars",
        "graph_keras_model",
        "graph_run_metadata",
        "graph_run_metadata_graph",
        "graph_tagged_run_metadata",
        "graphs",
        "histograms",
        "hparams",
        "images",
        "mesh",
        "pr_curves",
        "projector",
        "scalars",
        "text",
    }
)

PR_CURVE_ROWS = (
    "true_positives",
    "false_positives",
    "true_negatives",
    "false_negatives",
    "precision",
    "recall",
)


# Decoded values -------------------------------------------------------------------------


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


# Tensors ------------------------------------------------------------------------------

_VALUE_FIELDS = {
    types_pb2.DT_FLOAT: "float_val",
    types_pb2.DT_DOUBLE: "double_val",
    types_pb2.DT_INT32: "int_val",
    types_pb2.DT_INT16: "int_val",
    types_pb2.DT_INT8: "int_val",
    types_pb2.DT_UINT8: "int_val",
    types_pb2.DT_UINT16: "int_val",
    types_pb2.DT_INT64: "int64_val",
    types_pb2.DT_UINT32: "uint32_val",
    types_pb2.DT_UINT64: "uint64_val",
    types_pb2.DT_BOOL: "bool_val",
    types_pb2.DT_HALF: "half_val",
    types_pb2.DT_BFLOAT16: "half_val",
}


def dtype_name(dtype: int) -> str:
    """A DataType as numpy names it ("float32", ...), or "string" / "bfloat16"."""
    if dtype == types_pb2.DT_STRING:
        return "string"
    if dtype == types_pb2.DT_BFLOAT16:
        return "bfloat16"
    if dtype in NUMPY_DTYPES:
        return NUMPY_DTYPES[dtype].name
    return types_pb2.DataType.Name(dtype) if dtype in types_pb2.DataType.values() else f"dtype {dtype}"


def tensor_shape(tensor: tensor_pb2.TensorProto) -> tuple[int, ...]:
    """The shape of a TensorProto."""
    return tuple(dim.size for dim in tensor.tensor_shape.dim)


def _fill(values: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """`values` as an array of `shape`, padded with its last value as TensorFlow does (zeros when
    empty)."""
    count = int(np.prod(shape, dtype=np.int64))
    if values.size > count:
        raise ValueError(f"{values.size} values for a tensor of shape {list(shape)}")
    if values.size < count:
        pad = values[-1] if values.size else np.zeros((), values.dtype)
        values = np.concatenate([values, np.full(count - values.size, pad, values.dtype)])
    return values.reshape(shape)


def _bfloat16(bits: np.ndarray) -> np.ndarray:
    """bfloat16 bit patterns as float32 (numpy has no bfloat16)."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


def tensor_array(tensor: tensor_pb2.TensorProto) -> np.ndarray:
    """A TensorProto as a numpy array, as TensorFlow's `make_ndarray` reads it: the values
    fields padded with their last value (zeros when empty), `tensor_content` exactly.

    Strings come back as an object array of `bytes`, bfloat16 as float32.
    ValueError for a dtype numpy cannot hold or contents that do not fit the shape.
    """
    shape = tensor_shape(tensor)
    dtype = tensor.dtype
    if dtype == types_pb2.DT_STRING:
        values = np.empty(len(tensor.string_val), dtype=object)
        values[:] = list(tensor.string_val)
        return _fill(values, shape)
    if dtype == types_pb2.DT_BFLOAT16:
        bits = (
            np.frombuffer(tensor.tensor_content, "<u2")
            if tensor.tensor_content
            else np.array(tensor.half_val, np.uint16)
        )
        return _fill(_bfloat16(bits), shape)
    if dtype not in NUMPY_DTYPES:
        raise ValueError(f"cannot read a tensor of {dtype_name(dtype)}")
    numpy_dtype = NUMPY_DTYPES[dtype]
    if tensor.tensor_content:
        flat = np.frombuffer(tensor.tensor_content, numpy_dtype.newbyteorder("<")).astype(numpy_dtype)
        if flat.size != int(np.prod(shape, dtype=np.int64)):
            raise ValueError(f"tensor_content holds {flat.size} values for a tensor of shape {list(shape)}")
        return flat.reshape(shape)
    if dtype == types_pb2.DT_HALF:
        flat = np.array(tensor.half_val, np.uint16).view(np.float16)
    elif dtype in _VALUE_FIELDS:
        flat = np.array(getattr(tensor, _VALUE_FIELDS[dtype]), numpy_dtype)
    else:
        raise ValueError(f"a tensor of {dtype_name(dtype)} needs tensor_content")
    return _fill(flat, shape)


def _strings(array: np.ndarray) -> np.ndarray:
    """An object array of bytes as a numpy array of str (UTF-8, undecodable bytes replaced)."""
    return np.array([b.decode("utf-8", "replace") for b in array.reshape(-1)], dtype=str).reshape(array.shape)


# Plugin layouts -------------------------------------------------------------------------


def layout_problem(plugin: str, dtype: str, shape: tuple[int, ...]) -> str | None:
    """Why TensorBoard's `plugin` cannot show a tensor of `dtype` and `shape`, or None.

    Tensors that fail are decoded as plain numpy arrays rather than as the plugin's data.
    """
    numeric = dtype != "string"
    checks = {
        "scalars": (numeric and int(np.prod(shape)) == 1, "a numeric tensor of one element"),
        "histograms": (numeric and len(shape) == 2 and shape[1] == 3, "a numeric [k, 3] tensor"),
        "images": (not numeric and len(shape) == 1 and shape[0] >= 2, "a string [2 + k] tensor"),
        "audio": (not numeric and len(shape) == 2 and shape[1] == 2, "a string [k, 2] tensor"),
        "text": (not numeric, "a string tensor"),
        "pr_curves": (numeric and len(shape) == 2 and shape[0] == 6, "a numeric [6, n] tensor"),
    }
    if plugin not in checks:
        return None
    fits, expected = checks[plugin]
    return None if fits else f"the {plugin} plugin expects {expected}, not {dtype} {list(shape)}"


def plugin_problem(plugin: str) -> str | None:
    """Why TensorBoard shows a tensor summary of `plugin` on no dashboard, or None."""
    if not plugin:
        return "no plugin named in its metadata: TensorBoard shows it on no dashboard"
    if plugin not in TENSORBOARD_PLUGINS:
        return f"plugin {plugin!r} is not one TensorBoard ships: no built-in dashboard shows it"
    return None


# Values ---------------------------------------------------------------------------------


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


def decode_tensor(tensor: tensor_pb2.TensorProto, plugin: str) -> Any:
    """A v2 tensor summary as plain data: the plugin's data when the tensor fits the plugin's
    layout (see `layout_problem`), else the numpy array."""
    array = tensor_array(tensor)
    if layout_problem(plugin, dtype_name(tensor.dtype), array.shape):
        return array
    return _plugin_data(plugin, array)


def decode_value(value: summary_pb2.Summary.Value, plugin: str) -> Any:
    """One summary value as plain data.

    scalars: float. histograms: `[k, 3]` float64 array of (left, right, count). images: `Images`.
    audio: `Audio`. text: str, or a numpy array of str. pr_curves: `PrCurve`. Any other
    tensor: its numpy array. `plugin` is the one TensorBoard assigns the value's tag.
    """
    kind = value.WhichOneof("value")
    if kind == "simple_value":
        return value.simple_value
    if kind == "histo":
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


def plugin_claim(value: summary_pb2.Summary.Value) -> str | None:
    """The plugin a value assigns its tag when its tag has none yet (legacy fields migrate to
    their plugin's metadata, as in TensorBoard), or None when it carries no metadata."""
    kind = value.WhichOneof("value")
    if kind in LEGACY_PLUGINS:
        return LEGACY_PLUGINS[kind]
    if value.HasField("metadata"):
        return value.metadata.plugin_data.plugin_name
    return None


def value_type(value: summary_pb2.Summary.Value) -> tuple[str, tuple[int, ...]]:
    """(dtype, shape) of a value's data; legacy fields are named by their field."""
    kind = value.WhichOneof("value")
    if kind == "tensor":
        return dtype_name(value.tensor.dtype), tensor_shape(value.tensor)
    if kind == "simple_value":
        return "float32", ()
    return kind or "none", ()


# Scalar shapes: the byte-level fast path ------------------------------------------------


def _varint(data: bytes, pos: int, end: int) -> tuple[int, int]:
    """A base-128 varint at `pos`: (value, position after it); ValueError if cut short."""
    result = shift = 0
    while pos < end and shift < 70:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
    raise ValueError("bad varint")


def _fields(data: bytes, start: int, end: int) -> dict[int, tuple[int, int, int]]:
    """{field number: (wire type, value start, value end)} of a message in `data[start:end]`;
    ValueError if it is malformed or repeats a field."""
    fields = {}
    pos = start
    while pos < end:
        key, pos = _varint(data, pos, end)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value_start, (_, pos) = pos, _varint(data, pos, end)
        elif wire in (1, 5):
            value_start, pos = pos, pos + (8 if wire == 1 else 4)
        elif wire == 2:
            length, value_start = _varint(data, pos, end)
            pos = value_start + length
        else:
            raise ValueError("unexpected wire type")
        if pos > end or number in fields:
            raise ValueError("field cut short or repeated")
        fields[number] = (wire, value_start, pos)
    return fields


def _only(fields: dict, allowed: dict[int, int]) -> bool:
    """Whether every field is one of `allowed` ({number: wire type}) with its wire type."""
    return all(allowed.get(number) == wire for number, (wire, _, _) in fields.items())


# Where a float32/float64 scalar TensorProto keeps its value: {dtype: {(field, wire type): size}}
# for tensor_content, packed float_val/double_val and unpacked float_val/double_val.
_SCALAR_VALUE_FIELDS = {
    types_pb2.DT_FLOAT: {(4, 2): 4, (5, 2): 4, (5, 5): 4},
    types_pb2.DT_DOUBLE: {(4, 2): 8, (6, 2): 8, (6, 1): 8},
}


def _tensor_value_column(payload: bytes, start: int, end: int) -> tuple[int, np.dtype] | None:
    """Where the one value of a float32/float64 TensorProto of shape [] lies, and its dtype;
    None for any other tensor."""
    fields = _fields(payload, start, end)
    if fields.get(1, (None,))[0] != 0 or fields.get(2, (2,))[0] != 2:
        return None
    dtype, _ = _varint(payload, fields[1][1], fields[1][2])
    if dtype not in _SCALAR_VALUE_FIELDS or (2 in fields and fields[2][1] != fields[2][2]):
        return None  # another dtype, or a shape with dimensions
    content = {number: spec for number, spec in fields.items() if number not in (1, 2)}
    if len(content) != 1:
        return None
    ((number, (wire, value_start, value_end)),) = content.items()
    size = _SCALAR_VALUE_FIELDS[dtype].get((number, wire))
    if size is None or value_end - value_start != size:
        return None
    return value_start, np.dtype("<f4" if size == 4 else "<f8")


@dataclass(frozen=True)
class ScalarShape:
    """The layout of one kind of scalar event: `Event{wall_time, step, summary{value{tag,
    simple_value or scalar tensor, metadata}}}` with nothing else, for one tag and one set of
    field positions. Records with the same bytes outside `variable` have the same meaning."""

    tag: str
    claim: str | None  # the plugin its value claims for the tag (see `plugin_claim`)
    kind: str  # "simple_value" or "tensor"
    length: int
    wall: int  # byte column of wall_time, -1 when absent
    step: tuple[int, int]  # byte column and width of the step varint, (-1, 0) when absent
    value: int  # byte column of the value
    dtype: np.dtype  # of the value: <f4 or <f8
    mask: np.ndarray = field(repr=False, compare=False)  # uint64 words: 1 bits where bytes are fixed
    pattern: np.ndarray = field(repr=False, compare=False)  # the fixed bytes, as masked words

    @property
    def variable(self) -> tuple:
        """The byte ranges that differ between records of this layout."""
        return (self.wall, self.step, self.value, self.dtype.itemsize)

    def varints_end_at_width(self, rows: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """Per row at `positions`, whether its step varint is exactly `step` bytes wide."""
        column, width = self.step
        if width == 0:
            return np.ones(len(positions), bool)
        ok = _columns(rows, positions, column + width - 1, 1)[:, 0] < 0x80
        if width > 1:
            ok &= (_columns(rows, positions, column, width - 1) >= 0x80).all(axis=1)
        return ok

    def columns(self, rows: np.ndarray, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(step int64, wall_time float64, value float64) of the rows at `positions`."""
        count = len(positions)
        wall = (
            _columns(rows, positions, self.wall, 8).view("<f8").reshape(count)
            if self.wall >= 0
            else np.zeros(count)
        )
        column, width = self.step
        step = np.zeros(count, np.uint64)
        if width:
            varint = _columns(rows, positions, column, width)
            for k in range(width):
                step |= (varint[:, k] & 0x7F).astype(np.uint64) << np.uint64(7 * k)
        size = self.dtype.itemsize
        value = _columns(rows, positions, self.value, size).view(self.dtype).reshape(count)
        return step.view(np.int64), wall.astype(np.float64), value.astype(np.float64)


def _columns(rows: np.ndarray, positions: np.ndarray, start: int, width: int) -> np.ndarray:
    """A contiguous copy of byte columns `start:start + width` of the rows at `positions`."""
    if len(positions) == len(rows):  # every row, in order
        return np.ascontiguousarray(rows[:, start : start + width])
    return rows[positions, start : start + width]


def _event_layout(payload: bytes) -> tuple[int, tuple[int, int], int, int] | None:
    """(wall column, step column and width, value start, value end) of a single-value summary
    event with nothing but wall_time, step and summary; None for any other event."""
    event = _fields(payload, 0, len(payload))
    if 5 not in event or not _only(event, {1: 1, 2: 0, 5: 2}):
        return None
    wall = event[1][1] if 1 in event else -1
    step = (event[2][1], event[2][2] - event[2][1]) if 2 in event else (-1, 0)
    summary = _fields(payload, event[5][1], event[5][2])
    if list(summary) != [1] or summary[1][0] != 2:
        return None
    return wall, step, summary[1][1], summary[1][2]


def scalar_shape(payload: bytes) -> ScalarShape | None:
    """The ScalarShape of an event that is one float32/float64 scalar of a named tag (as a
    simple_value or a tensor of shape []), or None for any other event."""
    try:
        layout = _event_layout(payload)
        if layout is None:
            return None
        wall, step, start, end = layout
        fields = _fields(payload, start, end)
        if not _only(fields, {1: 2, 2: 5, 8: 2, 9: 2}) or (2 in fields) == (8 in fields) or 1 not in fields:
            return None
        if 2 in fields:
            kind, column, dtype = "simple_value", fields[2][1], np.dtype("<f4")
        else:
            found = _tensor_value_column(payload, fields[8][1], fields[8][2])
            if found is None:
                return None
            kind, (column, dtype) = "tensor", found
        value = event_pb2.Event.FromString(payload).summary.value[0]
    except (ValueError, DecodeError):
        return None
    if not value.tag:
        return None
    return _make_shape(payload, value, kind, wall, step, column, dtype)


def _make_shape(
    payload: bytes,
    value: summary_pb2.Summary.Value,
    kind: str,
    wall: int,
    step: tuple[int, int],
    column: int,
    dtype: np.dtype,
) -> ScalarShape:
    """A ScalarShape whose fixed bytes are those of `payload`."""
    length = len(payload)
    width = (length + 7) // 8 * 8
    fixed = np.zeros(width, np.uint8)
    fixed[:length] = 0xFF
    for start, size in ((wall, 8 if wall >= 0 else 0), step, (column, dtype.itemsize)):
        fixed[start : start + size] = 0
    row = np.zeros(width, np.uint8)
    row[:length] = np.frombuffer(payload, np.uint8)
    mask = fixed.view("<u8")
    return ScalarShape(
        value.tag, plugin_claim(value), kind, length, wall, step, column, dtype, mask, row.view("<u8") & mask
    )


_SIMPLE_ROUNDS = 16  # layouts looked for one at a time in a group of records of one length
_MAX_LAYOUTS = 1024  # layouts looked for at once afterwards (many tags of one length)


def _hashes(words: np.ndarray, positions: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A 64-bit hash of the bytes under `mask` of each row at `positions`."""
    every_row = len(positions) == len(words)
    hashed = np.zeros(len(positions), np.uint64)
    for column, bits in enumerate(mask.tolist()):
        if bits:
            hashed *= np.uint64(0x9E3779B97F4A7C15)
            hashed ^= (words[:, column] if every_row else words[positions, column]) & np.uint64(bits)
    return hashed


def match_scalars(
    rows: np.ndarray, payload: Callable[[int], bytes]
) -> tuple[list[tuple[ScalarShape, np.ndarray]], np.ndarray]:
    """Split records of one length into scalar events by layout and the rest.

    `rows` holds one record payload per row (uint8, zero padded to a multiple of 8 bytes);
    `payload(i)` gives row i's bytes. Returns [(shape, row positions)] and the positions
    of the rows left to protobuf.
    """
    words = rows.view("<u8")
    everything = np.arange(len(rows))
    shape = scalar_shape(payload(0))
    if shape is not None and _fits(rows, words, everything, shape).all():
        return [(shape, everything)], everything[:0]  # one layout for them all: the common case
    found: list[tuple[ScalarShape, np.ndarray]] = []
    rest = [everything[:0]]
    for positions in _by_prefix(rows):
        more, left = _match_positions(rows, words, positions, payload)
        found += more
        rest.append(left)
    return found, np.sort(np.concatenate(rest))


def _by_prefix(rows: np.ndarray) -> list[np.ndarray]:
    """Row positions grouped by where the summary starts (whether there is a wall time, and
    how wide the step is), so that each group is likely to share one layout."""
    count, width = rows.shape
    everything = np.arange(count)
    if width < 24:
        return [everything]
    wall = rows[:, 0] == 0x09
    start = np.where(wall, 9, 0)
    step_width = np.zeros(count, np.int64)
    going = rows[everything, start] == 0x10
    for k in range(10):
        if not going.any():
            break
        step_width += going
        going &= rows[everything, start + 1 + k] >= 0x80
    key = wall * 16 + step_width
    if key.min() == key.max():
        return [everything]
    _, inverse = np.unique(key, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    return np.split(order, np.cumsum(np.bincount(inverse))[:-1])


def _match_positions(
    rows: np.ndarray, words: np.ndarray, positions: np.ndarray, payload: Callable[[int], bytes]
) -> tuple[list[tuple[ScalarShape, np.ndarray]], np.ndarray]:
    """`match_scalars` for the rows at `positions`. Round after round, the layout of the first
    undecided row is looked for among the rows with the same hash of its fixed bytes (one
    tag each); after `_SIMPLE_ROUNDS`, the rest is grouped by hash at once."""
    undecided = positions
    found: list[tuple[ScalarShape, np.ndarray]] = []
    rest: list[int] = []
    hashed, hashed_for = np.zeros(0, np.uint64), None
    for _ in range(_SIMPLE_ROUNDS):
        if not undecided.size:
            break
        shape = scalar_shape(payload(int(undecided[0])))
        if shape is None:
            rest.append(int(undecided[0]))
            undecided, hashed = undecided[1:], hashed[1:]
            continue
        if hashed_for != shape.variable:
            hashed, hashed_for = _hashes(words, undecided, shape.mask), shape.variable
        same = np.flatnonzero(hashed == hashed[0])
        fitting = same[_fits(rows, words, undecided[same], shape)]
        found.append((shape, undecided[fitting]))
        keep = np.ones(len(undecided), bool)
        keep[fitting] = False
        undecided, hashed = undecided[keep], hashed[keep]
    if undecided.size:
        undecided = _match_many(rows, words, undecided, payload, found)
    return found, np.concatenate([np.array(rest, np.int64), undecided]).astype(np.int64)


def _match_many(
    rows: np.ndarray,
    words: np.ndarray,
    undecided: np.ndarray,
    payload: Callable[[int], bytes],
    found: list[tuple[ScalarShape, np.ndarray]],
) -> np.ndarray:
    """The layouts of many tags at once: rows grouped by the hash of the fixed bytes of the
    first one's layout, each group tried with its first row's; appends to `found` and
    returns the rows left."""
    shape = scalar_shape(payload(int(undecided[0])))
    if shape is None:
        return undecided
    _, first, inverse = np.unique(
        _hashes(words, undecided, shape.mask), return_index=True, return_inverse=True
    )
    groups = np.split(np.argsort(inverse, kind="stable"), np.cumsum(np.bincount(inverse))[:-1])
    keep = np.ones(len(undecided), bool)
    for index in np.argsort(first)[:_MAX_LAYOUTS].tolist():
        group = undecided[groups[index]]
        candidate = scalar_shape(payload(int(group[0])))
        if candidate is not None and candidate.variable == shape.variable:
            fitting = _fits(rows, words, group, candidate)
            found.append((candidate, group[fitting]))
            keep[groups[index][fitting]] = False
    return undecided[keep]


def _fits(rows: np.ndarray, words: np.ndarray, positions: np.ndarray, shape: ScalarShape) -> np.ndarray:
    """Per row at `positions`, whether it has the layout of `shape`: its fixed bytes, and a
    step varint of the same width (a word at a time, so no temporary exceeds a column)."""
    every_row = len(positions) == len(words)
    fits = shape.varints_end_at_width(rows, positions)
    for column, (mask, pattern) in enumerate(zip(shape.mask.tolist(), shape.pattern.tolist(), strict=True)):
        if mask:
            word = words[:, column] if every_row else words[positions, column]
            fits &= (word & np.uint64(mask)) == np.uint64(pattern)
    return fits


# Records to rows --------------------------------------------------------------------------


class Names:
    """Interned tag and plugin names: rows hold small integer ids."""

    def __init__(self) -> None:
        self.tags: list[str] = []
        self.plugins: list[str] = [""]
        self._tag_ids: dict[str, int] = {}
        self._plugin_ids: dict[str, int] = {"": 0}

    def tag_id(self, tag: str) -> int:
        """The id of `tag`, new ones numbered in order of appearance."""
        found = self._tag_ids.get(tag)
        if found is None:
            found = self._tag_ids[tag] = len(self.tags)
            self.tags.append(tag)
        return found

    def plugin_id(self, plugin: str) -> int:
        """The id of `plugin` ("" is 0)."""
        found = self._plugin_ids.get(plugin)
        if found is None:
            found = self._plugin_ids[plugin] = len(self.plugins)
            self.plugins.append(plugin)
        return found


@dataclass
class RunState:
    """What reading a run remembers across its files: the plugin of each tag, from the first
    metadata seen for it (TF 1.x and tensorboardX write metadata only on a tag's first value)."""

    plugins: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Filters:
    """Which values to keep; None keeps all. Applied before values are decoded."""

    tags: Collection[str] | None = None
    plugins: Collection[str] | None = None


@dataclass
class Rows:
    """The summary values of a stretch of records, one row per value, in file order.

    Values of scalar events read at the byte level have their value in `number` and their
    layout in `shapes[shape]`; the others (`shape` -1) have their `Summary.Value` in `protos`,
    by row position.
    """

    record: np.ndarray  # int64: index of the value's record in its Records
    offset: np.ndarray  # int64: file offset of the value's record
    size: np.ndarray  # int64: bytes on disk attributed to the value
    tag: np.ndarray  # int32: id in Names.tags
    plugin: np.ndarray  # int32: id in Names.plugins
    step: np.ndarray  # int64
    wall_time: np.ndarray  # float64
    number: np.ndarray  # float64
    shape: np.ndarray  # int32: index into `shapes`, or -1
    shapes: list[ScalarShape]
    protos: dict[int, summary_pb2.Summary.Value]
    events: list[tuple[int, event_pb2.Event]] = field(default_factory=list)  # non-summary events
    conflicts: list[tuple[str, str, str]] = field(default_factory=list)  # (tag, kept, ignored plugin)
    bad: list[tuple[int, str]] = field(default_factory=list)  # (offset, why) of records that are no Event

    def __len__(self) -> int:
        return len(self.record)

    def take(self, keep: np.ndarray) -> Rows:
        """The rows at the positions (or boolean mask) `keep`, in that order."""
        if keep.dtype == bool and keep.all():
            return self
        positions = np.flatnonzero(keep) if keep.dtype == bool else keep
        protos = {}
        if self.protos:
            new_positions = np.full(len(self), -1, np.int64)
            new_positions[positions] = np.arange(len(positions))
            moved = new_positions[list(self.protos)].tolist()
            protos = {new: proto for new, proto in zip(moved, self.protos.values(), strict=True) if new >= 0}
        columns = {
            name: getattr(self, name)[positions]
            for name in ("record", "offset", "size", "tag", "plugin", "step", "wall_time", "number", "shape")
        }
        return Rows(
            **columns,
            shapes=self.shapes,
            protos=protos,
            events=self.events,
            conflicts=self.conflicts,
            bad=self.bad,
        )


@dataclass
class _Part:
    """Rows under construction: one scalar shape's, or the protobuf path's."""

    record: np.ndarray
    sub: np.ndarray
    tag: np.ndarray
    step: np.ndarray
    wall_time: np.ndarray
    number: np.ndarray
    size: np.ndarray
    shape: int
    protos: list | None = None
    claims: list[tuple[int, int, str, str]] = field(default_factory=list)  # (record, sub, tag, plugin)


def _scalar_parts(
    records: Records, names: Names, filters: Filters
) -> tuple[list[_Part], list[ScalarShape], np.ndarray]:
    """Parts for the scalar events found at the byte level, their shapes, and the indices of the
    records left to protobuf."""
    parts: list[_Part] = []
    shapes: list[ScalarShape] = []
    rest = [records.sparse_indices()]
    for length, indices, rows in records.dense_groups():
        found, left = match_scalars(rows, lambda i, indices=indices: records.payload(int(indices[i])))
        rest.append(indices[left])
        for shape, positions in found:
            if filters.tags is not None and shape.tag not in filters.tags:
                continue
            step, wall, number = shape.columns(rows, positions)
            count = len(positions)
            parts.append(
                _Part(
                    indices[positions],
                    np.zeros(count, np.int64),
                    np.full(count, names.tag_id(shape.tag), np.int32),
                    step,
                    wall,
                    number,
                    np.full(count, length + 16, np.int64),
                    len(shapes),
                )
            )
            shapes.append(shape)
    return parts, shapes, np.sort(np.concatenate(rest))


def _protobuf_part(
    records: Records, indices: np.ndarray, names: Names, filters: Filters, keep_events: bool
) -> tuple[_Part, list[tuple[int, event_pb2.Event]], list[tuple[int, str]]]:
    """The values of records parsed with protobuf; also their non-summary events (when
    `keep_events`) and the records that are not Events."""
    columns: tuple[list, ...] = ([], [], [], [], [], [], [])  # record, sub, tag, step, wall, size, proto
    claims: list[tuple[int, int, str, str]] = []
    events: list[tuple[int, event_pb2.Event]] = []
    bad: list[tuple[int, str]] = []
    for index in indices.tolist():
        try:
            event = event_pb2.Event.FromString(records.payload(index))
        except DecodeError as error:
            bad.append((records.offset(index), f"record is not an Event ({error})"))
            continue
        if not event.HasField("summary"):
            if keep_events:
                events.append((records.offset(index), event))
            continue
        _add_values(event, index, records.record_size(index), names, filters, columns, claims)
    record, sub, tag, step, wall, size, protos = columns
    part = _Part(
        np.array(record, np.int64),
        np.array(sub, np.int64),
        np.array(tag, np.int32),
        np.array(step, np.int64),
        np.array(wall, np.float64),
        np.full(len(record), np.nan),
        np.array(size, np.int64),
        -1,
        protos,
        claims,
    )
    return part, events, bad


def _add_values(
    event: event_pb2.Event,
    index: int,
    record_size: int,
    names: Names,
    filters: Filters,
    columns: tuple[list, ...],
    claims: list,
) -> None:
    """Append the data-carrying values of a summary event to `columns`, and its plugin claims."""
    values = event.summary.value
    overhead = (record_size - sum(v.ByteSize() for v in values)) // max(len(values), 1)
    for sub, value in enumerate(values):
        if filters.tags is not None and value.tag not in filters.tags:
            continue
        claim = plugin_claim(value)
        if claim is not None:
            claims.append((index, sub, value.tag, claim))
        if value.WhichOneof("value") not in DATA_KINDS:
            continue
        for column, item in zip(
            columns,
            (
                index,
                sub,
                names.tag_id(value.tag),
                event.step,
                event.wall_time,
                value.ByteSize() + overhead,
                value,
            ),
            strict=True,
        ):
            column.append(item)


def _apply_claims(
    parts: list[_Part], shapes: list[ScalarShape], state: RunState
) -> tuple[dict[str, tuple[int, int]], set[tuple[str, str, str]]]:
    """Give tags their plugins from the claims of this stretch, in file order, the first claim
    winning; returns from which (record, value) each newly known tag has its plugin, and the
    claims that lost to an earlier one as (tag, kept plugin, ignored plugin)."""
    claims = [claim for part in parts for claim in part.claims]
    claims += [
        (int(part.record[0]), 0, shapes[part.shape].tag, shapes[part.shape].claim)
        for part in parts
        if part.shape >= 0 and shapes[part.shape].claim is not None
    ]
    claims.sort(key=lambda claim: claim[:2])
    known_from: dict[str, tuple[int, int]] = {}
    conflicts: set[tuple[str, str, str]] = set()
    for record, sub, tag, plugin in claims:
        if tag not in state.plugins:
            state.plugins[tag] = plugin
            known_from[tag] = (record, sub)
        elif state.plugins[tag] != plugin:
            conflicts.add((tag, state.plugins[tag], plugin))
    return known_from, conflicts


def _plugin_ids(
    part: _Part,
    shapes: list[ScalarShape],
    names: Names,
    state: RunState,
    known_from: dict[str, tuple[int, int]],
) -> np.ndarray:
    """The plugin id of each row of `part`: its tag's plugin, for rows at or after the claim
    that gave it (rows before any metadata for their tag have no plugin)."""
    if part.shape >= 0:
        shape = shapes[part.shape]
        plugin = names.plugin_id(state.plugins.get(shape.tag, ""))
        since = known_from.get(shape.tag)
        if since is None or shape.claim is not None:
            return np.full(len(part.record), plugin, np.int32)
        return np.where(part.record > since[0], plugin, 0).astype(np.int32)
    ids = []
    for record, sub, proto in zip(part.record.tolist(), part.sub.tolist(), part.protos, strict=True):
        since = known_from.get(proto.tag)
        known = since is None or since <= (record, sub)
        ids.append(names.plugin_id(state.plugins.get(proto.tag, "")) if known else 0)
    return np.array(ids, np.int32)


def decode_records(
    records: Records, state: RunState, names: Names, filters: Filters, keep_events: bool = False
) -> Rows:
    """The summary values of `records` as Rows, in file order, filtered by tag and plugin.

    `state` carries each tag's plugin from earlier records of the run and is updated.
    `keep_events` also collects the events that are not summaries (file version, session
    logs, graphs), and the metadata claims that TensorBoard ignores, for inspection.
    """
    parts, shapes, rest = _scalar_parts(records, names, filters)
    general, events, bad = _protobuf_part(records, rest, names, filters, keep_events)
    parts.append(general)
    known_from, conflicts = _apply_claims(parts, shapes, state)
    plugins = [_plugin_ids(part, shapes, names, state, known_from) for part in parts]
    rows = _assemble(parts, plugins, shapes, records.offsets())
    rows.bad = bad
    if keep_events:
        rows.events, rows.conflicts = events, sorted(conflicts)
    if filters.plugins is not None:
        allowed = np.zeros(len(names.plugins) + len(filters.plugins), bool)
        allowed[[names.plugin_id(plugin) for plugin in filters.plugins]] = True
        rows = rows.take(allowed[rows.plugin])
    _parse_non_scalars(rows, records, names)
    return rows


def _assemble(
    parts: list[_Part], plugins: list[np.ndarray], shapes: list[ScalarShape], offsets: np.ndarray
) -> Rows:
    """One Rows of all parts, ordered by record and value within the record."""
    used = sorted(
        ((part, ids) for part, ids in zip(parts, plugins, strict=True) if len(part.record)),
        key=lambda used: int(used[0].record[0]),
    ) or [(parts[-1], plugins[-1])]

    def joined(name: str) -> np.ndarray:
        return np.concatenate([getattr(part, name) for part, _ in used])

    record = joined("record")
    protos, general, start = {}, record[:0], 0
    for part, _ in used:
        if part.shape < 0:
            protos, general = dict(enumerate(part.protos, start)), part.record
        start += len(part.record)
    rows = Rows(
        record,
        offsets[record],
        joined("size"),
        joined("tag"),
        np.concatenate([ids for _, ids in used]),
        joined("step"),
        joined("wall_time"),
        joined("number"),
        np.concatenate([np.full(len(part.record), part.shape, np.int32) for part, _ in used]),
        shapes,
        protos,
    )
    if len(used) == 1 or (record[1:] >= record[:-1]).all():  # parts that follow each other
        return rows
    return rows.take(_file_order(record, general, len(offsets)))


def _file_order(record: np.ndarray, general: np.ndarray, records: int) -> np.ndarray:
    """The permutation that puts rows in record order, values of one record in their order.

    A counting sort: only the protobuf part (`general` its records, in order) can have several
    rows of one record."""
    counts = np.bincount(record, minlength=records)
    first_slot = np.cumsum(counts) - counts
    rank = np.zeros(len(record), np.int64)
    if len(general):
        in_general = np.flatnonzero(counts[record] > 1)
        repeated = record[in_general]
        rank[in_general] = np.arange(len(repeated)) - np.searchsorted(repeated, repeated)
    order = np.empty(len(record), np.int64)
    order[first_slot[record] + rank] = np.arange(len(record))
    return order


def _parse_non_scalars(rows: Rows, records: Records, names: Names) -> None:
    """Hand rows read at the byte level whose tag's plugin is not scalars (a float tensor of
    another plugin, or of none) to the protobuf path, so they decode as that plugin's data."""
    if not len(rows):
        return
    tensor_shapes = [i for i, shape in enumerate(rows.shapes) if shape.kind == "tensor"]
    scalars = names.plugin_id("scalars")
    moved = np.flatnonzero(np.isin(rows.shape, tensor_shapes) & (rows.plugin != scalars))
    if not moved.size:
        return
    for position in moved.tolist():
        payload = records.payload(int(rows.record[position]))
        rows.protos[position] = event_pb2.Event.FromString(payload).summary.value[0]
    rows.shape[moved] = -1
