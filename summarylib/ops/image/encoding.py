"""The image op's encoding: PNGs in a string tensor for TensorBoard's images plugin.

As TensorFlow 2's `tf.summary.image` writes it: a `DT_STRING` tensor of shape `[2 + n]`
holding the width and the height of the batch as decimal strings, then the first
`n = min(k, max_outputs)` images as PNG. Pixels are converted to uint8 as TF's
`convert_image_dtype(data, uint8, saturate=True)` converts them: floats are taken as
[0, 1] and scaled by 255.5 then truncated (so 0.5 becomes 127), out-of-range values
clipped and NaN written as 0; integers keep the top 8 bits of their dtype's non-negative
range (so int64 values 0..255 all become 0, as in TF); uint8 is written as it is.

Where summarylib accepts more than TF: `[h, w, c]` and `[h, w]` data are one image;
bool images are written as 0/255 and uint32/uint64 ones with the same rule as the other
integers (TF rejects all three). Images with no pixels are rejected when one would be
written, since PNG cannot hold them (TF fails inside its PNG encoder).

Each image is one PNG from `summarylib.ops.image.png.encode_png`, the encoder every image path
shares: row filters and a fast deflate, about the size of the PNGs TF and pillow write at
their default compression in a tenth of the time or less; the decoded pixels are the same.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from summarylib.format.tensor import make_tensor_proto
from summarylib.ops.batch import as_batch, check_max_outputs, first, string_tensor_summary
from summarylib.ops.convert import as_real_array
from summarylib.ops.errors import check_description, op_error
from summarylib.ops.image.png import encode_png
from summarylib.proto import summary_pb2, tensor_pb2

PLUGIN_NAME = "images"

_AXES = ("k", "h", "w", "c")


def create_metadata(description: str | None = None) -> summary_pb2.SummaryMetadata:
    """The images plugin's metadata, as TF writes it: its content, an ImagePluginData of
    version 0, serializes to no bytes."""
    metadata = summary_pb2.SummaryMetadata(summary_description=description or "")
    metadata.plugin_data.plugin_name = PLUGIN_NAME
    return metadata


def prepare(
    tag: str, data: Any, max_outputs: Any, description: str | None
) -> tuple[str, np.ndarray, int, int, str | None]:
    """Validate on the caller's thread; keep a private copy of the images to write.

    Returns `(tag, images, width, height, description)` for `summary`.
    """
    count = check_max_outputs("image", tag, max_outputs)
    check_description("image", tag, description)
    array = as_real_array("image", tag, "data", data)
    batch = as_batch("image", tag, array, _AXES)
    _, height, width, channels = batch.shape
    if not 1 <= channels <= 4:
        raise op_error(
            ValueError,
            "image",
            tag,
            "data",
            f"expected 1, 2, 3 or 4 channels (last dimension), got shape {list(array.shape)}",
        )
    images = first(batch, count, data)
    if len(images) and not height * width:
        raise op_error(
            ValueError,
            "image",
            tag,
            "data",
            f"cannot write an image with no pixels, got shape {list(array.shape)}",
        )
    return tag, images, width, height, description


def summary(tag: str, images: np.ndarray, width: int, height: int, description: str | None) -> bytes:
    """The serialized Summary of prepared images (on the writer's thread)."""
    strings = image_strings(images, width, height)
    return string_tensor_summary(
        tag, (len(strings),), strings, create_metadata(description).SerializeToString()
    )


def encode(
    tag: str, data: Any, max_outputs: Any = 3, description: str | None = None
) -> tuple[tensor_pb2.TensorProto, summary_pb2.SummaryMetadata]:
    """The tensor and metadata `tf.summary.image(tag, data, ...)` would write, without I/O."""
    _, images, width, height, description = prepare(tag, data, max_outputs, description)
    strings = image_strings(images, width, height)
    return make_tensor_proto(np.array(strings, dtype=object)), create_metadata(description)


def image_strings(images: np.ndarray, width: int, height: int) -> list[bytes]:
    """The elements of the `[2 + n]` string tensor: width, height, one PNG per image."""
    return [str(width).encode(), str(height).encode(), *map(encode_png, to_uint8(images))]


def to_uint8(images: np.ndarray) -> np.ndarray:
    """Pixels of any real or bool dtype as uint8, as TF's saturating `convert_image_dtype`."""
    kind = images.dtype.kind
    if kind == "f":
        return _float_to_uint8(images)
    if kind == "b":
        return images.view(np.uint8) * np.uint8(255)
    if images.dtype == np.uint8:
        return images
    return _int_to_uint8(images)


def _float_to_uint8(images: np.ndarray) -> np.ndarray:
    # In the images' own dtype, as TF computes it (float16 products round to float16).
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = np.multiply(images, images.dtype.type(255.5))
    np.fmax(scaled, 0, out=scaled)  # fmax and fmin turn NaN into the other operand: 0
    np.fmin(scaled, 255, out=scaled)
    return scaled.astype(np.uint8)  # truncates, as TF's cast does


def _int_to_uint8(images: np.ndarray) -> np.ndarray:
    # TF divides by (max + 1) // 256 with floor division, a shift since max + 1 is a
    # power of two; int8 (max 127) is instead clipped to [0, 127] and doubled.
    shift = (int(np.iinfo(images.dtype).max) + 1).bit_length() - 9
    if shift < 0:
        return np.clip(images, 0, None).astype(np.uint8) << np.uint8(-shift)
    return np.clip(images >> shift, 0, 255).astype(np.uint8)


def tile(images: np.ndarray, rows: int, columns: int) -> np.ndarray:
    """`[n, h, w, c]` images laid out row-major on a `rows` x `columns` grid, as one
    `[rows*h, columns*w, c]` image, zero where there is no image (n <= rows * columns).
    The layout of torch's image grids and of the projector's sprites."""
    count, height, width, channels = images.shape
    padded = np.zeros((rows * columns, height, width, channels), images.dtype)
    padded[:count] = images
    return (
        padded.reshape(rows, columns, height, width, channels)
        .swapaxes(1, 2)
        .reshape(rows * height, columns * width, channels)
    )
