"""Damaged event files: truncated and zero-filled tails end a file cleanly and are reported;
corruption in the middle raises naming file and offset, or in tolerant mode is skipped to
the next valid record."""

from __future__ import annotations

import os
import struct

import crc32c
import numpy as np
import pytest

from summarylib.format import batch_crc, records
from summarylib.reader import (
    CORRUPT,
    TRUNCATED,
    ZERO_TAIL,
    CorruptRecordError,
    ReadStatus,
    iter_records,
    iter_values,
)
from summarylib.reading import resync
from tests.event_files import damage, flip, record_offsets, write_scalars


@pytest.fixture
def sound_file(tmp_path):
    """A summarylib file of 200 scalars (steps 0..199) and the offsets of its 201 records."""
    path = write_scalars(str(tmp_path / "run"), 200)
    offsets = record_offsets(path)
    assert len(offsets) == 201
    return path, offsets


@pytest.mark.parametrize("cut", [7, 20])  # inside the header, inside the payload
def test_truncated_last_record_ends_reading_and_is_reported(sound_file, cut):
    path, offsets = sound_file
    os.truncate(path, offsets[-1] + cut)
    problems = []
    assert [v.step for v in iter_values(path, problems=problems)] == list(range(199))
    (problem,) = problems
    assert (problem.path, problem.offset, problem.kind, problem.size) == (path, offsets[-1], TRUNCATED, cut)
    assert f"at byte offset {offsets[-1]}" in str(problem)
    status = ReadStatus()
    assert len(list(iter_records(path, status))) == 200
    assert status.end_offset == offsets[-1]
    assert status.end_offset + status.truncated_bytes == os.path.getsize(path)


def test_zero_filled_tail_is_reported_as_such(sound_file):
    path, _ = sound_file
    size = os.path.getsize(path)
    with open(path, "ab") as file:
        file.write(bytes(5000))
    problems = []
    assert [v.step for v in iter_values(path, problems=problems)] == list(range(200))
    assert [(p.offset, p.kind, p.size) for p in problems] == [(size, ZERO_TAIL, 5000)]
    assert "zero-filled tail" in str(problems[0])


def test_flipped_byte_in_the_middle_raises_naming_file_and_offset(sound_file):
    path, offsets = sound_file
    flip(path, offsets[100] + 30)
    steps = []
    with pytest.raises(
        CorruptRecordError, match=rf"{path}: corrupt record at byte offset {offsets[100]}"
    ) as error:
        steps.extend(v.step for v in iter_values(path))
    assert steps == list(range(99)) and error.value.offset == offsets[100]
    with pytest.raises(CorruptRecordError, match="payload CRC mismatch"):
        list(iter_records(path))


@pytest.mark.parametrize(("where", "why"), [(2, "length CRC mismatch"), (30, "payload CRC mismatch")])
def test_tolerant_mode_skips_to_the_next_valid_record(sound_file, where, why):
    path, offsets = sound_file
    flip(path, offsets[100] + where)
    problems = []
    steps = [v.step for v in iter_values(path, tolerant=True, problems=problems)]
    assert steps == [s for s in range(200) if s != 99]
    (problem,) = problems
    assert (problem.offset, problem.kind, problem.size) == (
        offsets[100],
        CORRUPT,
        offsets[101] - offsets[100],
    )
    assert why in problem.detail


def test_zeros_in_the_middle_are_corruption_not_a_tail(sound_file):
    path, offsets = sound_file
    damage(path, offsets[50], bytes(offsets[52] - offsets[50]))
    with pytest.raises(
        CorruptRecordError, match=f"byte offset {offsets[50]}: zero bytes where a record header"
    ):
        list(iter_values(path))
    problems = []
    steps = [v.step for v in iter_values(path, tolerant=True, problems=problems)]
    assert steps == [s for s in range(200) if s not in (49, 50)]
    assert [(p.offset, p.kind) for p in problems] == [(offsets[50], CORRUPT)]


def test_garbage_tail_is_corruption(sound_file):
    path, _ = sound_file
    size = os.path.getsize(path)
    with open(path, "ab") as file:
        file.write(b"\xff" * 40)
    with pytest.raises(CorruptRecordError, match=f"byte offset {size}"):
        list(iter_values(path))
    problems = []
    assert len(list(iter_values(path, tolerant=True, problems=problems))) == 200
    assert [(p.offset, p.kind, p.size) for p in problems] == [(size, CORRUPT, 40)]


def test_crc_checking_can_be_skipped(sound_file):
    path, offsets = sound_file
    flip(path, offsets[100] + 12 + value_position(path, offsets[100]))
    values = list(iter_values(path, check_crc=False))
    assert [v.step for v in values] == list(range(200)) and values[99].value != 49.5


def value_position(path: str, offset: int) -> int:
    """Position of the value 49.5 in the payload of the scalar record at `offset`."""
    with open(path, "rb") as file:
        file.seek(offset)
        (length,) = struct.unpack("<Q", file.read(12)[:8])
        payload = file.read(length)
    return payload.index(struct.pack("<f", 49.5))


def test_resync_finds_a_record_across_windows(sound_file):
    path, offsets = sound_file
    with open(path, "rb") as file:
        assert resync.resync(file, offsets[3] + 1, os.path.getsize(path), window=32) == offsets[4]


def test_checking_crcs_of_many_records_at_once_matches_crc32c():
    rng = np.random.default_rng(1)
    rows = np.tile(rng.integers(0, 256, 56, dtype=np.uint8), (40, 1))
    rows[:, [3, 17, 50]] = rng.integers(0, 256, (40, 3), dtype=np.uint8)
    crcs = batch_crc.row_crcs(rows, 53)
    assert crcs.tolist() == [crc32c.crc32c(row[:53].tobytes()) for row in rows]
    noise = bytearray(rng.integers(0, 256, 300, dtype=np.uint8).tobytes())
    header = records.header(1234)
    noise[77:89] = header
    assert 77 in resync.header_candidates(noise, len(noise))
