"""The PNG encoder's deflate: which library compresses which data, and what stands in for
a library that is missing.

Measured on photos, plots, gradients, text, parameter maps and noise (benchmarks/bench_media.py,
benchmarks/real_images.py):

- ISA-L (python-isal) at its level 1 compresses filtered photos fastest at about pillow's
  size: 0.6 ms for a 256x256 RGB photo, where zlib at level 1 takes 3 to 8 ms and
  libdeflate at level 1 twice ISA-L's time.
- Its fast levels find few of the long matches of redundant data. Where its output is under
  a quarter of the input (smooth maps: 1.26x pillow's size), libdeflate's level 1 takes its
  place (1.02x, in 2.7 ms for a 1000x1000 map; zlib needs 14 ms or more); where even that
  is under a tenth (gradients, text, plots: up to 2.1x pillow's size), zlib's level 4 also
  runs (it is quick on such data) and the smaller output is kept.
- Data that does not compress (noise) is stored: zlib's level 0, a copy and a checksum.

Without isal or without the `deflate` package (libdeflate), zlib stands in for it, with one
warning at import: the same pixels, slower encoding, for smooth maps larger files.
"""

from __future__ import annotations

import warnings
import zlib

import numpy as np

_ISAL_LEVEL = 1
_ZLIB_LEVEL = 4
# Data that ISA-L deflates to more than this fraction of it is stored.
INCOMPRESSIBLE = 0.98
# Data that ISA-L deflates to under 1/_SMOOTH of it is deflated by libdeflate instead; if
# that gives under 1/_REDUNDANT, by zlib too, and the smaller is kept.
_SMOOTH = 4
_REDUNDANT = 10


def _missing(package: str, purpose: str) -> None:
    warnings.warn(
        f"summarylib: {package} cannot be imported, so PNGs are deflated with zlib instead "
        f"({purpose}); the pixels are the same. Install it with `pip install {package}`.",
        RuntimeWarning,
        stacklevel=2,
    )


def _zlib(data: np.ndarray) -> bytes:
    return zlib.compress(data, _ZLIB_LEVEL)


try:
    from isal.isal_zlib import compress as _isal_compress
    from isal.isal_zlib import crc32
except ImportError:
    _missing("isal", "ISA-L's fast deflate: encoding several times slower")
    _isal_compress = zlib.compress
    crc32 = zlib.crc32

try:
    from deflate import zlib_compress as _libdeflate_compress

    def _smooth(data: np.ndarray) -> bytes:
        return _libdeflate_compress(data, 1)

except ImportError:
    _missing("deflate", "libdeflate, for smooth images: those PNGs slower or larger")
    _smooth = _zlib


def fast(data: np.ndarray) -> bytes:
    """A quick zlib stream of `data`, also the encoder's estimate of how well data
    compresses (ISA-L's, or zlib's without isal)."""
    return _isal_compress(data, _ISAL_LEVEL)


def stored(data: np.ndarray) -> bytes:
    """A zlib stream of `data` in stored blocks: for data that does not compress."""
    return zlib.compress(data, 0)


def deflate(data: np.ndarray, ratio: float | None = None) -> bytes:
    """A zlib stream of `data`, as small as the data's redundancy is worth the time for.

    `ratio` is how well a sample of the data compresses (`fast`'s output over its input),
    where the caller has measured it; otherwise `fast`'s output on the whole data tells.
    """
    if ratio is None:
        compressed = fast(data)
        ratio = len(compressed) / max(data.nbytes, 1)
        if ratio * _SMOOTH >= 1:
            return compressed
    elif ratio > INCOMPRESSIBLE:
        return stored(data)
    elif ratio * _SMOOTH >= 1:
        return fast(data)
    compressed = _smooth(data)
    if _smooth is not _zlib and len(compressed) * _REDUNDANT < data.nbytes:
        compressed = min(compressed, _zlib(data), key=len)
    return compressed
