"""The embedding op's encoding: the files TensorBoard's Embedding Projector reads.

An embedding is not a summary: the projector reads `projector_config.pbtxt` in a run's
directory (a text-format ProjectorConfig listing embeddings) and the files it names. They
are laid out as `torch.utils.tensorboard.SummaryWriter.add_embedding` lays them out, under
`<step, 5 digits>/<tag, with % / \\ escaped>/` of the run's directory:

- `tensors.tsv`: one point a line, its numbers tab-separated, each as Python's `str` of its
  value (the shortest text that reads back to the same double, so float32 values survive);
- `metadata.tsv` (with `metadata`): one label a line, or with `metadata_header` a header
  line and then the points' columns, tab-separated;
- `sprite.png` (with `label_images`): the points' images in row-major order on a square
  grid of `ceil(sqrt(n))` columns, which the projector cuts back into images by their size
  (`single_image_dim`, `[width, height]`).

The config lists each embedding as `EmbeddingInfo{tensor_name: "<tag>:<step, 5 digits>",
tensor_path, metadata_path, sprite}`; `merge_config` adds one to the config already on
disk, so several embeddings of a logdir, from any number of writers, all appear.

Where summarylib differs from torch: label images are `[n, h, w, c]` (c in 1..4) or
`[n, h, w]` as the image op takes them, pixels converted as the image op converts them
(floats scaled by 255.5, torch scales by 255: float pixels may come out one level apart;
uint8 pixels are written as they are, where torch saturates them), and the sprite keeps
their channels (torch writes RGB). The grid is `ceil(sqrt(n))` images high, so the
projector, which divides the sprite's height by the image height, finds every image also
when images are not square (torch pads the sprite to a square of pixels, which misplaces
them then). Metadata that the projector would misread is rejected: a label holding a tab
or a line break, and a header of one column (the projector reads a single column as
labels only, so the header would become the first point's label), and so is a tag that
cannot name the embedding's directory (holding NUL, `.` or `..`, or over 255 bytes once
escaped), which torch lets fail on its writer. Writing the same tag at the same step
again replaces that embedding (torch lists it twice).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from google.protobuf import text_format

from summarylib.ops.convert import as_array, as_real_array, snapshot
from summarylib.ops.errors import check_name, check_text, op_error
from summarylib.ops.image.encoding import tile, to_uint8
from summarylib.ops.image.png import encode_png
from summarylib.proto import projector_config_pb2

CONFIG_FILENAME = "projector_config.pbtxt"
TENSORS_FILENAME = "tensors.tsv"
METADATA_FILENAME = "metadata.tsv"
SPRITE_FILENAME = "sprite.png"

_OP = "embedding"
_FORBIDDEN = str.maketrans("", "", "\t\n\r")
# The longest file name most file systems take, in bytes (the tag's directory is one).
_MAX_NAME_BYTES = 255


@dataclass(frozen=True)
class Embedding:
    """One embedding as files: `files` maps paths relative to the run's directory (with
    '/' separators) to their bytes; `info` is its entry in the projector's config."""

    info: projector_config_pb2.EmbeddingInfo
    files: dict[str, bytes]


def prepare(
    tag: str, data: Any, metadata: Any, metadata_header: Any, label_images: Any
) -> tuple[str, np.ndarray, list[str] | None, np.ndarray | None]:
    """Validate and snapshot on the caller's thread.

    Returns `(tag, matrix, metadata_lines, images)` for `encode_files`: the `[n, d]`
    matrix, the metadata TSV's lines (None without metadata) and the `[n, h, w, c]` uint8
    label images (None without them).
    """
    _check_tag(tag)
    matrix = _matrix(tag, data)
    count = matrix.shape[0]
    lines = None if metadata is None else metadata_lines(tag, metadata, metadata_header, count)
    if metadata is None and metadata_header is not None:
        raise op_error(ValueError, _OP, tag, "metadata_header", "given without metadata")
    images = None if label_images is None else _label_images(tag, label_images, count)
    return tag, matrix, lines, images


def _check_tag(tag: str) -> None:
    """The tag names a directory (see `subdir`): it must make one file name, inside the
    step's directory, that file systems take."""
    check_name(_OP, tag)
    name = _escaped(tag)
    problem = None
    if "\0" in name:
        problem = "a NUL character, which no file name can hold"
    elif name in (".", ".."):
        problem = f"{name!r}, which names no directory of its own"
    elif len(name.encode("utf-8")) > _MAX_NAME_BYTES:
        problem = f"{len(name.encode('utf-8'))} bytes as a directory name (at most {_MAX_NAME_BYTES})"
    if problem:
        raise op_error(
            ValueError, _OP, tag, "name", f"expected a tag that can name a directory, got one with {problem}"
        )


def _matrix(tag: str, data: Any) -> np.ndarray:
    array = as_array(_OP, tag, "data", data)
    if array.dtype.kind not in "iuf":
        raise op_error(
            TypeError,
            _OP,
            tag,
            "data",
            f"expected real numbers, got dtype {array.dtype} (shape {list(array.shape)})",
        )
    if array.ndim != 2 or not array.size:
        raise op_error(
            ValueError,
            _OP,
            tag,
            "data",
            f"expected a matrix [n, d] of one point a row (n, d >= 1), got shape {list(array.shape)}",
        )
    return snapshot(array, data)


def metadata_lines(tag: str, metadata: Any, header: Any, count: int) -> list[str]:
    """The lines of the metadata TSV of `count` points: a label each, or with `header`
    (two or more column names) the header and each point's tab-separated columns."""
    rows = _sequence(tag, "metadata", metadata)
    if len(rows) != count:
        raise op_error(
            ValueError,
            _OP,
            tag,
            "metadata",
            f"expected one entry for each of the {count} points, got {len(rows)}",
        )
    if header is None:
        return [_cell(tag, "metadata", row, index) for index, row in enumerate(rows)]
    names = [
        _cell(tag, "metadata_header", name, index)
        for index, name in enumerate(_sequence(tag, "metadata_header", header))
    ]
    if len(names) < 2:
        raise op_error(
            ValueError,
            _OP,
            tag,
            "metadata_header",
            f"expected two or more column names (the projector reads one column as labels only, "
            f"without a header; pass the labels without metadata_header), got {len(names)}",
        )
    lines = ["\t".join(names)]
    for index, row in enumerate(rows):
        cells = _sequence(tag, "metadata", row) if _is_row(row) else None
        if cells is None or len(cells) != len(names):
            got = f"{len(cells)} values" if cells is not None else f"{type(row).__name__} {row!r:.40}"
            raise op_error(
                ValueError,
                _OP,
                tag,
                "metadata",
                f"entry {index}: expected {len(names)} values (one a column), got {got}",
            )
        lines.append("\t".join(_cell(tag, "metadata", cell, index) for cell in cells))
    return lines


def _is_row(value: Any) -> bool:
    return isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.ndim == 1)


def _sequence(tag: str, argument: str, value: Any) -> list:
    """The entries of a list, tuple or 1-D/2-D array-like (numpy scalars kept as they are,
    so that they print as numpy prints them)."""
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, (str, bytes)):
        raise op_error(TypeError, _OP, tag, argument, f"expected a sequence, got {type(value).__name__}")
    array = as_array(_OP, tag, argument, value)
    if array.ndim not in (1, 2):
        raise op_error(ValueError, _OP, tag, argument, f"expected a sequence, got shape {list(array.shape)}")
    return list(array)


def _cell(tag: str, argument: str, value: Any, index: int) -> str:
    """One label or column name as text: str of it, bytes decoded as UTF-8."""
    if _is_row(value):
        raise op_error(
            ValueError,
            _OP,
            tag,
            argument,
            f"entry {index}: expected a str or number, got {type(value).__name__} "
            "(several columns need metadata_header)",
        )
    if isinstance(value, bytes):
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError as error:
            raise op_error(
                ValueError, _OP, tag, argument, f"entry {index}: bytes that are not UTF-8 ({error})"
            ) from None
    text = check_text(_OP, tag, argument, str(value))
    if text.translate(_FORBIDDEN) != text:
        raise op_error(
            ValueError,
            _OP,
            tag,
            argument,
            f"entry {index}: a tab or line break would break the TSV: {text!r:.80}",
        )
    return text


def _label_images(tag: str, label_images: Any, count: int) -> np.ndarray:
    array = as_real_array(_OP, tag, "label_images", label_images)
    images = array[..., np.newaxis] if array.ndim == 3 else array
    if images.ndim != 4 or not 1 <= images.shape[3] <= 4 or not images.shape[1] * images.shape[2]:
        raise op_error(
            ValueError,
            _OP,
            tag,
            "label_images",
            f"expected images [n, h, w, c] (c in 1..4) or [n, h, w], got shape {list(array.shape)}",
        )
    if images.shape[0] != count:
        raise op_error(
            ValueError,
            _OP,
            tag,
            "label_images",
            f"expected one image for each of the {count} points, got {images.shape[0]}",
        )
    pixels = to_uint8(images)
    return snapshot(pixels, label_images) if pixels is images else pixels


def subdir(tag: str, step: int) -> str:
    """The directory of one embedding relative to the run's: `<step, 5 digits>/<tag>`,
    with '%', '/' and '\\' in the tag escaped (as torch's add_embedding names it)."""
    return f"{str(step).zfill(5)}/{_escaped(tag)}"


def _escaped(tag: str) -> str:
    return tag.replace("%", "%25").replace("/", "%2f").replace("\\", "%5c")


def encode_files(
    tag: str, step: int, matrix: np.ndarray, lines: list[str] | None, images: np.ndarray | None
) -> Embedding:
    """The files and config entry of a prepared embedding at `step` (the costly part:
    formatting the numbers and encoding the sprite)."""
    folder = subdir(tag, step)
    info = projector_config_pb2.EmbeddingInfo(
        tensor_name=f"{tag}:{str(step).zfill(5)}", tensor_path=f"{folder}/{TENSORS_FILENAME}"
    )
    files = {info.tensor_path: tensors_tsv(matrix)}
    if lines is not None:
        info.metadata_path = f"{folder}/{METADATA_FILENAME}"
        files[info.metadata_path] = "".join(line + "\n" for line in lines).encode("utf-8")
    if images is not None:
        _, height, width, _ = images.shape
        info.sprite.image_path = f"{folder}/{SPRITE_FILENAME}"
        info.sprite.single_image_dim.extend([width, height])
        files[info.sprite.image_path] = encode_png(sprite(images))
    return Embedding(info, files)


def encode(
    tag: str,
    data: Any,
    metadata: Any = None,
    metadata_header: Any = None,
    label_images: Any = None,
    step: int = 0,
) -> Embedding:
    """The files and config entry of an embedding at `step`, without I/O."""
    _, matrix, lines, images = prepare(tag, data, metadata, metadata_header, label_images)
    return encode_files(tag, step, matrix, lines, images)


def tensors_tsv(matrix: np.ndarray) -> bytes:
    """One row a line, values tab-separated, each as `str` of its Python value."""
    return "".join("\t".join(map(str, row)) + "\n" for row in matrix.tolist()).encode("ascii")


def sprite(images: np.ndarray) -> np.ndarray:
    """`[n, h, w, c]` images on a `ceil(sqrt(n))` x `ceil(sqrt(n))` grid, row-major, zero
    (black, transparent) where there is no image."""
    columns = math.isqrt(images.shape[0] - 1) + 1  # ceil(sqrt(count)) for count >= 1
    return tile(images.astype(np.uint8, copy=False), columns, columns)


def merge_config(existing: str | None, info: projector_config_pb2.EmbeddingInfo) -> str:
    """The config text with `info` added to `existing` config text (None: no config yet);
    an embedding of the same tensor name is replaced in place. ValueError if `existing`
    is not a ProjectorConfig."""
    config = projector_config_pb2.ProjectorConfig()
    if existing:
        try:
            text_format.Parse(existing, config)
        except text_format.ParseError as error:
            raise ValueError(f"not a projector config ({error})") from None
    for index, embedding in enumerate(config.embeddings):
        if embedding.tensor_name == info.tensor_name:
            config.embeddings[index].CopyFrom(info)
            break
    else:
        config.embeddings.append(info)
    return text_format.MessageToString(config)
