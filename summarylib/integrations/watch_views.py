"""What a model watch writes for one kind of tensors (parameters, gradients, activations)
at one logged step, made on the writer's thread from one flat float32 snapshot: a
histogram per tensor (`<kind>/<name>`), and with images the grid image of all of them
(`images/<kind>`, see summarylib.ops.tensor_grid) and, for parameters, the grid of
their per-element variance over the last logged steps (`images/parameters_variance`:
which weights still move). The variance view is the costliest part (a running sum over
the window), so the other kinds, whose per-step changes are noise more than signal, do
without it.

Shared by the PyTorch and Keras watches; knows no framework.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from summarylib.ops import histogram
from summarylib.ops.tensor_grid import GridLayout, RunningVariance, grid_summary, layout
from summarylib.summary_ops import queue_summary
from summarylib.writer.summary_writer import SummaryWriter

KINDS = ("parameters", "gradients", "activations")


class KindViews:
    """The views of one kind: the layout of the last names and shapes seen (reused while
    they stay the same) and the running variance, which lives on the writer's thread."""

    def __init__(self, kind: str, images: bool, variance_steps: int, buckets: int | None) -> None:
        self.kind = kind
        self._images = images
        self._buckets = histogram.DEFAULT_BUCKETS if buckets is None else buckets
        wanted = images and variance_steps > 1 and kind == "parameters"
        self._variance = RunningVariance(variance_steps) if wanted else None
        self._layout: GridLayout | None = None
        self._lock = threading.Lock()  # the variance's state, should two writers' threads share it

    def layout_of(self, names: Sequence[str], shapes: Sequence[Sequence[int]]) -> GridLayout:
        """The layout of these tensors, the previous one when nothing changed."""
        names, shapes = tuple(names), tuple(tuple(s) for s in shapes)
        if self._layout is None or self._layout.names != names or self._layout.shapes != shapes:
            self._layout = layout(names, shapes)
        return self._layout

    def queue(
        self,
        writer: SummaryWriter,
        step: int,
        grid: GridLayout,
        values: np.ndarray,
        ready: Callable[[], Any] | None = None,
    ) -> None:
        """Queue this kind's summaries of flat `values` (the tensors of `grid`, in order) at
        `step`; `ready()`, if given, runs first on the writer's thread (a device copy's
        synchronization)."""
        queue_summary(writer, "watch", f"{self.kind}/*", step, self.summary, (grid, ready, values))

    def summary(self, grid: GridLayout, ready: Callable[[], Any] | None, values: np.ndarray) -> bytes:
        """One serialized Summary holding every value of this kind at one step."""
        if ready is not None:
            ready()
        parts = []
        for name, offset, size in zip(grid.names, grid.offsets, grid.sizes, strict=True):
            tag = f"{self.kind}/{name}"
            parts.append(histogram.summary(tag, values[offset : offset + size], self._buckets, None))
        if self._images:
            parts.append(grid_summary(f"images/{self.kind}", values, grid))
        if self._variance is not None:
            with self._lock:
                variance = self._variance.update(values)
            parts.append(grid_summary("images/parameters_variance", variance, grid))
        return b"".join(parts)  # concatenated Summary messages are one Summary of all values
