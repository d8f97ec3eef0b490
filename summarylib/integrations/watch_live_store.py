"""The live watch on an object store (a run at an fsspec URL: `s3://`, `gs://`, `memory://`):
the control object polled, and the live views' old objects deleted, on a thread of the
watch's own.

A store's round trip takes milliseconds (a HEAD on moto's S3 server here: about 5 ms,
up to 20), too long for the training thread, so a thread asks for the control object's
info every poll interval and reads it again only when its modification time, ETag or
size changed; the training thread only reads the result. The dashboard's heartbeat on
a store is a rewrite of the object (a store has no utime): its modification time
(LastModified, one-second resolution on S3, the store's clock) says how fresh it is.

The live views go to `<run>/live` as segment objects (the writer's object-store files:
each upload a new object), which no writer deletes; the same thread deletes those last
modified more than `retain_seconds` ago, every quarter of that, so the store keeps about
the last `retain_seconds` of them, as rolling local files do.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import posixpath
import threading
import time
from typing import Any

from summarylib.format.live_control import CONTROL_FILE, MAX_BYTES, STALE_SECONDS, LiveRequest, parse_request
from summarylib.format.storage import StorageOptions, remote

# The keys fsspec filesystems give an object's modification time under (s3fs, local,
# gcsfs, adlfs and others, memory).
_MODIFIED_KEYS = ("LastModified", "mtime", "updated", "last_modified", "created")
# The part of a name that makes an object an event file (the only objects deleted).
_EVENT_FILE_MARK = "tfevents"


def modified_time(info: dict[str, Any]) -> float | None:
    """An object's modification time from fsspec's `info`, in seconds since the epoch;
    None if the filesystem gives none."""
    for key in _MODIFIED_KEYS:
        value = info.get(key)
        if isinstance(value, datetime.datetime):
            return (
                value.timestamp() if value.tzinfo else value.replace(tzinfo=datetime.timezone.utc).timestamp()
            )
        if isinstance(value, (int, float)):
            return float(value)
        if isinstance(value, str):
            try:
                return modified_time({key: datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))})
            except ValueError:
                continue
    return None


class StorePoll:
    """ControlPoll's side for a run on an object store: `request()` is the request standing
    as of the thread's last look (None: no object, a stale one, views off, a store that
    does not answer). The thread also prunes `<run>/live` (see the module docstring)."""

    def __init__(
        self,
        run_url: str,
        storage_options: StorageOptions,
        interval: float,
        live_url: str,
        retain_seconds: float,
    ) -> None:
        self._fs, run = remote(run_url, storage_options, "watch(live=True)")
        _, self._live = remote(live_url, storage_options, "watch(live=True)")
        self._path = posixpath.join(run, CONTROL_FILE)
        self._interval = interval
        self._retain_seconds = retain_seconds
        self._prune_every = max(1.0, retain_seconds / 4)
        self._next_prune = time.monotonic() + self._prune_every
        self._seen: tuple | None = None  # (modified, ETag, size) of the object read
        self._request: LiveRequest | None = None
        self._touched = 0.0  # the object's modification time
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=f"summarylib-live-poll[{run_url}]", daemon=True
        )
        self._thread.start()

    def request(self) -> LiveRequest | None:
        """The views wanted now, or None (see the class docstring)."""
        request = self._request
        if request is None or time.time() - self._touched > STALE_SECONDS:
            return None
        return request

    def close(self) -> None:
        """Stop the thread (after the call it is in; not waited for: a store may hang)."""
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._look()
            except Exception:  # a store that is down or refuses: nobody looking, for now
                self._seen, self._request = None, None
            if time.monotonic() >= self._next_prune:
                self._next_prune = time.monotonic() + self._prune_every
                with contextlib.suppress(Exception):  # tried again at the next prune
                    self.prune()
            self._stop.wait(self._interval)

    def _look(self) -> None:
        self._fs.invalidate_cache(self._path)
        try:
            info = self._fs.info(self._path)
        except FileNotFoundError:
            self._seen, self._request = None, None
            return
        modified = modified_time(info)
        key = (modified, info.get("ETag"), info.get("size"))
        self._touched = time.time() if modified is None else modified
        if key == self._seen:
            return
        try:
            data = self._fs.cat_file(self._path, start=0, end=MAX_BYTES + 1)  # a huge object is no request
            request: LiveRequest | None = None if len(data) > MAX_BYTES else parse_request(json.loads(data))
        except FileNotFoundError:
            request = None
        except (ValueError, RecursionError):  # no request (a dashboard of another version): nobody looking
            request = None
        self._seen = key
        self._request = request if request is not None and request.views else None

    def prune(self) -> None:
        """Delete the live views' event-file objects last modified more than
        `retain_seconds` ago."""
        self._fs.invalidate_cache(self._live)
        try:
            listed = self._fs.ls(self._live, detail=True)
        except FileNotFoundError:
            return
        oldest = time.time() - self._retain_seconds
        old = [
            entry["name"]
            for entry in listed
            if entry.get("type") == "file"
            and _EVENT_FILE_MARK in posixpath.basename(entry["name"])
            and (modified_time(entry) or oldest) < oldest
        ]
        if old:
            self._fs.rm(old)
