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
from typing import Any

_LOCAL_PREFIX = "file://"


def is_url(path: str) -> bool:
    """Whether `path` names a filesystem other than the local one."""
    if path.startswith(_LOCAL_PREFIX):
        return False
    return "://" in path or "::" in path


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


def join(base: str, name: str) -> str:
    """`base/name` for local paths and URLs alike."""
    return posixpath.join(base, name) if is_url(base) else os.path.join(base, name)


def registry_key(logdir: str) -> str:
    """The name one logdir has however it is spelled: its real path, or the URL."""
    return logdir.rstrip("/") if is_url(logdir) else os.path.realpath(local_path(logdir))
