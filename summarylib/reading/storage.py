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
from collections.abc import Iterator, Mapping
from concurrent.futures import Future
from typing import Any

from summarylib.writer.filesystems import is_object_store, is_url, local_path, remote

# Bytes fetched per request from a remote file: few round trips, bounded memory.
REMOTE_BLOCK = 16 << 20

# Options for a URL's filesystem (fsspec's `storage_options`: credentials, endpoint, ...),
# as every reading entry point takes them; None for none. Local paths ignore them.
StorageOptions = Mapping[str, Any] | None


def filesystem(url: str, options: StorageOptions) -> tuple[Any, str]:
    """(fsspec filesystem, path within it) of a URL opened with `options`."""
    return remote(url, dict(options) if options else None, "summarylib.reader")


@contextlib.contextmanager
def open_binary(
    path: str, head: Future[bytes] | None = None, options: StorageOptions = None
) -> Iterator[tuple[Any, int]]:
    """(file open for reading, its size now). `head`: the request for a remote file's first
    block already made (see summarylib.reading.fetch_ahead), instead of making it here."""
    if not is_url(path):
        with open(local_path(path), "rb") as file:
            yield file, os.fstat(file.fileno()).st_size
        return
    fs, inner = filesystem(path, options)
    block = head.result() if head is not None else fs.cat_file(inner, start=0, end=REMOTE_BLOCK)
    if len(block) < REMOTE_BLOCK:  # the whole file, in one request (segments usually are)
        yield io.BytesIO(block), len(block)
        return
    with fs.open(inner, "rb", block_size=REMOTE_BLOCK, cache_type="readahead") as file:
        yield file, file.size


def on_object_store(path: str, options: StorageOptions = None) -> bool:
    """Whether `path` is a URL of an object store (S3, GCS, Azure Blob, ...), whose objects
    are written whole and never appended to."""
    return is_url(path) and is_object_store(filesystem(path, options)[0])


def kind(path: str, directory_first: bool = False, options: StorageOptions = None) -> str | None:
    """ "file", "directory", or None when nothing is there. On an object store, asking for a
    file and finding a directory takes two requests, so `directory_first` (for a path that
    names a logdir or run rather than an event file) asks first with one listing."""
    if not is_url(path):
        path = local_path(path)
        return "file" if os.path.isfile(path) else "directory" if os.path.isdir(path) else None
    fs, inner = filesystem(path, options)
    fs.invalidate_cache(inner)
    if directory_first and fs.isdir(inner):
        return "directory"
    try:
        found = fs.info(inner)
    except FileNotFoundError:
        return None
    return "directory" if found["type"] == "directory" else "file"


def size(path: str, options: StorageOptions = None) -> int:
    """Bytes in the file now."""
    if not is_url(path):
        return os.path.getsize(local_path(path))
    fs, inner = filesystem(path, options)
    return fs.size(inner)


def tree(top: str, options: StorageOptions = None) -> dict[str, list[str]]:
    """{directory: names of the files directly in it} for each directory at or below `top`
    that holds files (directories as the caller spelled them: URLs stay URLs), listed fresh;
    empty when `top` is no directory. On an object store the whole tree is one listing (a
    request per 1000 objects), not one per directory."""
    if not is_url(top):
        return {directory: names for directory, _, names in os.walk(local_path(top)) if names}
    fs, inner = filesystem(top, options)
    root = inner.rstrip("/")
    _forget_listings(fs, root)
    prefix = top.rstrip("/")
    found: dict[str, list[str]] = {}
    for name, info in fs.find(root, detail=True).items():
        if info.get("type") == "directory" or name.endswith("/"):  # a directory marker object
            continue
        relative = posixpath.relpath(name, root)
        if relative != ".":  # `top` itself, a file
            directory = posixpath.dirname(relative)
            found.setdefault(f"{prefix}/{directory}" if directory else prefix, []).append(
                posixpath.basename(relative)
            )
    return found


def _forget_listings(fs: Any, root: str) -> None:
    """Drop the listings `fs` keeps of `root`, its parents and everything below it, so that
    what is read next (sizes included) is as the store has it now: a live run's new
    objects are seen in every directory, not only at the top."""
    fs.invalidate_cache(root)
    below = root + "/"
    for directory in [directory for directory in fs.dircache if directory.startswith(below)]:
        fs.dircache.pop(directory, None)


def relative(directory: str, top: str) -> str:
    """`directory`'s path below `top` ("." for `top` itself)."""
    if not is_url(top):
        return os.path.relpath(directory, local_path(top))
    return posixpath.relpath(directory, top.rstrip("/"))
