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
import site
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from typing import TextIO

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
    files: list[str] | None = None,
) -> dict[str, FileValues]:
    """`read_files(path)`, by `workers` processes (None: the machine's cores, when the event
    files are many and big enough); a progress line on `stream` (stderr) when it is a
    terminal. `storage_options`: for a URL's filesystem. `files`: the event files at `path`
    when the caller has listed them already. A `memory://` URL is read in this process,
    which holds it, as are storage options that cannot be handed to another process."""
    if files is None:
        files = [file for run_files in find_sources(path, storage_options).values() for file in run_files]
    if workers is None:
        if is_url(path):
            big = len(files) >= PARALLEL_OBJECTS
        else:
            big = sum(os.path.getsize(file) for file in files) >= PARALLEL_BYTES
        workers = min(os.cpu_count() or 1, len(files) // 2) if big else 1
    groups = [files[i :: workers * _GROUPS_PER_WORKER] for i in range(workers * _GROUPS_PER_WORKER)]
    groups = [group for group in groups if group]
    workers = min(workers, len(groups))
    try:
        requests = [pickle.dumps((groups[i::workers], storage_options)) for i in range(workers)]
    except (pickle.PicklingError, TypeError, AttributeError):  # a session, a callable
        requests = []
    if workers <= 1 or len(files) < 2 or "memory://" in path or not requests:
        return read_files(files, storage_options)
    report = _progress(len(files), stream if stream is not None else sys.stderr)
    found: dict[str, FileValues] = {}
    arrived: queue.Queue[tuple[int, dict[str, FileValues]] | None] = queue.Queue()
    workers_started: list[_Worker] = []
    try:
        for request, share in zip(requests, (groups[i::workers] for i in range(workers)), strict=True):
            workers_started.append(_Worker(request, [len(group) for group in share], arrived))
        running = len(workers_started)
        while running:
            item = arrived.get()
            if item is None:
                running -= 1
                continue
            found.update(item[1])
            report(item[0])
        for worker in workers_started:
            worker.check(path)
    finally:
        for worker in workers_started:
            worker.close()
    return found


class _Worker:
    """A worker process (summarylib.reading.tbparse_worker) reading the groups of `request`
    (of `sizes` files each), and a thread putting each group's (files, values) into
    `arrived` as it comes, then None."""

    def __init__(self, request: bytes, sizes: list[int], arrived: queue.Queue) -> None:
        environment = dict(os.environ)
        package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        if package_root not in {*site.getsitepackages(), site.getusersitepackages()}:
            # summarylib found beside the caller's script or on its sys.path: found there too
            # (never site-packages, whose packages would then come before the standard library).
            paths = [package_root, environment.get("PYTHONPATH")]
            environment["PYTHONPATH"] = os.pathsep.join(path for path in paths if path)
        self.sizes, self.expected, self.received = sizes, len(sizes), 0
        self.errors = tempfile.TemporaryFile()  # noqa: SIM115 (closed by `close`)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "summarylib.reading.tbparse_worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.errors,
            env=environment,
        )
        self.thread = threading.Thread(target=self._collect, args=(arrived,), daemon=True)
        self.thread.start()
        try:
            with self.process.stdin:  # type: ignore[union-attr]
                self.process.stdin.write(request)  # type: ignore[union-attr]
        except BrokenPipeError:
            pass  # the worker ended at once: `check` says why

    def _collect(self, arrived: queue.Queue) -> None:
        try:
            while self.received < self.expected:
                values = pickle.load(self.process.stdout)  # type: ignore[arg-type]
                arrived.put((self.sizes[self.received], values))
                self.received += 1
        except Exception:  # the worker failed (its pickles end early): `check` reports how
            pass
        finally:
            arrived.put(None)

    def check(self, path: str) -> None:
        """RuntimeError, with the worker's stderr, when it failed or handed back too little."""
        status = self.process.wait()
        if status != 0 or self.received < self.expected:
            self.errors.seek(0)
            tail = self.errors.read().decode(errors="replace")[-2000:]
            raise RuntimeError(
                f"summarylib.tbparse: a worker reading {path} ended with status {status} after "
                f"{self.received} of {self.expected} groups of files:\n{tail}"
            )

    def close(self) -> None:
        """Stop the worker if it still runs; release its pipe, thread and stderr file."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.thread.join()
        self.process.stdout.close()  # type: ignore[union-attr]
        self.errors.close()


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
