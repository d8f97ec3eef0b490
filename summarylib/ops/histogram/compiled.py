"""Histogram counts of large snapshots in one compiled loop, where numba is installed
(`pip install -e '.[fast]'` from a clone); numpy's passes are the fallback, with the same counts.

numpy buckets a block of values in several passes over memory (a subtraction, a division,
a conversion to integers, a bincount), each writing a temporary; a loop compiled by numba
does the same arithmetic on each value once, in the registers. Two such loops exist: the
equal-width buckets of `tf.summary.histogram` (here) and torch's default buckets
(summarylib.compat.torch.compiled_scan).

Both count into four arrays taking turns, so that runs of values in one bucket (a narrow
gradient) do not wait on one counter, and both run with the GIL released. numba compiles
each loop the first time on a machine (about 1 s, on the writer's thread) and caches the
machine code on disk; later processes import numba and load it in about 0.4 s.
Snapshots of fewer than `COMPILED_FROM` values stay with numpy, so logging small
histograms never imports numba. `SUMMARYLIB_NUMBA=0` in the environment keeps every count
on numpy's path.
"""

from __future__ import annotations

import functools
import importlib
import os
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from summarylib.ops.histogram.shared_work import shared

COMPILED_FROM = 65536  # fewer values: numpy's passes cost about as much as calling the loop
# From this many values, a count's pieces are shared with a helper thread (see shared_work):
# more pieces than threads, so that a late thread leaves little to wait for.
SHARED_FROM = 1 << 19
SHARED_PIECES = 8
COUNTERS = 4  # count arrays taking turns
# Bucket numbers are int32 in the loop (what the vector conversion gives): at most this many.
MOST_BUCKETS = 1 << 16


@functools.cache
def numba_module() -> Any:
    """numba, or None where it is not installed, cannot be imported, or SUMMARYLIB_NUMBA=0
    turns it off (a numba that fails to import is warned about once)."""
    if os.environ.get("SUMMARYLIB_NUMBA", "1") == "0":
        return None
    try:
        import numba
    except ModuleNotFoundError:  # the [fast] extra is not installed: numpy's path, silently
        return None
    except Exception as error:  # installed but broken (e.g. built for another numpy)
        warnings.warn(
            f"summarylib: numba is installed but cannot be imported ({error}), so histograms "
            "are counted with numpy instead (the same counts, about twice the time).",
            RuntimeWarning,
            stacklevel=2,
        )
        return None
    return numba


@functools.cache
def compiled_loop(module: str, name: str) -> Callable[..., Any] | None:
    """The loop `name` of the numba module `module`, or None where numba does not serve
    (see numba_module) or cannot make the loop: numba raises on importing it where it finds
    no writable directory for its cache (a read-only install and home), and numpy counts
    then, with one warning."""
    if numba_module() is None:
        return None
    try:
        loop: Callable[..., Any] = getattr(importlib.import_module(module), name)
    except Exception as error:
        warnings.warn(
            f"summarylib: numba cannot prepare its histogram loop ({error}), so histograms are "
            "counted with numpy instead (the same counts, about twice the time).",
            RuntimeWarning,
            stacklevel=2,
        )
        return None
    return loop


def uniform_counts(values: np.ndarray, low: float, width: float, buckets: int) -> np.ndarray | None:
    """The counts of float32 or float64 `values` (flat, finite, none below `low`) in
    `buckets + 1` slots of `width` from `low` (the last for values at the right end), as
    numpy's float64 arithmetic counts them; None where the compiled loop does not serve
    (no numba, fewer than COMPILED_FROM values, another dtype, too many buckets)."""
    if values.size < COMPILED_FROM or values.dtype not in (np.float32, np.float64) or buckets >= MOST_BUCKETS:
        return None
    count_uniform = compiled_loop("summarylib.ops.histogram.uniform_loop", "count_uniform")
    if count_uniform is None:
        return None

    def count(piece: np.ndarray) -> np.ndarray:
        counts = np.zeros((COUNTERS, buckets + 1), np.int64)
        count_uniform(piece, low, width, counts)
        return counts

    pieces = SHARED_PIECES if values.size >= SHARED_FROM else 1
    found = shared([functools.partial(count, piece) for piece in np.array_split(values, pieces)])
    return np.sum(found, axis=(0, 1))
