"""The worker's output: framed records gathered during a drain and handed to the OS in
large writes, and at least once every flush interval.

A drain of a long queue (a caller that outpaces the writer) would otherwise hold what it
encoded until a chunk fills or the queue empties; writing whenever `flush_secs` has
passed since the last write keeps the SIGKILL promise: what was encoded more than a flush
interval ago is with the OS.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

# Bytes gathered before one write to the OS.
WRITE_CHUNK = 1 << 20


class Output:
    """Framed records gathered by the worker; `write_records(parts, count)` hands them to
    the file when a chunk is full, when `flush_secs` has passed since the last write, and
    when the worker asks."""

    def __init__(self, write_records: Callable[[list[bytes], int], None], flush_secs: float) -> None:
        self._write_records = write_records
        self._flush_secs = flush_secs
        self._deadline = time.monotonic() + flush_secs
        self._parts: list[bytes] = []
        self._size = 0
        self._count = 0

    def add(self, framed: Iterable[bytes], count: int) -> None:
        """Add `count` framed records, given as consecutive parts; write when a chunk is
        full or the flush interval has passed."""
        for part in framed:
            self._parts.append(part)
            self._size += len(part)
        self._count += count
        if self._size >= WRITE_CHUNK or time.monotonic() >= self._deadline:
            self.write()

    def write(self) -> None:
        """Hand what was gathered to the OS."""
        self._deadline = time.monotonic() + self._flush_secs
        if self._parts:
            parts, count = self._parts, self._count
            self._parts, self._size, self._count = [], 0, 0
            self._write_records(parts, count)
