"""Reading event files back: from an event file, a run directory or a whole logdir, fast.

    for value in summarylib.reader.iter_values("runs"):   # or Reader("runs") to follow a live run
        print(value.run, value.tag, value.step, value.value)
    table = summarylib.reader.load_table("runs")          # run, tag, step, wall_time, value

Files are read in big chunks and their records found with `struct` and numpy; CRCs are checked
for many records at once (CRC32C is linear, so records of one length differ in their CRCs
only through the bytes in which they differ); scalar events are read at the byte level (see
summarylib.reading.scalar_shapes). A truncated last record (a file still being written, a
killed writer) or a zero-filled tail (a crash on some filesystems) ends a file cleanly and is
reported as a `Problem`; corruption in the middle raises `CorruptRecordError` naming the file
and byte offset, or, with `tolerant=True`, is reported and skipped up to the next valid record.

Corruption is: a record that fails its CRCs, a record length that runs past the end of the
file while a valid record follows, a record that is not an Event, and a value that cannot be
decoded (a forged shape, dtype or size; a tensor that promises more elements than its bytes
can fill: see summarylib.reading.tensors). A skipped value takes no other value of its record
with it. Reading a forged file never allocates more than a small multiple of its size. A
strict `Reader` raises each corruption once and goes on past it at the next call.

This module is the public face of reading: the code lives in the `summarylib.reading`
package, one job a module (file_scan, follow, one_shot, discovery, ...).
"""

from __future__ import annotations

from summarylib.reading.discovery import find_runs, find_sources, is_event_file
from summarylib.reading.file_scan import (
    CHUNK_SIZE,
    iter_events,
    iter_records,
)
from summarylib.reading.follow import Batch, Reader, Value
from summarylib.reading.one_shot import iter_values, load_table
from summarylib.reading.problems import CORRUPT, TRUNCATED, ZERO_TAIL, CorruptRecordError, Problem, ReadStatus
from summarylib.reading.records import Records

__all__ = [
    "CHUNK_SIZE",
    "CORRUPT",
    "TRUNCATED",
    "ZERO_TAIL",
    "Batch",
    "CorruptRecordError",
    "Problem",
    "ReadStatus",
    "Reader",
    "Records",
    "Value",
    "find_runs",
    "find_sources",
    "is_event_file",
    "iter_events",
    "iter_records",
    "iter_values",
    "load_table",
]
