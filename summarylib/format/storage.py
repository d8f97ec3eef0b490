"""Where runs live, for the writer and the reader alike: a local path, or an fsspec URL
(`s3://`, `gs://`, `az://`, `hdfs://`, `memory://`, chained `simplecache::s3://`, ...).

URLs stay strings end to end (never `pathlib`, which turns `s3://b` into `s3:/b`) and
become a filesystem only here, at the edge, through `fsspec.core.url_to_fs`. Local paths,
and `file://` URLs, keep the local code path and its speed. fsspec and the protocol
packages are the optional extra `remote`; a URL whose filesystem is not installed is an
error naming what to install, never a local directory named `s3:`.

The reader and `inspect` read runs in buckets as they read local ones: remote files are
fetched in large ranges (a file smaller than one range, as segment objects usually are,
in a single request), and listings are refreshed on every look, so a live run is followed.
"""

from __future__ import annotations

import contextlib
import io
import os
import posixpath
import re
import uuid
from collections.abc import Iterator, Mapping
from concurrent.futures import Future
from typing import Any

# Options for a URL's filesystem (fsspec's `storage_options`: credentials, endpoint, ...),
# as every entry point takes them; None for none. Local paths ignore them.
StorageOptions = Mapping[str, Any] | None

# Bytes fetched per request from a remote file: few round trips, bounded memory.
REMOTE_BLOCK = 16 << 20

# Who a reading error names (see `remote`'s `where`).
READING = "summarylib.reader"

_LOCAL_PREFIX = "file://"
_URL_START = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*(://|::)")


def is_url(path: str) -> bool:
    """Whether `path` names a filesystem other than the local one: it starts with a
    protocol name and `://`, or with one and `::` (a chained URL). A local path may hold
    `::` or `://` further on (`runs/lr=0.1::seed=1`)."""
    if path.startswith(_LOCAL_PREFIX):
        return False
    return _URL_START.match(path) is not None


def local_path(path: str) -> str:
    """`path` as a local path (a `file://` URL without its scheme)."""
    return path[len(_LOCAL_PREFIX) :] if path.startswith(_LOCAL_PREFIX) else path


def remote(url: str, storage_options: StorageOptions = None, where: str = "summarylib") -> tuple[Any, str]:
    """(fsspec filesystem, path within it) of a URL opened with `storage_options`; a clear
    error, naming `where`, when fsspec or the protocol's package is missing."""
    try:
        from fsspec.core import url_to_fs
    except ImportError:
        raise ModuleNotFoundError(
            f"{where}: {url!r} is a URL, which needs fsspec: from summarylib's clone, "
            "pip install -e '.[remote]'; for s3://, gs:// or az:// the extra s3, gcs or azure "
            "installs the protocol's package too"
        ) from None
    try:
        return url_to_fs(url, **(storage_options or {}))
    except ImportError as error:  # fsspec says which package: "Install s3fs to access S3"
        raise ModuleNotFoundError(f"{where}: cannot open {url!r}: {error}") from None
    except ValueError as error:  # an unknown protocol
        raise ValueError(f"{where}: cannot open {url!r}: {error}") from None


def join(base: str, *names: str) -> str:
    """`base/name/...` for local paths and URLs alike."""
    return posixpath.join(base, *names) if is_url(base) else os.path.join(base, *names)


def registry_key(logdir: str) -> str:
    """The name one logdir has however it is spelled: its real path, or the URL."""
    return logdir.rstrip("/") if is_url(logdir) else os.path.realpath(local_path(logdir))


def read_text(path: str, storage_options: StorageOptions = None) -> str | None:
    """The text of the file at `path` (local or URL), None when there is none."""
    if not is_url(path):
        try:
            with open(local_path(path), encoding="utf-8") as file:
                return file.read()
        except FileNotFoundError:
            return None
    fs, inner = remote(path, storage_options)
    try:
        return fs.cat_file(inner).decode("utf-8")
    except FileNotFoundError:
        return None


def replace_atomically(path: str, content: bytes, storage_options: StorageOptions = None) -> None:
    """Make `content` the file at `path`, so that readers see the old file or the whole
    new one: locally written under a temporary name in its directory, then renamed over
    it; on an object store one put, which is atomic there."""
    if is_url(path):
        fs, inner = remote(path, storage_options)
        make_directory(fs, posixpath.dirname(inner))
        fs.pipe_file(inner, content)
        return
    path = local_path(path)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    temporary = f"{path}.{uuid.uuid4().hex}.tmp"
    try:
        with open(temporary, "xb") as file:
            file.write(content)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise


def subdirectories(path: str) -> list[str]:
    """Names of the directories in `path` (local or URL); empty when it does not exist."""
    if not is_url(path):
        try:
            return [entry.name for entry in os.scandir(local_path(path)) if entry.is_dir()]
        except OSError:
            return []
    fs, inner = remote(path)
    fs.invalidate_cache(inner)
    try:
        entries = fs.ls(inner, detail=True)
    except FileNotFoundError:
        return []
    return [
        posixpath.basename(entry["name"].rstrip("/")) for entry in entries if entry["type"] == "directory"
    ]


# Protocols of object stores: keys need no directories, and making one would create a
# bucket (s3fs does), so a typo in a bucket's name would make a new bucket.
_OBJECT_STORES = frozenset({"s3", "s3a", "gs", "gcs", "az", "abfs", "abfss", "adl", "oss", "r2"})


def is_object_store(fs: Any) -> bool:
    """Whether `fs` (an fsspec filesystem) is an object store: no directories, no appends."""
    protocols = fs.protocol if isinstance(fs.protocol, (tuple, list)) else (fs.protocol,)
    return bool(_OBJECT_STORES.intersection(protocols))


def make_directory(fs: Any, path: str) -> None:
    """Make directory `path` of `fs` if the filesystem has directories (not on object stores)."""
    if not is_object_store(fs):
        fs.makedirs(path, exist_ok=True)


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
    fs, inner = remote(path, options, READING)
    block = head.result() if head is not None else fs.cat_file(inner, start=0, end=REMOTE_BLOCK)
    if len(block) < REMOTE_BLOCK:  # the whole file, in one request (segments usually are)
        yield io.BytesIO(block), len(block)
        return
    with fs.open(inner, "rb", block_size=REMOTE_BLOCK, cache_type="readahead") as file:
        yield file, file.size


def on_object_store(path: str, options: StorageOptions = None) -> bool:
    """Whether `path` is a URL of an object store (S3, GCS, Azure Blob, ...), whose objects
    are written whole and never appended to."""
    return is_url(path) and is_object_store(remote(path, options, READING)[0])


def kind(path: str, directory_first: bool = False, options: StorageOptions = None) -> str | None:
    """ "file", "directory", or None when nothing is there. On an object store, asking for a
    file and finding a directory takes two requests, so `directory_first` (for a path that
    names a logdir or run rather than an event file) asks first with one listing."""
    if not is_url(path):
        path = local_path(path)
        return "file" if os.path.isfile(path) else "directory" if os.path.isdir(path) else None
    fs, inner = remote(path, options, READING)
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
    fs, inner = remote(path, options, READING)
    return fs.size(inner)


def tree(top: str, options: StorageOptions = None) -> dict[str, list[str]]:
    """{directory: names of the files directly in it} for each directory at or below `top`
    that holds files (directories as the caller spelled them: URLs stay URLs), listed fresh;
    empty when `top` is no directory. On an object store the whole tree is one listing (a
    request per 1000 objects), not one per directory."""
    if not is_url(top):
        return {directory: names for directory, _, names in os.walk(local_path(top)) if names}
    fs, inner = remote(top, options, READING)
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
