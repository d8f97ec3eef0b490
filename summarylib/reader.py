"""Reading event files back: records checked against their CRCs, parsed as Events.

This is the minimal reader; it already tells a truncated last record (a file still being
written, or a killed writer) from corruption in the middle of a file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

from summarylib.proto import event_pb2
from summarylib.writer import records


class CorruptRecordError(ValueError):
    """A record in the middle of a file fails its CRC or is cut short."""

    def __init__(self, path: str, offset: int, problem: str) -> None:
        super().__init__(f"{path}: corrupt record at byte offset {offset}: {problem}")
        self.path = path
        self.offset = offset


@dataclass
class ReadStatus:
    """Filled in while iterating: where reading stopped and why."""

    records: int = 0
    # Byte offset just past the last complete record.
    end_offset: int = 0
    # Bytes after the last complete record that do not form a complete record.
    truncated_bytes: int = 0


def iter_records(
    path: str | os.PathLike, status: ReadStatus | None = None, check_crc: bool = True
) -> Iterator[bytes]:
    """The payloads of the records of one file, in order.

    A final record cut short ends iteration cleanly; `status.truncated_bytes` then says
    how many bytes were left. A CRC mismatch raises CorruptRecordError with the offset.
    """
    status = status if status is not None else ReadStatus()
    path = os.fspath(path)
    with open(path, "rb") as file:
        data = file.read()
    offset = 0
    size = len(data)
    while offset < size:
        header_end = offset + records.HEADER_SIZE
        if header_end > size:
            break
        length, header_ok = records.parse_header(data[offset:header_end])
        if check_crc and not header_ok:
            raise CorruptRecordError(path, offset, "length CRC mismatch")
        payload_end = header_end + length
        record_end = payload_end + records.FOOTER_SIZE
        if record_end > size:
            break
        payload = data[header_end:payload_end]
        if check_crc and not records.footer_matches(payload, data[payload_end:record_end]):
            raise CorruptRecordError(path, offset, "payload CRC mismatch")
        offset = record_end
        status.records += 1
        status.end_offset = offset
        yield payload
    status.truncated_bytes = size - offset


def iter_events(
    path: str | os.PathLike, status: ReadStatus | None = None, check_crc: bool = True
) -> Iterator[event_pb2.Event]:
    """The Events of one event file; see `iter_records` for truncation and corruption."""
    for payload in iter_records(path, status, check_crc):
        yield event_pb2.Event.FromString(payload)
