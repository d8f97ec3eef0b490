"""The PNG encoder's deflate: which library compresses which data, and what stands in for
a library that is missing.

Measured on photos, plots, gradients, text, parameter maps and noise (benchmarks/bench_media.py,
benchmarks/real_images.py):

- ISA-L (python-isal) at its level 1 compresses filtered photos fastest at about pillow's
  size: 0.6 ms for a 256x256 RGB photo, where zlib at level 1 takes 3 to 8 ms and
  libdeflate at level 1 twice ISA-L's time.
- Its fast levels find few of the long matches of redundant data. Where a sample deflates
  to under a quarter of its size (smooth maps: 1.26x pillow's size with ISA-L), libdeflate's
  level 1 takes its place (1.02x, in 2.7 ms for a 1000x1000 map; zlib needs 11 ms or
  more); under an eighth (plots, text, gradients, masks: up to 2.1x pillow's size), ISA-L
  runs (0.1 ms for a 256x256 RGB plot) and then libdeflate's level 7, and the smaller
  output is kept. Its lazy matching is what two-level images (black text on white) need:
  0.9x pillow's size where zlib's level 4 (the choice before) gave 1.2-1.4x, and on plots
  and gradients it is as small as zlib's level 4 in less time (1.5 ms for a 1000x1000
  gradient, where zlib took 2.9 ms). Two-level images take 0.3-0.7 ms longer a 256x256
  image than with zlib's level 4, still 1.5x pillow's speed.
- Data that does not compress (noise) is stored: a zlib stream of stored blocks, handed
  back as parts (block headers between views of the data) for the PNG's one join, so the
  bytes are copied once. zlib's level 0 copied them twice more, into its output buffer
  and then into the bytes it returned, each time into memory fresh from the OS: with the
  page faults, a third of a stored 256x256 RGB image's cost.

Without isal or without the `deflate` package (libdeflate), zlib stands in for it, with one
warning at import: the same pixels, slower encoding, for smooth maps larger files.
"""

from __future__ import annotations

import struct
import warnings
import zlib
from collections.abc import Callable

import numpy as np

_ISAL_LEVEL = 1
_ZLIB_LEVEL = 4
_LIBDEFLATE_SMOOTH_LEVEL = 1
_LIBDEFLATE_REDUNDANT_LEVEL = 7
# Data that ISA-L deflates to more than this fraction of it is stored.
INCOMPRESSIBLE = 0.98
# Data that ISA-L deflates to under 1/_SMOOTH of it is deflated again by libdeflate's fast
# level, under 1/_REDUNDANT of it by its redundant level, and the smallest output kept.
# Where the fast level runs without ISA-L first (a sample said smooth) and gives under
# 1/_SMOOTH_REDUNDANT, the redundant level runs too.
_SMOOTH = 4
_REDUNDANT = 8
_SMOOTH_REDUNDANT = 10
# A zlib stream of stored blocks: its header (deflate, 32 KiB window, the fastest level, as
# zlib's level 0 writes it), each block's header (final-block bit, length, its complement,
# little-endian) and at most _STORED_BLOCK bytes, then the Adler-32 of the data (big-endian).
_STORED_ZLIB_HEADER = b"\x78\x01"
_STORED_BLOCK_HEADER = struct.Struct("<BHH")
_STORED_BLOCK = 0xFFFF
_ADLER = struct.Struct(">I")

Part = bytes | memoryview
"""A piece of a zlib stream, joined with the others where the stream is written."""


def _missing(package: str, purpose: str) -> None:
    warnings.warn(
        f"summarylib: {package} cannot be imported, so PNGs are deflated with zlib instead "
        f"({purpose}); the pixels are the same. Install it with `pip install {package}`.",
        RuntimeWarning,
        stacklevel=2,
    )


def _zlib(data: np.ndarray) -> bytes:
    return zlib.compress(data.data, _ZLIB_LEVEL)


def _zlib_fast(data: np.ndarray) -> bytes:
    return zlib.compress(data.data, _ISAL_LEVEL)


fast: Callable[[np.ndarray], bytes]
"""A quick zlib stream of `data`, also the encoder's estimate of how well data compresses
(ISA-L's, or zlib's without isal)."""
crc32: Callable[[Part, int], int]
"""CRC-32 of the bytes, continuing from a CRC (0 to start): PNG's chunk checksum."""
_adler32: Callable[[Part], int]
_smooth: Callable[[np.ndarray], bytes]
_redundant: Callable[[np.ndarray], bytes]

try:
    from isal import isal_zlib
except ImportError:
    _missing("isal", "ISA-L's fast deflate: encoding several times slower")
    fast, crc32, _adler32 = _zlib_fast, zlib.crc32, zlib.adler32
else:

    def _isal_fast(data: np.ndarray) -> bytes:
        return isal_zlib.compress(data, _ISAL_LEVEL)

    fast, crc32, _adler32 = _isal_fast, isal_zlib.crc32, isal_zlib.adler32

try:
    from deflate import zlib_compress
except ImportError:
    _missing("deflate", "libdeflate, for smooth and redundant images: those PNGs slower or larger")
    _smooth = _redundant = _zlib
else:

    def _libdeflate_smooth(data: np.ndarray) -> bytes:
        return bytes(zlib_compress(data, _LIBDEFLATE_SMOOTH_LEVEL))  # it returns a bytearray

    def _libdeflate_redundant(data: np.ndarray) -> bytes:
        return bytes(zlib_compress(data, _LIBDEFLATE_REDUNDANT_LEVEL))

    _smooth, _redundant = _libdeflate_smooth, _libdeflate_redundant


def stored(data: np.ndarray) -> list[Part]:
    """A zlib stream of `data` (C-contiguous) in stored blocks, for data that does not
    compress: its parts, the blocks' bytes as views of `data`, not copies."""
    view = data.data.cast("B")
    parts: list[Part] = [_STORED_ZLIB_HEADER]
    for start in range(0, max(len(view), 1), _STORED_BLOCK):
        block = view[start : start + _STORED_BLOCK]
        final = start + _STORED_BLOCK >= len(view)
        parts += (_STORED_BLOCK_HEADER.pack(final, len(block), len(block) ^ 0xFFFF), block)
    parts.append(_ADLER.pack(_adler32(view)))
    return parts


def deflate(data: np.ndarray, ratio: float | None = None) -> list[Part]:
    """A zlib stream of `data`, as small as the data's redundancy is worth the time for, in
    parts to be joined (more than one where it is stored, see `stored`).

    `ratio` is how well a sample of the data compresses (`fast`'s output over its input),
    where the caller has measured it. On very redundant data (or without a sample) ISA-L
    runs first, as it is quickest there and its output tells how redundant the whole is.
    """
    if ratio is not None and ratio > INCOMPRESSIBLE:
        return stored(data)
    return [_compressed(data, ratio)]


def _compressed(data: np.ndarray, ratio: float | None) -> bytes:
    """`deflate`'s stream of data that compresses."""
    if ratio is not None and ratio * _REDUNDANT >= 1:
        if ratio * _SMOOTH >= 1:
            return fast(data)
        compressed = _smooth(data)
        if len(compressed) * _SMOOTH_REDUNDANT < data.nbytes and _redundant is not _smooth:
            compressed = min(compressed, _redundant(data), key=len)
        return compressed
    compressed = fast(data)
    if len(compressed) * _SMOOTH >= data.nbytes:
        return compressed
    coder = _redundant if len(compressed) * _REDUNDANT < data.nbytes else _smooth
    return min(compressed, coder(data), key=len)
