"""Finding runs and their event files: in a logdir as TensorBoard does, or at any path.

Names and directories only, no file contents: the one place that says what counts as an
event file and as a run.
"""

from __future__ import annotations

import os

from summarylib.format import storage
from summarylib.format.storage import join


def is_event_file(name: str) -> bool:
    """Whether TensorBoard reads a file of this name for summaries."""
    base = os.path.basename(name)
    return "tfevents" in base and not base.endswith(".profile-empty")


def find_runs(
    logdir: str | os.PathLike, storage_options: storage.StorageOptions = None
) -> dict[str, list[str]]:
    """The runs of a logdir as TensorBoard finds them: every directory (the logdir included)
    that directly holds a file with "tfevents" in its name, named by its path relative to
    the logdir ("." for the logdir itself), with its event files in the order TensorBoard
    reads them (sorted by name, which starts with the creation time). `logdir` may be an
    fsspec URL (see summarylib.format.storage), opened with `storage_options`."""
    logdir = os.fspath(logdir)
    runs = {}
    for directory, names in storage.tree(logdir, storage_options).items():
        if any("tfevents" in name for name in names):
            files = sorted(join(directory, name) for name in names if is_event_file(name))
            runs[storage.relative(directory, logdir)] = files
    return dict(sorted(runs.items()))


def find_sources(
    path: str | os.PathLike, storage_options: storage.StorageOptions = None
) -> dict[str, list[str]]:
    """{run: event files} of an event file (run "."), a run directory or a logdir; empty when
    the path does not exist. A path not named like an event file is listed first, as a
    directory, which on an object store is one request where asking what it is takes two."""
    path = os.fspath(path)
    named_file = is_event_file(path)
    if not named_file and (runs := find_runs(path, storage_options)):
        return runs
    found = storage.kind(path, options=storage_options)
    if found == "file":
        return {".": [path]}
    return find_runs(path, storage_options) if found == "directory" and named_file else {}
