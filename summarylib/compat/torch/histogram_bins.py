"""How many buckets `add_histogram(bins=...)` counts: numpy's, with a bound.

numpy allocates its edges and counts for as many buckets as `bins` asks for: `bins=10**8`
is gigabytes, and a rule such as `"fd"` or `"scott"` asks for `(max - min) / width`
buckets, a width made of the spread of the bulk of the data, so one outlier 1e9 away
asks for billions. Here the number of buckets is known before numpy allocates them:

- an int `bins`, and explicit edges, say it themselves;
- `"fd"`, `"scott"` and `"auto"` are estimated from their bin-width formulas (numpy's
  facts, computed here in O(1) memory beyond a sort for the quartiles); the other rules
  (`"sqrt"`, `"sturges"`, `"rice"`, `"doane"`, `"stone"`) make at most a few tens of
  thousands of buckets for any array that fits in memory.

More buckets than `max_bins` are merged as torch merges them: `factor = count //
max_bins` neighbours added up (so between `max_bins` and `2 * max_bins - 1` remain).
When more than `MAX_BUCKETS` are asked for, the merged buckets (the limit
`min(max_bins, MAX_BUCKETS)`) are counted directly, in `ceil(count / factor)` equal
buckets over `[min, max]` (torch's last merged bucket is narrower): memory stays
O(MAX_BUCKETS) whatever was asked. Explicit edges are the caller's memory already and
are counted as given, then merged. Where float64 cannot split numpy's range (one value
of 4.5e15, or values from -1.7e308 to 1.7e308, on which numpy raises), the buckets are
equal ones over `[min, max]` computed without overflow.
"""

from __future__ import annotations

import math

import numpy as np

MAX_BUCKETS = 65536  # the most buckets a histogram of add_histogram counts
_HUGE_REQUEST = 2.0**62  # where a rule's width is subnormal: span / width overflows


def _spread_rule_buckets(values: np.ndarray, rule: str, span: float) -> int:
    """The buckets numpy's `"fd"`, `"scott"` or `"auto"` makes of `values` (at least;
    `"auto"` of numpy >= 2 makes fewer: it keeps widths of at least half the sqrt rule's)."""
    count = values.size
    if rule == "scott":
        width = (24.0 * math.sqrt(math.pi) / count) ** (1.0 / 3.0) * float(np.std(values))
    else:
        upper, lower = np.percentile(values, [75, 25])
        width = 2.0 * float(upper - lower) * count ** (-1.0 / 3.0)
        if rule == "auto":
            sturges = span / (math.log2(count) + 1.0)
            width = min(width, sturges) if width else sturges
    return math.ceil(min(span / width, _HUGE_REQUEST)) if width > 0 else 1


def requested_buckets(values: np.ndarray, bins: str | int) -> int:
    """How many buckets `np.histogram(values, bins)` would count, or 1 for the rules
    numpy bounds itself (and where float64 cannot tell the spread); `values` finite."""
    if not isinstance(bins, str):
        return bins
    span = float(values.max()) - float(values.min())
    if bins in ("fd", "scott", "auto") and 0 < span < math.inf:
        return _spread_rule_buckets(values, bins, span)
    return 1


def equal_buckets(values: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """`count` equal buckets over `[min, max]` of finite `values`, also where numpy's own
    cannot be made: a range too narrow for float64 to split (one value of 4.5e15) or too
    wide to subtract (-1.7e308 to 1.7e308)."""
    low, high = float(values.min()), float(values.max())
    if low == high:
        return np.array([values.size]), np.array([low, high])
    steps = np.linspace(0.0, 1.0, count + 1)
    edges = np.maximum.accumulate(low * (1.0 - steps) + high * steps)  # no high - low overflow
    edges[0], edges[-1] = low, high
    return np.histogram(values, bins=edges)[0], edges


def _numpy_histogram(values: np.ndarray, bins: str | int | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """numpy's buckets, or equal ones where numpy cannot make them (see `equal_buckets`):
    as many as asked, or Sturges' number for a rule. numpy < 2.2 raises IndexError where
    later ones raise ValueError (a range float64 cannot split, e.g. one value of 4.5e15)."""
    try:
        with np.errstate(all="ignore"):
            return np.histogram(values, bins=bins)
    except (ValueError, IndexError):
        count = bins if isinstance(bins, int) else math.ceil(math.log2(values.size) + 1)
        return equal_buckets(values, count)


def bounded_histogram(
    values: np.ndarray, bins: str | int | np.ndarray, max_bins: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """numpy's `(counts, edges)` of finite `values` for `bins`, merged as torch merges
    them when there are more than `max_bins`, and never more than `MAX_BUCKETS` counted
    (see the module docstring)."""
    limit = MAX_BUCKETS if max_bins is None else min(max_bins, MAX_BUCKETS)
    if not isinstance(bins, np.ndarray):
        requested = requested_buckets(values, bins)
        if requested > MAX_BUCKETS:  # too many to count: count the merged ones directly
            bins = math.ceil(requested / (requested // limit))
    return merged(*_numpy_histogram(values, bins), limit)


def merged(counts: np.ndarray, edges: np.ndarray, max_bins: int | None) -> tuple[np.ndarray, np.ndarray]:
    """`counts` over `edges` with neighbours added up as torch's writer does when there
    are more than `max_bins`: `factor = count // max_bins` at a time, the last group
    padded with empty buckets, its right edge the last edge."""
    if max_bins is None or counts.size <= max_bins:
        return counts, edges
    factor = counts.size // max_bins
    counts = np.pad(counts, (0, -counts.size % factor)).reshape(-1, factor).sum(axis=1)
    return counts, np.append(edges[:-1:factor], edges[-1])
