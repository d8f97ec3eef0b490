"""The one PNG encoder: every image summarylib writes (the v2 op, compat.v1, compat.contrib and
whatever is built on them) goes through `encode_png`.

Written by hand, with numpy and ISA-L, for speed; what makes PNGs small is kept:

- Row filters. PNG predicts each byte from its neighbours to the left (a), above (b) and
  above-left (c) and stores the difference: None, Sub (x - a), Up (x - b), Average
  (x - floor((a + b) / 2)) or Paeth (x - whichever of a, b, c is nearest a + b - c). libpng
  chooses one per row by the smallest sum of absolute differences (the bytes read as signed);
  here that sum is taken over a sample of rows and the winner filters the whole image, one
  vectorized pass, where per-row choice measured no smaller on photos, plots, gradients, text
  and noise. A filter has to beat None by a margin to be used: on noise none predicts and
  None costs nothing.
- Deflate with ISA-L (python-isal) at its level 1: 0.6 ms for a 256x256 RGB photo where
  zlib at level 1 takes 3 ms and pillow (zlib level 6, per-row filters) 10 to 20 ms, at about
  the same size; 1.5 ms for a 1000x1000 image of noise (libdeflate: 12 ms). Its fast levels
  find few of the long matches of very redundant data (gradients, text, plots: 1.2 to 2.2x
  pillow's size), so output smaller than 1/8 of its input, which zlib also compresses
  quickly, is deflated again with zlib at level 4 and the smaller kept.

Measured on photo-like, plot, gradient, text, parameter-map and noise images: at most 1.07x
the bytes of pillow's PNGs at its default compression (tests/test_png.py holds it to 1.1x).

The result is an 8-bit PNG (gray, gray+alpha, RGB or RGBA, not interlaced) of one IDAT chunk
that decodes to exactly the given pixels.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np
from isal import isal_zlib

NONE, SUB, UP, AVERAGE, PAETH = range(5)
FILTERS = (NONE, SUB, UP, AVERAGE, PAETH)

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}  # gray, gray+alpha, RGB, RGBA
_HEADER = struct.Struct(">IIBBBBB")  # width, height, depth, color, compression, filter, interlace
_UINT32 = struct.Struct(">I")

# The rows the filter is chosen from: evenly spread over the image, at most this many.
_SAMPLE_ROWS = 16
# A filter other than None is used only if its sum of absolute differences is below this
# fraction of None's. On noise every filter scores None's, give or take a few percent over a
# small sample, and None is free; on photos, plots, gradients and maps the best filter
# scores at most about half of None's.
_MARGIN = 0.9
# Deflated output smaller than 1/_REDUNDANT of its input is deflated again with zlib.
_REDUNDANT = 8
_ZLIB_LEVEL = 4
_ISAL_LEVEL = 1


def encode_png(image: np.ndarray, filter_type: int | None = None) -> bytes:
    """One `[h, w, c]` uint8 image (c in 1..4: gray, gray+alpha, RGB, RGBA) as an 8-bit PNG.

    `filter_type` (one of `FILTERS`) filters every row with that filter; by default the
    filter is chosen from a sample of rows. Both decode to the same pixels.
    """
    height, width, channels = image.shape
    rows = image.reshape(height, width * channels)
    if filter_type is None:
        filter_type = choose_filter(rows, channels)
    header = _HEADER.pack(width, height, 8, _COLOR_TYPES[channels], 0, 0, 0)
    return b"".join(
        [
            _SIGNATURE,
            *_chunk(b"IHDR", header),
            *_chunk(b"IDAT", _deflate(filter_rows(rows, channels, filter_type))),
            *_END,
        ]
    )


def choose_filter(rows: np.ndarray, bpp: int) -> int:
    """The filter with the smallest sum of absolute differences (bytes read as signed) over a
    sample of `rows` (`[h, w * c]` uint8, `bpp = c` bytes a pixel), libpng's measure of how
    well a filter predicts; None unless another beats it by a margin."""
    height, length = rows.shape
    sample = np.unique(np.linspace(0, height - 1, min(height, _SAMPLE_ROWS)).astype(np.intp))
    # Each sampled row below the row above it (zeros above the first), as a padded 2-row image.
    padded = np.zeros((len(sample), 2, length + bpp), np.uint8)
    padded[:, 1, bpp:] = rows[sample]
    above = sample > 0
    padded[above, 0, bpp:] = rows[sample[above] - 1]
    filtered = np.empty((len(sample), 1, length), np.uint8)
    costs = []
    for filter_type in FILTERS:
        _filter(*_neighbours(padded, bpp), filter_type, out=filtered)
        costs.append(int(np.abs(filtered.view(np.int8)).view(np.uint8).sum(dtype=np.uint64)))
    best = min(FILTERS, key=costs.__getitem__)
    return best if costs[best] < _MARGIN * costs[NONE] else NONE


def filter_rows(rows: np.ndarray, bpp: int, filter_type: int) -> np.ndarray:
    """PNG's scanlines of `rows` (`[h, w * c]` uint8, `bpp = c` bytes a pixel): each row
    filtered with `filter_type`, after a byte naming it."""
    height, length = rows.shape
    scanlines = np.empty((height, 1 + length), np.uint8)
    scanlines[:, 0] = filter_type
    if filter_type == NONE:
        scanlines[:, 1:] = rows
        return scanlines
    padded = np.zeros((height + 1, length + bpp), np.uint8)
    padded[1:, bpp:] = rows
    _filter(*_neighbours(padded, bpp), filter_type, out=scanlines[:, 1:])
    return scanlines


def _neighbours(padded: np.ndarray, bpp: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Views of rows padded with a zero row above and `bpp` zero bytes on the left: each
    byte x and the bytes it is predicted from, a (left), b (above) and c (above-left)."""
    return (
        padded[..., 1:, bpp:],
        padded[..., 1:, :-bpp],
        padded[..., :-1, bpp:],
        padded[..., :-1, :-bpp],
    )


def _filter(
    x: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray, filter_type: int, out: np.ndarray
) -> None:
    """`x` minus its prediction by `filter_type`, modulo 256, into `out`."""
    if filter_type == NONE:
        np.copyto(out, x)
    elif filter_type == SUB:
        np.subtract(x, a, out=out)
    elif filter_type == UP:
        np.subtract(x, b, out=out)
    elif filter_type == AVERAGE:
        np.subtract(x, (a & b) + ((a ^ b) >> 1), out=out)  # floor((a + b) / 2) in 8 bits
    else:
        np.subtract(x, _paeth(a, b, c), out=out)


def _paeth(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Paeth's predictor: whichever of a, b, c is nearest p = a + b - c, ties in that order.

    Chosen with bit masks (0xFF where taken) and computed in place: `np.where` on bytes and
    fresh temporaries for each step measured several times slower.
    """
    to_a = b.astype(np.int16)
    to_a -= c  # p - a
    to_b = a.astype(np.int16)
    to_b -= c  # p - b
    to_c = to_a + to_b  # p - c
    for distance in (to_a, to_b, to_c):
        np.abs(distance, out=distance)
    take_b = (to_b <= to_c).view(np.uint8)
    take_a = (to_a <= to_b).view(np.uint8)
    take_a &= (to_a <= to_c).view(np.uint8)
    np.negative(take_b, out=take_b)  # 1 -> 0xFF
    np.negative(take_a, out=take_a)
    prediction = b ^ c
    prediction &= take_b
    prediction ^= c  # b or c
    take_a &= a ^ prediction
    prediction ^= take_a  # a, b or c
    return prediction


def _deflate(data: np.ndarray) -> bytes:
    """A zlib stream of `data`: ISA-L's, or zlib's where the data is redundant enough for
    zlib to be both quick and smaller."""
    compressed = isal_zlib.compress(data, _ISAL_LEVEL)
    if len(compressed) * _REDUNDANT < data.nbytes:
        compressed = min(compressed, zlib.compress(data, _ZLIB_LEVEL), key=len)
    return compressed


def _chunk(kind: bytes, data: bytes) -> tuple[bytes, bytes, bytes, bytes]:
    """A PNG chunk's parts: length, type, data, CRC-32 of type and data."""
    return _UINT32.pack(len(data)), kind, data, _UINT32.pack(isal_zlib.crc32(data, isal_zlib.crc32(kind)))


_END = _chunk(b"IEND", b"")
