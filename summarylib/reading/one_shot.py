"""Reading a path once: `iter_values` and `load_table`, each a `Reader` used for one call.

The simple entry points, with their defaults (`load_table` loads scalars) and their check
that the path exists, which a `Reader` does not make (it may follow a run yet to start).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterator
from typing import Any

from summarylib.format import storage
from summarylib.reading.discovery import is_event_file
from summarylib.reading.follow import Reader, Value
from summarylib.reading.problems import Problem


def _existing(path: str | os.PathLike, options: storage.StorageOptions) -> str:
    """`path` as a str; FileNotFoundError when it does not exist (a logdir or run is asked
    about as a directory first: one request on an object store)."""
    path = os.fspath(path)
    if storage.kind(path, directory_first=not is_event_file(path), options=options) is None:
        raise FileNotFoundError(f"no event file or directory at {path}")
    return path


def _reader(
    path: str | os.PathLike,
    runs: str | Collection[str] | None,
    tags: str | Collection[str] | None,
    plugins: str | Collection[str] | None,
    check_crc: bool,
    tolerant: bool,
    storage_options: storage.StorageOptions,
) -> Reader:
    """A `Reader` of a path that exists (see `_existing`)."""
    return Reader(
        _existing(path, storage_options),
        runs=runs,
        tags=tags,
        plugins=plugins,
        check_crc=check_crc,
        tolerant=tolerant,
        storage_options=storage_options,
    )


def iter_values(
    path: str | os.PathLike,
    *,
    runs: str | Collection[str] | None = None,
    tags: str | Collection[str] | None = None,
    plugins: str | Collection[str] | None = None,
    check_crc: bool = True,
    tolerant: bool = False,
    problems: list[Problem] | None = None,
    storage_options: storage.StorageOptions = None,
) -> Iterator[Value]:
    """Every summary value of an event file, a run directory or a logdir, decoded, run by run
    in file order; see `Reader`. Truncated or zero-filled tails (and, with `tolerant`,
    skipped corruption: records, and values that cannot be decoded) are appended to `problems`
    once iteration is done. `storage_options`: for the filesystem of a URL path."""
    reader = _reader(path, runs, tags, plugins, check_crc, tolerant, storage_options)

    def generate() -> Iterator[Value]:
        yield from reader.values()
        if problems is not None:
            problems.extend(reader.problems)

    return generate()


def load_table(
    path: str | os.PathLike,
    *,
    runs: str | Collection[str] | None = None,
    tags: str | Collection[str] | None = None,
    plugins: str | Collection[str] | None = "scalars",
    check_crc: bool = True,
    tolerant: bool = False,
    as_dataframe: bool | None = None,
    storage_options: storage.StorageOptions = None,
) -> Any:
    """The values of an event file, a run directory or a logdir as one table with columns run,
    tag, step, wall_time and value, in file order (not sorted by step).

    A pandas DataFrame (run and tag categorical) when pandas is installed or `as_dataframe`
    is True, else a dict of numpy arrays (run and tag as object arrays of str). By default
    only the scalars plugin's values are loaded and value is float64; with other plugins
    (`plugins=None` for all), value holds the decoded objects (see `Value`) when any is not
    a float. `storage_options`: for the filesystem of a URL path.
    """
    reader = _reader(path, runs, tags, plugins, check_crc, tolerant, storage_options)
    return reader.table(as_dataframe)
