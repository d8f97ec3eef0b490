"""Reading many event files at once for summarylib.tbparse: worker processes on the
machine's cores, and a progress line on a terminal.

Decoding dominates reading local files (the bytes alone take a small share: see
benchmarks/bench_tbparse.py), and it holds the GIL, so a sweep of many runs is read by
processes, each handed groups of files; small logdirs, where starting them would cost more
than it saves, are read in this process. Workers are fresh interpreters
(summarylib.reading.tbparse_worker), not forks and not multiprocessing's: see there why.

On an object store, where each object is a request that mostly waits, the requests of a
group's files are in flight together on the filesystem's event loop, ahead of the decoder
(see summarylib.reading.fetch_ahead), in every worker and in this process alike.
"""

from __future__ import annotations

import os
import pickle
import queue
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from typing import IO, TextIO

from summarylib.format.storage import StorageOptions, is_url
from summarylib.reading.discovery import find_sources
from summarylib.reading.tbparse_files import FileValues, read_files

# Processes pay off from this many bytes of local event files and two files a worker, or
# from this many objects on a store (whose sizes would cost a request each to learn).
PARALLEL_BYTES = 32 * 2**20
PARALLEL_OBJECTS = 256
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
    report = _progress(len(files), stream if stream is not None else sys.stderr)
    found: dict[str, FileValues] = {}
    arrived: queue.Queue[tuple[int, dict[str, FileValues]] | None] = queue.Queue()
    processes = [_start(groups[i::workers], storage_options, arrived) for i in range(workers)]
    try:
        running = len(processes)
        while running:
            item = arrived.get()
            if item is None:
                running -= 1
                continue
            found.update(item[1])
            report(item[0])
        for process, errors in processes:
            if process.wait() != 0:
                errors.seek(0)
                tail = errors.read().decode(errors="replace")[-2000:]
                raise RuntimeError(f"summarylib.tbparse: a worker reading {path} failed:\n{tail}")
    finally:
        for process, errors in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
            errors.close()
    return found


def _start(
    groups: list[list[str]], storage_options: StorageOptions, arrived: queue.Queue
) -> tuple[subprocess.Popen, IO[bytes]]:
    """A worker (summarylib.reading.tbparse_worker) reading `groups`, and a thread putting each
    group's (files, values) into `arrived` as it comes, then None; with the file its stderr
    goes to."""
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, environment.get("PYTHONPATH")]))
    errors = tempfile.TemporaryFile()  # noqa: SIM115 (read_all closes it, after the worker ends)
    process = subprocess.Popen(
        [sys.executable, "-m", "summarylib.reading.tbparse_worker"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=errors,
        env=environment,
    )

    def collect() -> None:
        try:
            for group in groups:
                arrived.put((len(group), pickle.load(process.stdout)))
        except (EOFError, pickle.UnpicklingError):
            pass  # the worker failed: its exit status and stderr say why
        finally:
            arrived.put(None)

    threading.Thread(target=collect, daemon=True).start()
    with process.stdin:
        pickle.dump((groups, storage_options), process.stdin)
    return process, errors


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
