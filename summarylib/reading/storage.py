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
from collections.abc import Iterator
from typing import Any

from summarylib.writer.filesystems import is_url, local_path, remote

# Bytes fetched per request from a remote file: few round trips, bounded memory.
REMOTE_BLOCK = 16 << 20


@contextlib.contextmanager
def open_binary(path: str) -> Iterator[tuple[Any, int]]:
    """(file open for reading, its size now)."""
    if not is_url(path):
        with open(local_path(path), "rb") as file:
            yield file, os.fstat(file.fileno()).st_size
        return
    fs, inner = remote(path, None, "summarylib.reader")
    head = fs.cat_file(inner, start=0, end=REMOTE_BLOCK)
    if len(head) < REMOTE_BLOCK:  # the whole file, in one request (segments usually are)
        yield io.BytesIO(head), len(head)
        return
    with fs.open(inner, "rb", block_size=REMOTE_BLOCK, cache_type="readahead") as file:
        yield file, file.size


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
