"""Requests for the next remote files of a read, in flight while earlier ones are decoded.

A run on an object store is many small segment objects, each a request whose time is mostly
waiting on the store. Reading them one after another adds those waits up; asking for the
next few while the current one is decoded overlaps them with each other and with decoding.
The requests run on the filesystem's own event loop (fsspec's async filesystems: s3fs,
gcsfs, ...), so no threads of our own; other filesystems, and local paths, are read when
opened, as before. Each file is still fetched once, from its first byte, as `open_binary`
fetches it.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Iterable
from concurrent.futures import Future

from summarylib.format.storage import READING, REMOTE_BLOCK, StorageOptions, is_url, remote

# Files requested ahead of the one being read: enough to overlap the waits on a store, few
# enough that the blocks held stay bounded (REMOTE_BLOCK each, as much as one local chunk).
WINDOW = 4


class FetchAhead:
    """The first block (REMOTE_BLOCK bytes) of each remote file of `paths`, requested up to
    `window` files ahead of the one `take` was last asked for; files are taken in order."""

    def __init__(self, paths: Iterable[str], window: int = WINDOW, options: StorageOptions = None) -> None:
        self._waiting = deque(path for path in paths if is_url(path))
        self._options = options
        self._pending: dict[str, Future[bytes]] = {}
        self._window = window
        self._fill()

    def take(self, path: str) -> Future[bytes] | None:
        """The request for `path`'s first block, if one was made (None: read it when opened),
        and the next file's request started in its place."""
        pending = self._pending.pop(path, None)
        self._fill()
        return pending

    def cancel(self) -> None:
        """Drop the requests not taken (a read stopped early)."""
        for pending in self._pending.values():
            pending.cancel()
        self._pending.clear()
        self._waiting.clear()

    def _fill(self) -> None:
        while self._waiting and len(self._pending) < self._window:
            path = self._waiting.popleft()
            fs, inner = remote(path, self._options, READING)
            if getattr(fs, "async_impl", False):
                request = fs._cat_file(inner, start=0, end=REMOTE_BLOCK)
                self._pending[path] = asyncio.run_coroutine_threadsafe(request, fs.loop)
