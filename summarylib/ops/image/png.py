"""The one PNG encoder: every image summarylib writes (the v2 op, compat.v1, compat.contrib and
whatever is built on them) goes through `encode_png`.

Written by hand, with numpy and fast deflate libraries, for speed; what makes PNGs small is kept:

- Row filters. PNG predicts each byte from its neighbours to the left (a), above (b) and
  above-left (c) and stores the difference: None, Sub (x - a), Up (x - b), Average
  (x - floor((a + b) / 2)) or Paeth (x - whichever of a, b, c is nearest a + b - c). One
  filter is chosen from a sample of rows and filters the whole image, one vectorized pass
  over blocks of rows small enough to stay in the CPU's cache (a whole large image's
  temporaries measured 5x slower), where per-row choice measured no smaller. The choice is
  between the two with the smallest sums of absolute differences (libpng's measure, which
  on smooth maps ranks Paeth first where Sub deflates 12% smaller) by the size the fast
  deflate gives each filtered sample; on very redundant samples (gradients, plots), whose
  size that deflate estimates poorly, by libpng's measure alone, with a margin over None.
  A redundant sample of at most 4 byte values (two-level text, binary masks: images a 1- or
  2-bit PNG could hold) is not filtered: a difference of two levels is a third, which
  breaks the long repeats deflate finds (libpng filters no palette image, for the same
  reason), and libpng's measure sees none of that (white 255 reads as -1, black as 0, so
  it ranks Paeth first). Unfiltered, such images measured up to 20% smaller (one two-level
  page of eight 3% larger).
- Deflate (`summarylib.ops.image.png_deflate`): ISA-L's fast level, libdeflate or zlib as the
  sample's redundancy calls for; an image whose sample does not compress (noise) is stored,
  as pillow's output then is too, unfiltered, at the cost of two copies (the filter bytes
  put before each row, then the one join that makes the PNG).

Measured on real photographs, photo-like, plot, gradient, text (antialiased and two-level),
parameter-map and noise images: at most 1.1x the bytes of pillow's PNGs at its default
compression (tests/test_png.py holds every kind to it).

The result is an 8-bit PNG (gray, gray+alpha, RGB or RGBA, not interlaced) of one IDAT chunk
that decodes to exactly the given pixels.
"""

from __future__ import annotations

import struct

import numpy as np

from summarylib.ops.image.png_deflate import INCOMPRESSIBLE, Part, crc32, deflate, fast

NONE, SUB, UP, AVERAGE, PAETH = range(5)
FILTERS = (NONE, SUB, UP, AVERAGE, PAETH)

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}  # gray, gray+alpha, RGB, RGBA
_HEADER = struct.Struct(">IIBBBBB")  # width, height, depth, color, compression, filter, interlace
_UINT32 = struct.Struct(">I")

# The rows the filter is chosen from, evenly spread over the image: about this many bytes
# (ISA-L's time per byte more than doubles past 8 KiB; 4 KiB chose as well as 8 on
# every kind tests/test_png.py holds), and at least _MIN_SAMPLE_ROWS.
_SAMPLE_BYTES = 4096
_MIN_SAMPLE_ROWS = 4
# On a sample whose best filter deflates to under 1/_REDUNDANT of it, the filter is chosen
# by the sum of absolute differences: a filter other than None only if its sum is below
# _MARGIN of None's; one of at most _FEW_VALUES distinct byte values is not filtered.
_REDUNDANT = 8
_MARGIN = 0.9
_FEW_VALUES = 4
# Average and Paeth filter rows in blocks of about this many bytes: their temporaries (7
# bytes a byte for Paeth) then stay in cache, where a whole large image's measured 5x slower.
_BLOCK_BYTES = 131072


def encode_png(image: np.ndarray, filter_type: int | None = None) -> bytes:
    """One `[h, w, c]` uint8 image (c in 1..4: gray, gray+alpha, RGB, RGBA) as an 8-bit PNG.

    `filter_type` (one of `FILTERS`) filters every row with that filter; by default the
    filter is chosen from a sample of rows, and an image whose sample does not compress is
    stored. All decode to the same pixels.
    """
    height, width, channels = image.shape
    rows = image.reshape(height, width * channels)
    if filter_type is None:
        filter_type, ratio = choose_filter(rows, channels)
        scanlines = filter_rows(rows, channels, filter_type)
    else:
        scanlines = filter_rows(rows, channels, filter_type)
        ratio = sample_ratio(scanlines)
    header = _HEADER.pack(width, height, 8, _COLOR_TYPES[channels], 0, 0, 0)
    return b"".join(
        [_SIGNATURE, *_chunk(b"IHDR", [header]), *_chunk(b"IDAT", deflate(scanlines, ratio)), *_END]
    )


def sample_ratio(scanlines: np.ndarray) -> float:
    """How well filtered `scanlines` compress, judged on rows evenly spread over them as
    `choose_filter` judges (the fast deflate's output over its input): what picks the
    deflate when the filter is given, so data that does not compress is stored."""
    sample = scanlines[_sample_rows(*scanlines.shape)]
    return len(fast(sample)) / sample.nbytes


def _sample_rows(height: int, length: int) -> np.ndarray:
    """The indices of the rows a sample is taken from: about _SAMPLE_BYTES of rows of
    `length` bytes, at least _MIN_SAMPLE_ROWS, evenly spread (distinct: at most `height`)."""
    count = min(height, max(_MIN_SAMPLE_ROWS, _SAMPLE_BYTES // length))
    return np.arange(count) * (height - 1) // max(count - 1, 1)


def choose_filter(rows: np.ndarray, bpp: int) -> tuple[int, float]:
    """The filter for `rows` (`[h, w * c]` uint8, `bpp = c` bytes a pixel) and how well they
    compress with it (the fast deflate's output over its input), judged on a sample of rows:
    of the two filters with the smallest sums of absolute differences (bytes read as signed,
    libpng's measure), the one whose sample the fast deflate makes smaller; on very
    redundant samples the first of them, if it beats None by a margin, and None where they
    hold few byte values; None where nothing compresses."""
    length = rows.shape[1]
    sample = _sample_rows(*rows.shape)
    # Each sampled row below the row above it (zeros above the first), as a padded 2-row image.
    padded = np.zeros((len(sample), 2, length + bpp), np.uint8)
    padded[:, 1, bpp:] = rows[sample]
    above = sample > 0
    padded[above, 0, bpp:] = rows[sample[above] - 1]
    neighbours = _neighbours(padded, bpp)
    filtered = [np.empty((len(sample), 1, length), np.uint8) for _ in FILTERS]
    for filter_type in FILTERS:
        _filter(*neighbours, filter_type, out=filtered[filter_type])
    costs = [int(np.abs(block.view(np.int8)).view(np.uint8).sum(dtype=np.uint64)) for block in filtered]
    candidates = sorted(FILTERS, key=costs.__getitem__)[:2]
    sizes = {filter_type: len(fast(filtered[filter_type])) for filter_type in candidates}
    best = min(candidates, key=sizes.__getitem__)
    ratio = sizes[best] / filtered[best].nbytes
    if ratio > INCOMPRESSIBLE:
        return NONE, ratio
    if ratio * _REDUNDANT < 1:
        few = np.count_nonzero(np.bincount(filtered[NONE].ravel(), minlength=256)) <= _FEW_VALUES
        best = candidates[0] if not few and costs[candidates[0]] < _MARGIN * costs[NONE] else NONE
    return best, ratio


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
    block = max(1, _BLOCK_BYTES // length) if filter_type in (AVERAGE, PAETH) else height
    for start in range(0, height, block):
        stop = min(start + block, height)
        _filter(*_neighbours(padded[start : stop + 1], bpp), filter_type, out=scanlines[start:stop, 1:])
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


def _chunk(kind: bytes, data: list[Part]) -> list[Part]:
    """A PNG chunk's parts: length, type, the data (in parts), CRC-32 of type and data."""
    crc = crc32(kind, 0)
    for part in data:
        crc = crc32(part, crc)
    return [_UINT32.pack(sum(map(len, data))), kind, *data, _UINT32.pack(crc)]


_END = _chunk(b"IEND", [])
