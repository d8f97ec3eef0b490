"""What can be wrong in an event file, and where reading one stopped.

The kinds of `Problem` (`TRUNCATED`, `ZERO_TAIL`, `CORRUPT`, `SHRUNK`), `CorruptRecordError` and the
`ReadStatus` that scanning a file fills in. A module of their own because scanning, the
`Reader` and `inspect` all report them, and none of those owns the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field

TRUNCATED, ZERO_TAIL, CORRUPT, SHRUNK = "truncated", "zero_tail", "corrupt", "shrunk"


class CorruptRecordError(ValueError):
    """A record in the middle of a file fails its CRC, is cut short while a valid record follows
    it, or is not an Event, or holds a summary value that cannot be decoded."""

    def __init__(self, path: str, offset: int, problem: str) -> None:
        super().__init__(f"{path}: corrupt record at byte offset {offset}: {problem}")
        self.path = path
        self.offset = offset


@dataclass(frozen=True)
class Problem:
    """Something wrong in a file: a `TRUNCATED` last record, a `ZERO_TAIL`, a `CORRUPT`
    stretch (skipped in tolerant mode), or a file `SHRUNK` below where a Reader following
    it had read (`offset`: where reading goes on). `size`: the bytes it covers (lost)."""

    path: str
    offset: int
    kind: str
    detail: str
    size: int

    def __str__(self) -> str:
        return f"{self.path}: {self.detail} at byte offset {self.offset}"


@dataclass
class ReadStatus:
    """Filled in while iterating: where reading stopped and why."""

    records: int = 0
    # Byte offset just past the last complete record.
    end_offset: int = 0
    # Bytes at the end of the file that form no complete record (cut short, or zeros).
    truncated_bytes: int = 0
    # Where reading continues once the file has grown (past skipped corruption, at a tail).
    next_offset: int = 0
    problems: list[Problem] = field(default_factory=list)
