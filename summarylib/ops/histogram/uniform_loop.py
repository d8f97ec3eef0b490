"""sl.histogram's equal-width buckets counted in one loop compiled by numba (imported only
where numba is installed: see compiled)."""

from __future__ import annotations

import numba
import numpy as np

from summarylib.ops.histogram.compiled import COUNTERS

_RUN = 256  # values whose bucket numbers are computed together (vectorised), then counted


@numba.njit(nogil=True, cache=True)
def count_uniform(values, low, width, counts):
    """Adds to `counts` (shape (COUNTERS, k + 1)) each value's bucket number,
    `int((value - low) / width)` in float64 as numpy computes it."""
    numbers = np.empty(_RUN, np.int32)
    for start in range(0, values.size, _RUN):
        run = min(_RUN, values.size - start)
        for i in range(run):
            numbers[i] = np.int32((np.float64(values[start + i]) - low) / width)
        quads = run - run % COUNTERS
        for j in range(0, quads, COUNTERS):
            for k in range(COUNTERS):
                counts[k, numbers[j + k]] += 1
        for j in range(quads, run):
            counts[0, numbers[j]] += 1
