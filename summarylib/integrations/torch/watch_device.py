"""The model watch's views of CUDA tensors, computed on the GPU: per-tensor histogram
counts, the grid image's percentile bands and its uint8 pixels, and the parameters'
window variance all stay on the device; only the counts, each tensor's min and max, and
one uint8 image per view cross to the host (about a quarter of the float32 snapshot's
bytes), in one asynchronous copy into pinned memory. The writer's thread waits for that
copy and encodes the Summaries (protos, PNG) with the CPU path's own functions
(histogram.encoding.rows_from_counts, tensor_grid.pixels_summary).

Not tested on a GPU: the machines this project is tested on have none. The code is
device-agnostic torch, and tests run it on CPU tensors against the CPU path (same tags,
edges and totals; counts and pixels that differ only where float32 rounding puts a value
on the other side of an edge or level), so what is untested is the CUDA placement: pinned
memory, the non-blocking copy and its event.

Histograms: non-finite values are left out, as on the CPU, but without the CPU path's
warning (counting them would cost a synchronization). Each value's bucket is
`floor((x - min) / ((max - min) / k))` clamped to `k - 1`, in float32 (the CPU path's
`exact=False`), counted for all tensors of a kind in one `bincount` (torch.histc would
need each tensor's min and max on the host first: one synchronization per tensor).
Bands: `torch.nanquantile` of the same strided sample as the CPU path (numpy's linear
percentiles), non-finite values left out as NaN.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from summarylib.integrations.watch_views import KindViews
from summarylib.ops.histogram import encoding as histogram_encoding
from summarylib.ops.tensor_grid import (
    HIGH_PERCENTILE,
    LOW_PERCENTILE,
    SAMPLE_SIZE,
    GridLayout,
    pixels_summary,
)
from summarylib.writer.queue import queue_summary
from summarylib.writer.summary_writer import SummaryWriter

_LEVELS = 254


class _Placement:
    """Per-value tensor index and canvas position of one layout, on one device."""

    def __init__(self, grid: GridLayout, device: torch.device) -> None:
        sizes = torch.tensor(grid.sizes, device=device)
        self.ids = torch.repeat_interleave(torch.arange(len(grid.sizes), device=device), sizes)
        starts = torch.tensor([row * grid.width for row in grid.rows], device=device)
        offsets = torch.tensor(grid.offsets, device=device)
        self.positions = starts[self.ids] + torch.arange(grid.total, device=device) - offsets[self.ids]


class DeviceViews:
    """The device half of one kind's views: the placement of the last layout and the
    variance window's sums, on the tensors' device."""

    def __init__(self, views: KindViews, variance_steps: int) -> None:
        self.views = views
        self._placement: tuple[GridLayout, _Placement] | None = None
        self._window = variance_steps if views.has_variance else 0
        self._count = 0
        self._reference = self._sum = self._squares = torch.zeros(0)

    def queue(
        self, writer: SummaryWriter, step: int, grid: GridLayout, tensors: Sequence[torch.Tensor]
    ) -> None:
        """Start this step's views of `tensors` (the tensors of `grid`, in order) on their
        device, and queue their encoding on the writer's thread."""
        device = tensors[0].device
        flat = torch.cat([t.detach().reshape(-1).to(device, torch.float32) for t in tensors])
        placement = self._placement_of(grid, device)
        low, high, counts = _histograms(flat, placement.ids, len(grid.sizes), self.views.buckets)
        images = [_grid_pixels(flat, grid, placement)] if self.views.images else []
        variance = self._variance(flat)
        if variance is not None:
            images.append(_grid_pixels(variance, grid, placement))
        pixels_and_ranges = (t for image in images for t in image)
        host = [_to_host(t) for t in (low, high, counts, *pixels_and_ranges)]
        done = torch.cuda.Event() if device.type == "cuda" else None
        if done is not None:
            done.record()
        queue_summary(writer, "watch", f"{self.views.kind}/*", step, self._summary, (grid, done, host))

    def _placement_of(self, grid: GridLayout, device: torch.device) -> _Placement:
        if (
            self._placement is None
            or self._placement[0] is not grid
            or self._placement[1].ids.device != device
        ):
            self._placement = (grid, _Placement(grid, device))
        return self._placement[1]

    def _variance(self, flat: torch.Tensor) -> torch.Tensor | None:
        """WindowVariance's sums of differences from the window's first values, on the device."""
        if self._window <= 1:
            return None
        if (
            self._count == 0
            or self._reference.numel() != flat.numel()
            or self._reference.device != flat.device
        ):
            self._count, self._reference = 1, flat.clone()
            self._sum, self._squares = torch.zeros_like(flat), torch.zeros_like(flat)
        else:
            self._count += 1
            difference = flat - self._reference
            self._sum += difference
            self._squares += difference.square()
        if self._count < self._window:
            return None
        self._count = 0
        mean = self._sum / self._window
        return (self._squares / self._window - mean.square()).clamp_(min=0)

    def _summary(self, grid: GridLayout, done: torch.cuda.Event | None, host: list[torch.Tensor]) -> bytes:
        """The kind's Summary from what crossed to the host, on the writer's thread."""
        if done is not None:
            done.synchronize()
        low, high, counts, *pixels_and_ranges = (t.numpy() for t in host)
        images = [
            (pixels, [(float(lo), float(hi)) for lo, hi in ranges])
            for pixels, ranges in zip(pixels_and_ranges[::2], pixels_and_ranges[1::2], strict=True)
        ]
        kind = self.views.kind
        parts = [
            histogram_encoding.summary_of_rows(f"{kind}/{name}", _rows(float(lo), float(hi), row))
            for name, lo, hi, row in zip(grid.names, low, high, counts, strict=True)
        ]
        if images and self.views.images:
            pixels, ranges = images.pop(0)
            parts.append(pixels_summary(f"images/{kind}", pixels, grid, ranges))
        if images:
            pixels, ranges = images[0]
            parts.append(pixels_summary("images/parameters_variance", pixels, grid, ranges))
        return b"".join(parts)


def _rows(low: float, high: float, counts: np.ndarray) -> np.ndarray:
    """A tensor's histogram rows; all zeros when it has no finite value (low > high)."""
    return (
        np.zeros((counts.size, 3)) if low > high else histogram_encoding.rows_from_counts(low, high, counts)
    )


def _histograms(
    flat: torch.Tensor, ids: torch.Tensor, tensors: int, k: int
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Each tensor's finite min and max and its `[tensors, k]` bucket counts."""
    finite = torch.isfinite(flat)
    inf = torch.tensor(float("inf"), device=flat.device)
    low = torch.full((tensors,), float("inf"), device=flat.device).scatter_reduce(
        0, ids, torch.where(finite, flat, inf), "amin"
    )
    high = torch.full((tensors,), float("-inf"), device=flat.device).scatter_reduce(
        0, ids, torch.where(finite, flat, -inf), "amax"
    )
    width = (high - low) / k
    offset = (flat - low[ids]) / width[ids]
    index = torch.nan_to_num(offset, nan=k - 1, posinf=k - 1).clamp_(0, k - 1).to(torch.int64)
    bins = torch.where(finite, ids * k + index, tensors * k)
    counts = torch.bincount(bins, minlength=tensors * k + 1)[: tensors * k].view(tensors, k)
    return low, high, counts


def _grid_pixels(
    flat: torch.Tensor, grid: GridLayout, placement: _Placement
) -> tuple[torch.Tensor, torch.Tensor]:
    """The `[height, width]` uint8 grid image of `flat` (tensor_grid's normalization), and
    the `[bands, 2]` ranges its bands were scaled by, for the description."""
    finite = torch.isfinite(flat)
    masked = torch.where(finite, flat, torch.tensor(float("nan"), device=flat.device))
    quantiles = torch.tensor(
        [LOW_PERCENTILE / 100, HIGH_PERCENTILE / 100], dtype=torch.float64, device=flat.device
    )
    ranges = []
    for offset, size in zip(grid.offsets, grid.sizes, strict=True):
        band = masked[offset : offset + size]
        sample = band[:: max(1, size // SAMPLE_SIZE)] if size > SAMPLE_SIZE else band
        ranges.append(torch.nanquantile(sample.double(), quantiles))
    bands = torch.nan_to_num(torch.stack(ranges), nan=0.0)  # no finite value: constant
    low, high = bands[:, 0][placement.ids], bands[:, 1][placement.ids]
    scale = (_LEVELS / (high - low)).float()
    scaled = ((flat - low.float()) * scale).clamp_(0, _LEVELS).add_(1.5)
    levels = torch.where(high > low, scaled, 1 + _LEVELS // 2).to(torch.uint8)
    levels = torch.where(finite, levels, 0).to(torch.uint8)
    canvas = torch.zeros(grid.height * grid.width, dtype=torch.uint8, device=flat.device)
    canvas[placement.positions] = levels
    return canvas, bands


def _to_host(tensor: torch.Tensor) -> torch.Tensor:
    """An asynchronous copy into pinned host memory (the tensor itself on the CPU)."""
    if tensor.device.type == "cpu":
        return tensor
    host = torch.empty(tensor.shape, dtype=tensor.dtype, pin_memory=True)
    return host.copy_(tensor, non_blocking=True)
