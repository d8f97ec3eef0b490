"""The PNG encoder's deflate: which library compresses which data, and what stands in for
a library that is missing.

Measured on photos, plots, gradients, text, parameter maps and noise (benchmarks/bench_media.py,
benchmarks/real_images.py):

- ISA-L (python-isal) at its level 1 compresses filtered photos fastest at about pillow's
  size: 0.6 ms for a 256x256 RGB photo, where zlib at level 1 takes 3 to 8 ms and
  libdeflate at level 1 twice ISA-L's time.
- Its fast levels find few of the long matches of redundant data. Where its output is under
  a quarter of the input (smooth maps: 1.26x pillow's size), libdeflate's level 1 finds them
  (1.02x, in 2.7 ms for a 1000x1000 map, zlib needs 14 ms or more); under an eighth
  (gradients, text, plots), zlib's level 4 also runs (it is quick on such data) and the
  smallest output is kept.
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
# Deflated output under 1/_SMOOTH of its input is deflated again with libdeflate, under
# 1/_REDUNDANT of it with zlib too; the smallest is kept.
_SMOOTH = 4
_REDUNDANT = 8


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


def deflate(data: np.ndarray) -> bytes:
    """The smallest zlib stream of `data` that the data's redundancy is worth the time for."""
    compressed = fast(data)
    if len(compressed) * _SMOOTH >= data.nbytes:
        return compressed
    coders = [_smooth]
    if len(compressed) * _REDUNDANT < data.nbytes and _smooth is not _zlib:
        coders.append(_zlib)
    return min([compressed, *(coder(data) for coder in coders)], key=len)
