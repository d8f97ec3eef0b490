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
from summarylib.ops.image import create_metadata, image_strings

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

    def description(self) -> str:
        """Markdown for the image summary: the normalization, then a table of bands."""
        lines = [
            "One band per tensor, flattened row by row; each band scaled on its own: its "
            f"{LOW_PERCENTILE}th..{HIGH_PERCENTILE}th percentile to gray levels 1..255 (clipped); "
            "black (0) is a separator row, padding or NaN/Inf.",
            "",
            "| pixel rows | tensor | shape |",
            "|---|---|---|",
        ]
        for name, shape, row, count in zip(self.names, self.shapes, self.rows, self.band_rows, strict=True):
            lines.append(f"| {row}-{row + count - 1} | {name} | {list(shape)} |")
        return "\n".join(lines)


def layout(names: Sequence[str], shapes: Sequence[Sequence[int]]) -> GridLayout:
    """The near-square layout of tensors of these names and shapes, in this order."""
    shapes = tuple(tuple(int(d) for d in shape) for shape in shapes)
    sizes = tuple(math.prod(shape) for shape in shapes)
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
    return GridLayout(
        tuple(names), shapes, sizes, tuple(offsets), tuple(rows), tuple(band_rows), width, height
    )


def band_range(values: np.ndarray) -> tuple[float, float]:
    """The values mapped to gray levels 1 and 255: the 0.5th and 99.5th percentiles of the
    finite values (of an evenly strided sample of at most SAMPLE_SIZE); (0, 0) if none."""
    sample = values[:: max(1, values.size // SAMPLE_SIZE)] if values.size > SAMPLE_SIZE else values
    if not np.isfinite(sample.sum(dtype=np.float64)):
        sample = sample[np.isfinite(sample)]
    if sample.size == 0:
        return 0.0, 0.0
    low, high = np.percentile(sample, (LOW_PERCENTILE, HIGH_PERCENTILE))
    return float(low), float(high)


def normalized(values: np.ndarray) -> np.ndarray:
    """A band's values as float64 in [0, 1] by its own percentile range (0.5 if constant);
    NaN where a value is NaN or ±Inf."""
    low, high = band_range(values)
    values = values.astype(np.float64)
    constant = high <= low
    result = np.full(values.shape, 0.5) if constant else np.clip((values - low) / (high - low), 0.0, 1.0)
    result[~np.isfinite(values)] = np.nan
    return result


def _pixels_into(values: np.ndarray, out: np.ndarray) -> None:
    """The uint8 gray levels of one band into `out`: 1..255, 0 for NaN and ±Inf."""
    low, high = band_range(values)
    if high > low:
        _scale_into(values, low, high, out)
    else:
        out[:] = 1 + _LEVELS // 2  # a constant band
    if not np.isfinite(np.add.reduce(values)):  # a finite sum can overflow: only a check
        out[~np.isfinite(values)] = 0


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
    values = values.reshape(-1)
    if values.size != grid.total:
        raise ValueError(f"tensor grid: expected {grid.total} values for the layout, got {values.size}")
    if values.dtype.kind != "f":
        values = values.astype(np.float32)
    canvas = np.zeros(grid.height * grid.width, np.uint8)
    for offset, size, row in zip(grid.offsets, grid.sizes, grid.rows, strict=True):
        if size:
            start = row * grid.width
            _pixels_into(values[offset : offset + size], canvas[start : start + size])
    return canvas.reshape(grid.height, grid.width)


def grid_image(arrays: dict[str, np.ndarray]) -> tuple[np.ndarray, str]:
    """Named numpy arrays (a model's weights, say) as one `[h, w, 1]` uint8 grid image and
    its description, ready for `summarylib.image(tag, image, description=description)`."""
    grid = layout(list(arrays), [np.shape(a) for a in arrays.values()])
    if not arrays:
        return np.zeros((1, 1, 1), np.uint8), grid.description()
    flat = np.concatenate([np.asarray(a, dtype=np.float64).reshape(-1) for a in arrays.values()])
    return grid_pixels(flat, grid)[:, :, np.newaxis], grid.description()


def grid_summary(tag: str, values: np.ndarray, grid: GridLayout) -> bytes:
    """The serialized image Summary (PNG, one channel) of `values` laid out by `grid`,
    with the layout's description; made on the writer's thread."""
    pixels = grid_pixels(values, grid)[np.newaxis, :, :, np.newaxis]
    strings = image_strings(pixels, grid.width, grid.height)
    metadata = create_metadata(grid.description()).SerializeToString()
    return string_tensor_summary(tag, (len(strings),), strings, metadata)


class RunningVariance:
    """The per-element variance of the last `window` arrays given to `update` (all of one
    size; a new size starts over).

    Kept as float32 sums of the values' differences from a reference (the newest array
    when the window last wrapped), updated in place as arrays come and go and recomputed
    exactly from the kept arrays each time the window wraps: differences from a recent
    reference are small, so float32 sums of them lose nothing that matters (a float32
    sum of the values themselves would: a weight of 0.05 moving by 1e-5 a step has a
    variance below float32's resolution of its square), and rounding cannot drift over
    a long run.
    """

    def __init__(self, window: int) -> None:
        self._window = window
        self._kept: list[np.ndarray] = []
        self._next = 0
        self._reference = self._sum = self._squares = self._variance = np.zeros(0, np.float32)

    def update(self, values: np.ndarray) -> np.ndarray:
        """Add `values` (dropping the oldest beyond the window); the float32 variance now,
        in a buffer that the next update overwrites."""
        values = np.asarray(values, dtype=np.float32).reshape(-1)
        if self._sum.size != values.size:
            self._kept, self._next = [], 0
            self._reference = values.copy()
            self._sum, self._squares, self._variance = (np.zeros(values.size, np.float32) for _ in range(3))
        oldest = None
        if len(self._kept) < self._window:
            self._kept.append(values.copy())
        else:
            oldest = self._kept[self._next]
        self._next = (self._next + 1) % self._window
        if self._next == 0:  # the window wraps: start over from the kept arrays
            if oldest is not None:
                np.copyto(oldest, values)
            np.copyto(self._reference, values)
            self._sum[:] = self._squares[:] = 0
            for index, kept in enumerate(self._kept):
                self._blocks(kept, None, last=index == len(self._kept) - 1)
        else:
            self._blocks(values, oldest, last=True)
        return self._variance

    def _blocks(self, values: np.ndarray, oldest: np.ndarray | None, last: bool) -> None:
        """Add `values` to the sums and take `oldest` out of them (and then replace it by
        `values`), and if `last` compute the variance, a block at a time."""
        scratch = np.empty(min(_BLOCK, values.size), np.float32)
        inverse_count = np.float32(1.0 / len(self._kept))
        for start in range(0, values.size, _BLOCK):
            part = slice(start, start + _BLOCK)
            total, squares, reference = self._sum[part], self._squares[part], self._reference[part]
            difference = scratch[: total.size]
            if oldest is not None:
                _accumulate(oldest[part], reference, total, squares, difference, np.subtract)
                np.copyto(oldest[part], values[part])
            _accumulate(values[part], reference, total, squares, difference, np.add)
            if last:
                # sum(d^2) / n - (sum(d) / n)^2 of the differences d, clipped at 0 (rounding)
                variance = self._variance[part]
                np.multiply(total, inverse_count, out=difference)
                np.square(difference, out=difference)
                np.multiply(squares, inverse_count, out=variance)
                np.subtract(variance, difference, out=variance)
                np.maximum(variance, 0, out=variance)


def _accumulate(
    values: np.ndarray,
    reference: np.ndarray,
    total: np.ndarray,
    squares: np.ndarray,
    difference: np.ndarray,
    operation: np.ufunc,
) -> None:
    """Add (or subtract) `values - reference` and its square to `total` and `squares`."""
    np.subtract(values, reference, out=difference)
    operation(total, difference, out=total)
    np.square(difference, out=difference)
    operation(squares, difference, out=squares)
