"""File access for reading: local paths through the OS, fsspec URLs (`s3://...`) through
their filesystem, so the reader and `inspect` read runs in buckets as they read local
ones. Remote files are fetched in large ranges (a file smaller than one range, as
segment objects usually are, in a single request), and listings are refreshed on every
look, so a live run is followed."""

from __future__ import annotations

import contextlib
import io
import os
import posixpath
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from summarylib.writer.filesystems import is_url, local_path, remote

# Bytes fetched per request from a remote file: few round trips, bounded memory.
REMOTE_BLOCK = 16 << 20
# Remote files fetched ahead of the reader, at once, and how long what they fetched is used.
PREFETCH_FILES = 4
PREFETCH_FRESH_SECONDS = 10.0


@contextlib.contextmanager
def open_binary(path: str) -> Iterator[tuple[Any, int]]:
    """(file open for reading, its size now)."""
    if not is_url(path):
        with open(local_path(path), "rb") as file:
            yield file, os.fstat(file.fileno()).st_size
        return
    fs, inner = remote(path, None, "summarylib.reader")
    fetched = _prefetched.pop(path, None)
    fresh = fetched is not None and time.monotonic() - fetched[0] < PREFETCH_FRESH_SECONDS
    head = fetched[1].result() if fresh else _head(path)
    if len(head) < REMOTE_BLOCK:  # the whole file, in one request (segments usually are)
        yield io.BytesIO(head), len(head)
        return
    with fs.open(inner, "rb", block_size=REMOTE_BLOCK, cache_type="readahead") as file:
        yield file, file.size


def prefetch(paths: list[str]) -> None:
    """Start fetching the first range of each remote file in `paths` at once, for the
    `open_binary` that follows: a run of many small segment objects then costs about one
    round trip, not one per object. Local paths are left alone."""
    for path in paths:
        if is_url(path) and path not in _prefetched:
            _prefetched[path] = (time.monotonic(), _pool().submit(_head, path))


def _head(path: str) -> bytes:
    fs, inner = remote(path, None, "summarylib.reader")
    return fs.cat_file(inner, start=0, end=REMOTE_BLOCK)


# path -> (when the fetch started, its future); older ones are fetched again, in case
# the file grew (a reader that stopped early leaves some behind).
_prefetched: dict[str, tuple[float, Future]] = {}
_executor: ThreadPoolExecutor | None = None


def _pool() -> ThreadPoolExecutor:
    global _executor
    if _executor is None:
        _executor = ThreadPoolExecutor(max_workers=PREFETCH_FILES, thread_name_prefix="summarylib-prefetch")
    return _executor


def _forget_after_fork() -> None:
    global _executor
    _executor = None
    _prefetched.clear()


os.register_at_fork(after_in_child=_forget_after_fork)


def kind(path: str) -> str | None:
    """ "file", "directory", or None when nothing is there."""
    if not is_url(path):
        path = local_path(path)
        return "file" if os.path.isfile(path) else "directory" if os.path.isdir(path) else None
    fs, inner = remote(path, None, "summarylib.reader")
    fs.invalidate_cache(inner)
    try:
        found = fs.info(inner)
    except FileNotFoundError:
        return None
    return "directory" if found["type"] == "directory" else "file"


def size(path: str) -> int:
    """Bytes in the file now."""
    if not is_url(path):
        return os.path.getsize(local_path(path))
    fs, inner = remote(path, None, "summarylib.reader")
    return fs.size(inner)


def walk(top: str) -> Iterator[tuple[str, list[str], list[str]]]:
    """`os.walk` for local paths and URLs alike (directories as the caller spelled them:
    URLs stay URLs), subdirectories in name order, listings fresh."""
    if not is_url(top):
        for directory, subdirectories, names in os.walk(local_path(top)):
            subdirectories.sort()
            yield directory, subdirectories, names
        return
    fs, inner = remote(top, None, "summarylib.reader")
    fs.invalidate_cache(inner)
    root = inner.rstrip("/")
    prefix = top.rstrip("/")
    for directory, subdirectories, names in fs.walk(root):
        subdirectories.sort()
        relative = posixpath.relpath(directory.rstrip("/"), root)
        yield (prefix if relative == "." else f"{prefix}/{relative}"), subdirectories, names


def relative(directory: str, top: str) -> str:
    """`directory`'s path below `top` ("." for `top` itself)."""
    if not is_url(top):
        return os.path.relpath(directory, local_path(top))
    return posixpath.relpath(directory, top.rstrip("/"))
