"""Reading many event files at once for summarylib.tbparse: worker processes on the
machine's cores, and a progress line on a terminal.

Decoding dominates reading local files (the bytes alone take a small share: see
benchmarks/bench_tbparse.py), and it holds the GIL, so a sweep of many runs is read by
processes, each handed groups of files; small logdirs, where starting them would cost more
than it saves, are read in this process. Workers start from a fork server (or spawn), never by
forking this process, whose other threads (a writer's) may hold locks; each takes this
process's environment as it is at the read (an object store's endpoint and credentials).

On an object store, where each object is a request that mostly waits, the requests of a
group's files are in flight together on the filesystem's event loop, ahead of the decoder
(see summarylib.reading.fetch_ahead), in every worker and in this process alike.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from itertools import repeat
from typing import TextIO

from summarylib.format.storage import StorageOptions, is_url
from summarylib.reading.discovery import find_sources
from summarylib.reading.tbparse_files import FileValues, read_files

# Processes pay off from this many bytes of local event files and two files a worker, or
# from this many objects on a store (whose sizes would cost a request each to learn).
PARALLEL_BYTES = 32 * 2**20
PARALLEL_OBJECTS = 64
_GROUPS_PER_WORKER = 8  # small groups: even work, and a progress line that moves


def read_all(
    path: str,
    workers: int | None = None,
    stream: TextIO | None = None,
    storage_options: StorageOptions = None,
) -> dict[str, FileValues]:
    """`read_files(path)`, by `workers` processes (None: the machine's cores, when the event
    files are many and big enough); a progress line on `stream` (stderr) when it is a
    terminal. `storage_options`: for a URL's filesystem."""
    files = [file for run_files in find_sources(path, storage_options).values() for file in run_files]
    if workers is None:
        if is_url(path):
            big = len(files) >= PARALLEL_OBJECTS
        else:
            big = sum(os.path.getsize(file) for file in files) >= PARALLEL_BYTES
        workers = min(os.cpu_count() or 1, len(files) // 2) if big else 1
    if workers <= 1 or len(files) < 2:
        return read_files(files, storage_options)
    groups = [files[i :: workers * _GROUPS_PER_WORKER] for i in range(workers * _GROUPS_PER_WORKER)]
    groups = [group for group in groups if group]
    found: dict[str, FileValues] = {}
    report = _progress(len(files), stream if stream is not None else sys.stderr)
    context = multiprocessing.get_context(
        "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    )
    environment = dict(os.environ)
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        reads = pool.map(_read_group, groups, repeat(storage_options), repeat(environment))
        for group, values in zip(groups, reads, strict=True):
            found.update(values)
            report(len(group))
    return found


def _read_group(
    files: list[str], storage_options: StorageOptions, environment: dict[str, str]
) -> dict[str, FileValues]:
    """The values of some event files, each read alone (in a worker, in the reading
    process's environment)."""
    os.environ.clear()
    os.environ.update(environment)
    return read_files(files, storage_options)


def _progress(total: int, stream: TextIO) -> Callable[[int], None]:
    """A function that counts files read and, on a terminal, rewrites one line saying so."""
    if not stream.isatty():
        return lambda done: None
    counted = [0]

    def report(done: int) -> None:
        counted[0] += done
        end = "\n" if counted[0] >= total else ""
        stream.write(f"\rreading event files: {counted[0]:,}/{total:,}{end}")
        stream.flush()

    return report
