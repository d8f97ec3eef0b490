"""torch's image conventions: `dataformats` layouts, its batch grid, its pixel scaling.

- Layouts: any order of `N`, `C`, `H`, `W` (4-D), `C`, `H`, `W` (3-D) or `H`, `W` (2-D),
  case-insensitive (`"NCHW"`, `"nhwc"`, `"HWC"`, `"CHW"`, `"WH"`, ...).
- A batch is drawn as one image: a grid of up to 8 images a row, in order, the last row
  padded with black, as torch's `make_grid` lays it out.
- One channel is written as three equal ones (RGB), as torch writes it; 2-D images too.
- Pixels: uint8 as it is; every other dtype is taken as [0, 1] and scaled by 255, clipped
  to [0, 255] and truncated (NaN written as 0), as torch does. torch's own writer also
  rescales uint8 frames in `add_video` (through float, losing a level on some values);
  that is not copied: uint8 is always written as it is.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from summarylib.ops.convert import as_real_array
from summarylib.ops.errors import op_error
from summarylib.ops.image.encoding import tile

GRID_COLUMNS = 8
_LAYOUTS = {4: "NCHW", 3: "HWC", 2: "HW"}
_TARGETS = {4: "NHWC", 3: "HWC", 2: "HW"}


def check_dataformats(op: str, tag: str, dataformats: Any) -> str:
    """`dataformats` upper-cased, checked to be a permutation of NCHW, HWC or HW."""
    if not isinstance(dataformats, str):
        raise op_error(
            TypeError, op, tag, "dataformats", f"expected a str such as 'CHW', got {dataformats!r}"
        )
    layout = dataformats.upper()
    if len(layout) not in _LAYOUTS or sorted(layout) != sorted(_LAYOUTS[len(layout)]):
        raise op_error(
            ValueError,
            op,
            tag,
            "dataformats",
            f"expected an order of the letters NCHW, CHW or HW, each once (such as 'NCHW', 'HWC', 'HW'), "
            f"got {dataformats!r}",
        )
    return layout


def torch_uint8(pixels: np.ndarray) -> np.ndarray:
    """Pixels as uint8 the way torch scales them: uint8 as it is, others times 255
    (in float32), clipped and truncated; NaN becomes 0."""
    if pixels.dtype == np.uint8:
        return pixels
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = np.multiply(pixels, np.float32(255), dtype=np.float32)
    np.fmax(scaled, 0, out=scaled)  # fmax and fmin turn NaN into the other operand: 0
    np.fmin(scaled, 255, out=scaled)
    return scaled.astype(np.uint8)


def grid(batch: np.ndarray, columns: int = GRID_COLUMNS) -> np.ndarray:
    """`[n, h, w, c]` images as one `[rows*h, columns*w, c]` image, row by row."""
    count = batch.shape[0]
    columns = max(1, min(count, columns))
    return tile(batch, -(-count // columns), columns)


def to_hwc(op: str, tag: str, argument: str, data: Any, dataformats: Any) -> np.ndarray:
    """`data` in layout `dataformats` as one `[h, w, c]` uint8 image, as torch would draw it."""
    layout = check_dataformats(op, tag, dataformats)
    array = as_real_array(op, tag, argument, data)
    if array.ndim != len(layout):
        raise op_error(
            ValueError,
            op,
            tag,
            argument,
            f"expected {len(layout)} dimensions for dataformats {layout!r}, got shape {list(array.shape)}",
        )
    target = _TARGETS[len(layout)]
    pixels = torch_uint8(array.transpose([layout.index(axis) for axis in target]))
    if pixels.ndim == 2:
        pixels = pixels[..., np.newaxis]
    channels = pixels.shape[-1]
    if channels not in (1, 3, 4):
        raise op_error(
            ValueError,
            op,
            tag,
            argument,
            f"expected 1, 3 or 4 channels (C of dataformats {layout!r}), got shape {list(array.shape)}",
        )
    if channels == 1:
        pixels = np.repeat(pixels, 3, axis=-1)
    if pixels.ndim == 4:
        pixels = grid(pixels)
    return np.ascontiguousarray(pixels)
