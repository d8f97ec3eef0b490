"""Small helpers the op tests share."""

from __future__ import annotations

import numpy as np

from summarylib.reader import iter_events


def written_values(path: str) -> list:
    """[(step, Summary.Value)] of one event file, in file order."""
    return [(e.step, v) for e in iter_events(path) for v in e.summary.value]


class ArrayLike:
    """A tensor of some framework, seen only through __array__ (sharing memory with the
    array it wraps, as torch's CPU tensors do)."""

    def __init__(self, value):
        self.value = np.asarray(value)

    def __array__(self, dtype=None, copy=None):
        return self.value
