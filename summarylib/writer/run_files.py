"""The one place that picks how a run's events are stored: a local event file, rolling
local files (`retain_seconds`), or segment objects on an object store (fsspec URLs)."""

from __future__ import annotations

import os
from typing import Any, Protocol

from summarylib.format.storage import is_url, local_path, make_directory, remote
from summarylib.writer.event_file import EventFile, FileNames, v2_file_names
from summarylib.writer.rolling_file import RollingEventFile
from summarylib.writer.segments import SegmentedEventFile

# How often segments are uploaded to an object store when nothing asks sooner: each
# upload is a new object, so fewer, larger ones (a run of a week makes ~20,000).
DEFAULT_UPLOAD_MILLIS = 30_000


class RunFile(Protocol):
    """What the writer's engine uses of a run's event file, whichever kind it is (a local
    `EventFile`, a `RollingEventFile`, a `SegmentedEventFile` on an object store)."""

    @property
    def path(self) -> str: ...

    @property
    def bytes_written(self) -> int: ...

    def write(self, data: bytes) -> None: ...

    def flush(self) -> None: ...

    def sync(self) -> None: ...

    def close(self) -> None: ...

    def abandon(self) -> None: ...

    def reopen_if_deleted(self) -> str | None: ...


def open_run_file(
    logdir: str,
    suffix: str | None = None,
    file_names: FileNames = v2_file_names,
    retain_seconds: float | None = None,
    storage_options: dict[str, Any] | None = None,
    upload_seconds: float = DEFAULT_UPLOAD_MILLIS / 1000,
    max_held_bytes: int | None = None,
) -> RunFile:
    """A new event file for run `logdir`, its directory created if missing; on an object
    store it holds at most `max_held_bytes` of events not yet uploaded in memory (the
    writer's `max_queue_bytes`; None: segments.DEFAULT_MAX_HELD_BYTES), the rest spilled.
    Local files roll over `retain_seconds` when it is given."""
    if retain_seconds is None or is_url(logdir):
        return open_lasting_file(logdir, suffix, file_names, storage_options, upload_seconds, max_held_bytes)
    logdir = local_path(logdir)
    os.makedirs(logdir, exist_ok=True)
    return RollingEventFile(logdir, suffix, file_names, retain_seconds)


def open_lasting_file(
    logdir: str,
    suffix: str | None = None,
    file_names: FileNames = v2_file_names,
    storage_options: dict[str, Any] | None = None,
    upload_seconds: float = DEFAULT_UPLOAD_MILLIS / 1000,
    max_held_bytes: int | None = None,
) -> EventFile | SegmentedEventFile:
    """A new event file for run `logdir` that keeps every event (see `open_run_file`): a
    local file, or segment objects on an object store. Both can be suspended while idle."""
    if is_url(logdir):
        fs, path = remote(logdir, storage_options, "create_file_writer")
        make_directory(fs, path)
        return SegmentedEventFile(fs, path, suffix, upload_seconds, max_held_bytes=max_held_bytes)
    logdir = local_path(logdir)
    os.makedirs(logdir, exist_ok=True)
    return EventFile(logdir, suffix, file_names)
