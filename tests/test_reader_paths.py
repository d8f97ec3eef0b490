"""The one-file readers (`iter_events`, `iter_records`) say at the call what is wrong with a
path that is no event file, and what reads a directory, rather than failing with the OS's
IsADirectoryError at the first value."""

from __future__ import annotations

import pytest

import summarylib as sl
from summarylib.reader import find_sources, iter_events, iter_records


@pytest.mark.parametrize("read", [iter_events, iter_records])
def test_a_directory_is_a_value_error_at_the_call_that_names_the_readers_of_directories(tmp_path, read):
    writer = sl.create_file_writer(str(tmp_path))
    with writer.as_default():
        sl.scalar("x", 1.0, step=0)
    writer.close()
    with pytest.raises(
        ValueError, match=r"expected one event file, got the directory .*iter_values or Reader"
    ):
        read(tmp_path)
    (files,) = find_sources(tmp_path).values()
    assert len(list(read(files[0]))) == 2  # the file version event and the scalar


@pytest.mark.parametrize("read", [iter_events, iter_records])
def test_a_missing_file_is_file_not_found_at_the_call(tmp_path, read):
    with pytest.raises(FileNotFoundError, match=f"{read.__name__}: no event file at"):
        read(tmp_path / "events.out.tfevents.0.missing")
