"""The worker's output: events encoded and framed, gathered during a drain and handed to
the OS in large writes, and at least once every given interval.

An event that fails to encode (a value the call let through, an encoder bug) is dropped
alone and handed to the sink's `event_failed`; a batch that fails is encoded again one by one, so
one bad event never takes a neighbour with it.

A drain of a long queue (a caller that outpaces the writer) would otherwise hold what it
encoded until a chunk fills or the queue empties; writing whenever `write_secs` (half the
writer's flush interval) has passed since the last write keeps the SIGKILL promise: what
was encoded longer ago than that is with the OS.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

import numpy as np

from summarylib.format import records
from summarylib.writer import scalar_stream
from summarylib.writer.event_codec import BATCH_MAKERS

# Bytes gathered before one write to the OS.
WRITE_CHUNK = 1 << 20


class Sink(Protocol):
    """Where an Output's events go: the writer's engine."""

    progressed_at: float  # when an event was last encoded (time.monotonic)

    def write_records(self, parts: list[bytes | np.ndarray], count: int) -> None:
        """Write framed records, `count` events, to the run's file."""

    def written_elsewhere(self) -> None:
        """Count one event its maker wrote to a file of its own (series_files)."""

    def event_failed(self, make_event: Callable[..., Any], args: tuple, error: Exception) -> None:
        """Count and record one event whose maker failed."""


class Output:
    """Framed records gathered by the worker; `sink.write_records(parts, count)` hands them
    to the file when a chunk is full, when `write_secs` has passed since the last write,
    and when the worker asks."""

    def __init__(self, sink: Sink, write_secs: float, framer: records.Framer) -> None:
        self._sink = sink
        self._write_secs = write_secs
        self._framer = framer
        self._deadline = time.monotonic() + write_secs
        self._parts: list[bytes | np.ndarray] = []
        self._size = 0
        self._count = 0
        self._previous_event: bytes | None = None  # see event()

    def add(self, framed: Iterable[bytes | np.ndarray], count: int) -> None:
        """Add `count` framed records, given as consecutive parts; write when a chunk is
        full or the flush interval has passed."""
        for part in framed:
            self._parts.append(part)
            self._size += len(part)
        self._count += count
        now = self._sink.progressed_at = time.monotonic()
        if self._size >= WRITE_CHUNK or now >= self._deadline:
            self.write()

    def write(self) -> None:
        """Hand what was gathered to the OS."""
        self._deadline = time.monotonic() + self._write_secs
        if self._parts:
            parts, count = self._parts, self._count
            self._parts, self._size, self._count = [], 0, 0
            self._sink.write_records(parts, count)

    def event(self, make_event: Callable[..., Any], wall_time: float, step: int, args: tuple) -> None:
        """Encode and frame one event, `make_event(wall_time, step, *args)`; one whose
        maker fails goes to the sink's `event_failed`, alone."""
        try:
            event = make_event(wall_time, step, *args)
            if event is None:  # the maker wrote it to a file of its own (series_files)
                self._sink.written_elsewhere()
            else:
                self.add(self._framer.frame(event), 1)
                # Held until the next event replaces it: freed at once after its write, a
                # megabyte event at the top of the heap is trimmed back to the OS, and the
                # next one's buffers fault in fresh pages (1000x1000 images: 2.3 -> 4.5 ms
                # of the writer's time each, bench_engine's sustained row 350 -> 185/s).
                self._previous_event = event
        except Exception as error:  # a bad value, an encoder bug, a series file's write
            self._sink.event_failed(make_event, args, error)

    def run(self, make_event: Callable[..., Any], items: list[tuple]) -> None:
        """Encode queued `(wall_time, step, args, ...)` items of one batch maker at once
        (see event_codec.BATCH_MAKERS); if that fails, one by one."""
        try:
            groups = BATCH_MAKERS[make_event](items)
            framed = [(positions, records.frame_rows(rows)) for positions, rows in groups]
            joined = records.interleaved(framed, len(items))
        except Exception:
            for wall_time, step, args, *_ in items:
                self.event(make_event, wall_time, step, args)
            return
        self.add((joined,), len(items))

    def lane(self, head: list) -> None:
        """Encode events taken from the scalar lane (see scalar_stream), each run of one
        maker at once; a run that fails, one by one."""
        makers, tags, values, walls, steps = scalar_stream.columns_of(head)
        count = len(makers)
        if makers.count(makers[0]) == count:
            runs: Iterable = ((makers[0], 0, count),)
        else:  # two ops queue into one engine (sl.scalar and add_scalar of one logdir)
            runs = _runs(makers)
        for columns, start, end in runs:
            part = slice(start, end)
            try:
                groups = columns.events(walls[part], steps[part], tags[part], values[part])
                framed = [(positions, records.frame_rows(rows)) for positions, rows in groups]
                joined = records.interleaved(framed, end - start)
            except Exception:
                for index in range(start, end):
                    args = (tags[index], values[index], *columns.rest)
                    self.event(columns.make_event, walls[index], steps[index], args)
                continue
            self.add((joined,), end - start)


def _runs(makers: list) -> Iterator[tuple[Any, int, int]]:
    """`(maker, start, end)` of each stretch of equal makers."""
    start = 0
    for maker, stretch in itertools.groupby(makers):
        end = start + sum(1 for _ in stretch)
        yield maker, start, end
        start = end
