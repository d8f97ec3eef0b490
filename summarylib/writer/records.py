"""TFRecord framing: the container format of event files.

A record is the little-endian uint64 payload length, the masked CRC32C of those 8 bytes,
the payload, and the masked CRC32C of the payload. The mask makes a CRC of data that
itself contains CRCs less likely to collide; every TFRecord reader expects it.
"""

from __future__ import annotations

import struct

import crc32c as _crc32c

_MASK_DELTA = 0xA282EAD8
_U32 = 0xFFFFFFFF
_LENGTH = struct.Struct("<Q")
_CRC = struct.Struct("<I")
_HEADER = struct.Struct("<QI")

HEADER_SIZE = _HEADER.size
FOOTER_SIZE = _CRC.size


def crc32c(data: bytes) -> int:
    """The plain CRC32C (Castagnoli) of `data`."""
    return _crc32c.crc32c(data)


def masked_crc32c(data: bytes) -> int:
    """The CRC32C of `data`, rotated and offset as TFRecord stores it."""
    crc = _crc32c.crc32c(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & _U32


def frame(payload: bytes) -> bytes:
    """One complete record holding `payload`."""
    length = _LENGTH.pack(len(payload))
    return b"".join((length, _CRC.pack(masked_crc32c(length)), payload, _CRC.pack(masked_crc32c(payload))))


def parse_header(header: bytes) -> tuple[int, bool]:
    """The payload length of a record header, and whether the header's CRC matches."""
    length, crc = _HEADER.unpack(header)
    return length, crc == masked_crc32c(header[:8])


def footer_matches(payload: bytes, footer: bytes) -> bool:
    """Whether `footer` is the masked CRC of `payload`."""
    return _CRC.unpack(footer)[0] == masked_crc32c(payload)
