"""What a model watch writes for one kind of tensors (parameters, gradients, activations)
at one logged step, made on the writer's thread from one flat float32 snapshot: a
histogram per tensor (`<kind>/<name>`), and with images the grid image of all of them
(`images/<kind>`, see summarylib.ops.tensor_grid) and, for parameters, the grid of
their per-element variance over each window of logged steps, written as the window
completes (`images/parameters_variance`: which weights still move). The other kinds,
whose per-step changes are noise more than signal, do without a variance view.

Where the work runs: for kinds large enough to be worth it, in the view worker process
(watch_remote: the snapshot is written straight into shared memory, and the finished
Summary comes back), else, and whenever the worker cannot serve, on the writer's thread
with a small pool. Both make the same bytes from the same snapshot.

Shared by the PyTorch and Keras watches; knows no framework.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from summarylib.integrations import watch_remote
from summarylib.ops.histogram import encoding as histogram_encoding
from summarylib.ops.tensor_grid import GridLayout, WindowVariance, grid_summary, layout
from summarylib.writer.context import WRITER_THREAD_PREFIX
from summarylib.writer.queue import queue_summary
from summarylib.writer.summary_writer import SummaryWriter

KINDS = ("parameters", "gradients", "activations")
# Threads that make the parts of one step's views at once (histograms, images).
POOL_THREADS = 3


class KindViews:
    """The views of one kind: the layout of the last names and shapes seen (reused while
    they stay the same) and the window's variance sums, which live on the writer's thread."""

    def __init__(
        self,
        kind: str,
        images: bool,
        variance_steps: int,
        buckets: int | None,
        histograms: bool = True,
        grid: bool = True,
    ) -> None:
        """`images`: the image views (the grid image, and for parameters the variance
        image); `histograms=False` leaves out the histograms and `grid=False` the grid
        image itself, keeping the variance (what the live dashboard asks: images only,
        maybe only the variance)."""
        self.kind = kind
        self._images = images and grid
        self._histograms = histograms
        self._buckets = histogram_encoding.DEFAULT_BUCKETS if buckets is None else buckets
        wanted = images and variance_steps > 1 and kind == "parameters"
        self._variance = WindowVariance(variance_steps) if wanted else None
        self._settings = (kind, images, variance_steps, buckets, histograms, grid)
        self._layout: GridLayout | None = None
        self._lock = threading.Lock()  # the variance's state, should two writers' threads share it
        # The worker these views are registered with, their id there, the layout it has.
        self._remote: tuple[watch_remote.Worker, int] | None = None
        self._remote_layout: GridLayout | None = None

    @property
    def settings(self) -> tuple:
        """The arguments these views were made with."""
        return self._settings

    @property
    def images(self) -> bool:
        """Whether the views include the grid image."""
        return self._images

    @property
    def buckets(self) -> int:
        """The histograms' bucket count."""
        return self._buckets

    @property
    def has_variance(self) -> bool:
        """Whether the views include the window variance image."""
        return self._variance is not None

    def layout_of(self, names: Sequence[str], shapes: Sequence[Sequence[int]]) -> GridLayout:
        """The layout of these tensors, the previous one when nothing changed."""
        names, shapes = tuple(names), tuple(tuple(s) for s in shapes)
        if self._layout is None or self._layout.names != names or self._layout.shapes != shapes:
            self._layout = layout(names, shapes)
        return self._layout

    def buffer(self, writer: SummaryWriter, size: int) -> tuple[np.ndarray, watch_remote.Slot | None]:
        """Where to put the next snapshot of `size` float32 values for `writer`: a slot of
        the view worker when it serves these views (and the slot, to pass to `queue`), else
        a new array (and None)."""
        if watch_remote.wanted(size):
            worker = watch_remote.worker_for(writer)
            if worker is not None:
                try:
                    slot = worker.slot(size)
                except OSError:  # out of memory or descriptors: this view on the writer's thread
                    return np.empty(size, np.float32), None
                return slot.values[:size], slot
        return np.empty(size, np.float32), None

    def queue(
        self,
        writer: SummaryWriter,
        step: int,
        grid: GridLayout,
        values: np.ndarray,
        ready: Callable[[], Any] | None = None,
        slot: watch_remote.Slot | None = None,
        wall_time: float | None = None,
    ) -> None:
        """Queue this kind's summaries of flat `values` (the tensors of `grid`, in order) at
        `step` (and `wall_time`, else now); `ready()`, if given, runs first on the writer's
        thread (a device copy's synchronization). With the `slot` that `buffer` gave, the
        worker makes them."""
        tag = f"{self.kind}/*"
        if slot is None or not slot.owner.alive:
            queue_summary(writer, "watch", tag, step, self.summary, (grid, ready, values), wall_time)
            return
        worker = slot.owner
        ticket = worker.request(self._remote_id(worker, grid), slot, values.size)
        queue_summary(writer, "watch", tag, step, self._answer, (grid, worker, ticket, values), wall_time)

    def _remote_id(self, worker: watch_remote.Worker, grid: GridLayout) -> int:
        """These views' id in `worker` (registering them there first), which has `grid`."""
        if self._remote is None or self._remote[0] is not worker:
            self._remote, self._remote_layout = (worker, worker.new_views(*self._settings)), None
        views_id = self._remote[1]
        if self._remote_layout is not grid:
            worker.send_layout(views_id, grid)
            self._remote_layout = grid
        return views_id

    def _answer(
        self, grid: GridLayout, worker: watch_remote.Worker, ticket: watch_remote.Ticket, values: np.ndarray
    ) -> bytes:
        """The worker's Summary, on the writer's thread; made here if the worker is gone
        (the snapshot is still in the slot; a variance window starts over)."""
        try:
            return worker.answer(ticket)
        except watch_remote.WorkerGone:
            return self.summary(grid, None, values)

    def summary(self, grid: GridLayout, ready: Callable[[], Any] | None, values: np.ndarray) -> bytes:
        """One serialized Summary holding every value of this kind at one step. Its three
        parts (histograms, the grid image, the variance image) are made at once on a small
        pool: their numpy and deflate work releases the GIL, so a second core shares it."""
        if ready is not None:
            ready()
        jobs: list[tuple[Callable[..., bytes], tuple]] = []
        if self._histograms:
            jobs.append((self._histogram_summaries, (grid, values)))
        if self._images:
            jobs.append((grid_summary, (f"images/{self.kind}", values, grid)))
        if self._variance is not None:
            jobs.append((self._variance_summary, (grid, values)))
        try:
            parts = [_pool().submit(job, *args) for job, args in jobs]
        except RuntimeError:  # the interpreter is exiting: no new threads, so make them here
            return b"".join(job(*args) for job, args in jobs)
        return b"".join(part.result() for part in parts)  # concatenated Summaries are one Summary

    def _histogram_summaries(self, grid: GridLayout, values: np.ndarray) -> bytes:
        return b"".join(
            histogram_encoding.summary(
                f"{self.kind}/{name}", values[offset : offset + size], self._buckets, None, exact=False
            )
            for name, offset, size in zip(grid.names, grid.offsets, grid.sizes, strict=True)
        )

    def _variance_summary(self, grid: GridLayout, values: np.ndarray) -> bytes:
        window = self._variance
        if window is None:
            return b""
        with self._lock:
            variance = window.update(values)
        return b"" if variance is None else grid_summary("images/parameters_variance", variance, grid)


# Named as writers' threads: warnings about the data wait for the user's thread.
_POOL_PREFIX = f"{WRITER_THREAD_PREFIX}-watch"
_executor: ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    """The watch views' shared pool, started on first use."""
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=POOL_THREADS, thread_name_prefix=_POOL_PREFIX)
        return _executor


def _forget_pool_after_fork() -> None:
    """A forked child has none of the parent's threads: it starts its own pool."""
    global _executor, _executor_lock
    _executor, _executor_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_pool_after_fork)
