"""The memory of the arrays ops snapshot for the writer's queue, recycled: an op copies
its input on the caller's thread (`summarylib.ops.convert.snapshot`), and the queue hands
the copy back here once its event is encoded (`summarylib.writer.queue`)."""

from __future__ import annotations

import threading
import weakref

import numpy as np


class SnapshotPool:
    """Recycles the memory of large snapshots.

    A snapshot of a large array copied into freshly allocated memory pays a page fault
    per 4 KiB page, five times the cost of the copy itself; a training loop snapshots
    arrays of the same size every step, so the memory of snapshots already written is
    handed back (`release`) and reused. Numeric arrays only: object arrays hold
    references that must not be recycled.

    At most `max_free_bytes` wait to be reused: 128 MiB holds a 10,000,000-value float64
    snapshot, or two float32 ones (a histogram of a large layer's weights every step:
    with 32 MiB those were never recycled, and page faults took most of the caller's
    25 ms a call).
    """

    MIN_BYTES = 1 << 16

    def __init__(self, max_free_bytes: int = 128 << 20) -> None:
        self._max_free_bytes = max_free_bytes
        self._free: list[np.ndarray] = []
        self._free_bytes = 0
        # Buffers of copies not yet released; an entry goes when its copy is garbage
        # collected unreleased (copies made for encode() or the compat layers).
        self._issued: weakref.WeakValueDictionary[int, np.ndarray] = weakref.WeakValueDictionary()
        self._lock = threading.Lock()

    def copy(self, array: np.ndarray) -> np.ndarray:
        """A copy of `array`, in recycled memory when there is some of its size."""
        size = array.nbytes
        if size < self.MIN_BYTES or array.dtype.kind not in "biufc":
            return array.copy()
        buffer = None
        with self._lock:
            for index, candidate in enumerate(self._free):
                if candidate.nbytes == size:
                    buffer = self._free.pop(index)
                    self._free_bytes -= size
                    break
        if buffer is None:
            buffer = np.empty(size, dtype=np.uint8)
        copy = buffer.view(array.dtype).reshape(array.shape)
        np.copyto(copy, array)
        with self._lock:
            self._issued[id(buffer)] = buffer
        return copy

    def release(self, array: object) -> None:
        """`array`, a copy made here, will not be used again: its memory may be reused."""
        base = getattr(array, "base", None)
        with self._lock:
            buffer = self._issued.pop(id(base), None)
            if buffer is not None and self._free_bytes + buffer.nbytes <= self._max_free_bytes:
                self._free.append(buffer)
                self._free_bytes += buffer.nbytes


snapshot_pool = SnapshotPool()
