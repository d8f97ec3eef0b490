"""Many tensors as one gray image: the "watch a model" view of parameters, gradients or
activations (seed 001: a 1,000,000-parameter model as a 1000x1000 image).

Layout: every tensor is flattened (C order) and written row by row into a band of whole
rows of a grid `width = ceil(sqrt(total values))` pixels wide, bands in the given order,
one black separator row between bands; a band's last row is padded with black. So
1,000,000 values make an image about 1000 pixels square (a few rows more: separators and
padding).

Normalization, per band, so that a layer of small values is as readable as one of large
ones: the band's 0.5th and 99.5th percentiles (of its finite values; estimated from at
most 16,384 evenly strided values for larger tensors) map to pixel values 1 and 255,
linearly, values beyond them clipped, rounded to the nearest level. Percentiles rather
than min/max because gradients and activations have outliers that would otherwise make
a whole band one gray. A constant band is 128. Pixel 0 means no value: separators,
padding, NaN and ±Inf. `normalized(values)` gives a band's values as floats in [0, 1]
(pixel = 1 + round(254 * normalized)), which is what a reader decodes.

The description written with the image lists each band's tensor, shape and pixel rows,
so a person (or a program) can tell which band is which. Pure numpy: no framework.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from summarylib.ops.batch import string_tensor_summary
from summarylib.ops.image.encoding import create_metadata
from summarylib.ops.image.png import NONE, encode_png

LOW_PERCENTILE, HIGH_PERCENTILE = 0.5, 99.5
# Percentiles of larger tensors are estimated from this many evenly strided values.
SAMPLE_SIZE = 16_384
_LEVELS = 254  # pixel values 1..255 hold values; 0 is "no value"
# Values an elementwise pass works on at once: its float temporaries stay in the cache.
_BLOCK = 1 << 15


@dataclass(frozen=True)
class GridLayout:
    """Where each tensor's band lies: values `offsets[i]:offsets[i] + sizes[i]` of the
    flat input go to pixel rows `rows[i]:rows[i] + band_rows[i]` of a `height x width` image."""

    names: tuple[str, ...]
    shapes: tuple[tuple[int, ...], ...]
    sizes: tuple[int, ...]
    offsets: tuple[int, ...]
    rows: tuple[int, ...]
    band_rows: tuple[int, ...]
    width: int
    height: int

    @property
    def total(self) -> int:
        """The number of values laid out."""
        return sum(self.sizes)

    def description(self, ranges: Sequence[tuple[float, float]] | None = None) -> str:
        """Markdown for the image summary: the normalization, then a table of bands, with
        each band's `ranges` (the values its gray levels 1 and 255 stand for, so a reader
        of a pixel, such as the Live dashboard's hover, can tell its value) when given."""
        ranged = ranges is not None
        lines = [
            "One band per tensor, flattened row by row; each band scaled on its own: its "
            f"{LOW_PERCENTILE}th..{HIGH_PERCENTILE}th percentile to gray levels 1..255 (clipped); "
            "black (0) is a separator row, padding or NaN/Inf.",
            "",
            "| pixel rows | tensor | shape | range |" if ranged else "| pixel rows | tensor | shape |",
            "|---|---|---|---|" if ranged else "|---|---|---|",
        ]
        cells = (
            [""] * len(self.names)
            if ranges is None
            else [f" {low:.6g}..{high:.6g} |" for low, high in ranges]
        )
        bands = zip(self.names, self.shapes, self.rows, self.band_rows, cells, strict=True)
        for name, shape, row, count, cell in bands:
            lines.append(f"| {row}-{row + count - 1} | {name} | {list(shape)} |{cell}")
        return "\n".join(lines)


def layout(names: Sequence[str], shapes: Sequence[Sequence[int]]) -> GridLayout:
    """The near-square layout of tensors of these names and shapes, in this order."""
    dims = tuple(tuple(int(d) for d in shape) for shape in shapes)
    sizes = tuple(math.prod(shape) for shape in dims)
    width = max(1, math.isqrt(max(sum(sizes) - 1, 0)) + 1)
    offsets, rows, band_rows = [], [], []
    offset = row = 0
    for size in sizes:
        offsets.append(offset)
        rows.append(row)
        count = -(-size // width)
        band_rows.append(count)
        offset += size
        row += count + 1  # one separator row after each band
    height = max(1, row - 1)
    return GridLayout(tuple(names), dims, sizes, tuple(offsets), tuple(rows), tuple(band_rows), width, height)


def band_range(values: np.ndarray) -> tuple[float, float]:
    """The values mapped to gray levels 1 and 255: the 0.5th and 99.5th percentiles of the
    finite values (of an evenly strided sample of at most SAMPLE_SIZE); (0, 0) if none."""
    sample = values[:: max(1, values.size // SAMPLE_SIZE)] if values.size > SAMPLE_SIZE else values
    if not np.isfinite(sample.sum(dtype=np.float64)):
        sample = sample[np.isfinite(sample)]
    if sample.size == 0:
        return 0.0, 0.0
    # numpy's default (linear) percentiles, from a sort: several times quicker than
    # np.percentile's selection on samples of this size
    ordered = np.sort(sample)
    return _percentile(ordered, LOW_PERCENTILE), _percentile(ordered, HIGH_PERCENTILE)


def _percentile(ordered: np.ndarray, percent: float) -> float:
    """The `percent`th percentile of sorted values, interpolated linearly between ranks."""
    position = percent / 100 * (ordered.size - 1)
    below = math.floor(position)
    above = min(below + 1, ordered.size - 1)
    low, high = float(ordered[below]), float(ordered[above])
    fraction = position - below
    # numpy's form of the interpolation, from the nearer end, so results agree to the bit
    return high - (high - low) * (1 - fraction) if fraction >= 0.5 else low + (high - low) * fraction


def normalized(values: np.ndarray) -> np.ndarray:
    """A band's values as float64 in [0, 1] by its own percentile range (0.5 if constant);
    NaN where a value is NaN or ±Inf."""
    low, high = band_range(values)
    values = values.astype(np.float64)
    constant = high <= low
    result = np.full(values.shape, 0.5) if constant else np.clip((values - low) / (high - low), 0.0, 1.0)
    result[~np.isfinite(values)] = np.nan
    return result


def _pixels_into(values: np.ndarray, out: np.ndarray) -> tuple[float, float]:
    """The uint8 gray levels of one band into `out`: 1..255, 0 for NaN and ±Inf; returns
    the band's range (see band_range)."""
    low, high = band_range(values)
    if high > low:
        _scale_into(values, low, high, out)
    else:
        out[:] = 1 + _LEVELS // 2  # a constant band
    if not np.isfinite(np.add.reduce(values)):  # a finite sum can overflow: only a check
        out[~np.isfinite(values)] = 0
    return low, high


def _scale_into(values: np.ndarray, low: float, high: float, out: np.ndarray) -> None:
    """`low..high` to levels 1..255 (clipped, rounded) into `out`, a block at a time so
    the float temporaries stay in the cache."""
    dtype = np.float64 if values.dtype == np.float64 else np.float32
    scale, low = dtype(_LEVELS / (high - low)), dtype(low)
    scratch = np.empty(min(_BLOCK, values.size), dtype)
    with np.errstate(invalid="ignore"):
        for start in range(0, values.size, _BLOCK):
            chunk = values[start : start + _BLOCK]
            scaled = scratch[: chunk.size]
            np.subtract(chunk, low, out=scaled)
            np.multiply(scaled, scale, out=scaled)
            np.clip(scaled, 0, _LEVELS, out=scaled)
            np.add(scaled, 1.5, out=scaled)
            np.copyto(out[start : start + _BLOCK], scaled, casting="unsafe")  # truncating rounds x + 1


def grid_pixels(values: np.ndarray, grid: GridLayout) -> np.ndarray:
    """The `[height, width]` uint8 image of `values`, the tensors of `grid` flattened and
    concatenated in its order (float32 or float64)."""
    return banded_pixels(values, grid)[0]


def banded_pixels(values: np.ndarray, grid: GridLayout) -> tuple[np.ndarray, list[tuple[float, float]]]:
    """`grid_pixels`, and each band's range (an empty band's is (0, 0))."""
    values = values.reshape(-1)
    if values.size != grid.total:
        raise ValueError(f"tensor grid: expected {grid.total} values for the layout, got {values.size}")
    if values.dtype.kind != "f":
        values = values.astype(np.float32)
    canvas = np.zeros(grid.height * grid.width, np.uint8)
    ranges = []
    for offset, size, row in zip(grid.offsets, grid.sizes, grid.rows, strict=True):
        start = row * grid.width
        band = (
            _pixels_into(values[offset : offset + size], canvas[start : start + size]) if size else (0.0, 0.0)
        )
        ranges.append(band)
    return canvas.reshape(grid.height, grid.width), ranges


def grid_image(arrays: dict[str, np.ndarray]) -> tuple[np.ndarray, str]:
    """Named numpy arrays (a model's weights, say) as one `[h, w, 1]` uint8 grid image and
    its description, ready for `summarylib.image(tag, image, description=description)`."""
    grid = layout(list(arrays), [np.shape(a) for a in arrays.values()])
    if not arrays:
        return np.zeros((1, 1, 1), np.uint8), grid.description()
    flat = np.concatenate([np.asarray(a, dtype=np.float64).reshape(-1) for a in arrays.values()])
    pixels, ranges = banded_pixels(flat, grid)
    return pixels[:, :, np.newaxis], grid.description(ranges)


def grid_summary(tag: str, values: np.ndarray, grid: GridLayout) -> bytes:
    """The serialized image Summary (PNG, one channel) of `values` laid out by `grid`,
    with the layout's description; made on the writer's thread.

    The PNG rows are not filtered: a grid's neighbouring pixels are rarely neighbouring
    values of a tensor, and on a model's parameters, gradients and activations unfiltered
    rows measured the smallest (the usual per-image filter choice picked Average or Sub
    for gradients and activations, 3 to 10% larger and slower)."""
    pixels, ranges = banded_pixels(values, grid)
    return pixels_summary(tag, pixels, grid, ranges)


def pixels_summary(
    tag: str, pixels: np.ndarray, grid: GridLayout, ranges: Sequence[tuple[float, float]] | None = None
) -> bytes:
    """The serialized image Summary of a `[height, width]` uint8 grid image laid out by
    `grid` (what `grid_summary` writes; also for pixels made on a GPU), its description
    with the bands' `ranges` when known."""
    pixels = pixels.reshape(grid.height, grid.width, 1)
    strings = [str(grid.width).encode(), str(grid.height).encode(), encode_png(pixels, NONE)]
    metadata = create_metadata(grid.description(ranges)).SerializeToString()
    return string_tensor_summary(tag, (len(strings),), strings, metadata)


class WindowVariance:
    """The per-element variance of each `window` consecutive arrays given to `update` (all
    of one size; a new size starts a new window): one image's worth of data per window,
    where a variance over a sliding window would cost a full image every update and show
    nearly the same picture each time.

    Kept as float32 sums of each array's differences from the window's first array, and
    of their squares: differences within a window are small, so float32 sums of them lose
    nothing that matters (a float32 sum of the values themselves would: a weight of 0.05
    moving by 1e-5 a step has a variance below float32's resolution of its square).
    """

    def __init__(self, window: int) -> None:
        self._window = window
        self._count = 0
        self._reference = self._sum = self._squares = np.zeros(0, np.float32)

    def update(self, values: np.ndarray) -> np.ndarray | None:
        """Add `values`; the float32 variance of the window if this completes it (a new
        array), else None."""
        values = np.asarray(values, dtype=np.float32).reshape(-1)
        if self._count == 0 or self._reference.size != values.size:
            self._count = 1
            self._reference = values.copy()
            self._sum, self._squares = np.zeros(values.size, np.float32), np.zeros(values.size, np.float32)
        else:
            self._count += 1
            self._accumulate(values)
        if self._count < self._window:
            return None
        self._count = 0
        # sum(d^2) / n - (sum(d) / n)^2 of the differences d, clipped at 0 (rounding)
        inverse_count = np.float32(1.0 / self._window)
        mean = np.multiply(self._sum, inverse_count, out=self._sum)
        variance = np.multiply(self._squares, inverse_count)
        np.subtract(variance, np.square(mean, out=mean), out=variance)
        return np.maximum(variance, 0, out=variance)

    def _accumulate(self, values: np.ndarray) -> None:
        """Add `values - reference` and its square to the sums, a block at a time."""
        scratch = np.empty(min(_BLOCK, values.size), np.float32)
        for start in range(0, values.size, _BLOCK):
            part = slice(start, start + _BLOCK)
            difference = scratch[: values[part].size]
            np.subtract(values[part], self._reference[part], out=difference)
            np.add(self._sum[part], difference, out=self._sum[part])
            np.square(difference, out=difference)
            np.add(self._squares[part], difference, out=self._squares[part])
