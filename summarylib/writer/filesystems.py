"""Where a logdir lives: a local path, or an fsspec URL (`s3://`, `gs://`, `az://`,
`hdfs://`, `memory://`, chained `simplecache::s3://`, ...).

URLs stay strings end to end (never `pathlib`, which turns `s3://b` into `s3:/b`) and
become a filesystem only here, at the edge, through `fsspec.core.url_to_fs`. Local paths,
and `file://` URLs, keep the local code path and its speed. fsspec and the protocol
packages are the optional extra `remote`; a URL whose filesystem is not installed is an
error naming what to install, never a local directory named `s3:`.
"""

from __future__ import annotations

import os
import posixpath
import re
import uuid
from typing import Any

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


def remote(
    url: str, storage_options: dict[str, Any] | None = None, where: str = "summarylib"
) -> tuple[Any, str]:
    """(fsspec filesystem, path within it) of a URL; a clear error when fsspec or the
    protocol's package is missing."""
    try:
        from fsspec.core import url_to_fs
    except ImportError:
        raise ModuleNotFoundError(
            f"{where}: {url!r} is a URL, which needs fsspec: pip install 'summarylib[remote]' "
            "(and the protocol's package: s3fs, gcsfs, adlfs, ...)"
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


def read_text(path: str, storage_options: dict[str, Any] | None = None) -> str | None:
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


def replace_atomically(path: str, content: bytes, storage_options: dict[str, Any] | None = None) -> None:
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
