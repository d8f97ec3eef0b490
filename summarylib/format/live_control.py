"""The live dashboard's control file: which views a run's watch should write now.

The one channel from TensorBoard back to a training process (seed 001's "mode file"): the
Live dashboard writes `summarylib_live.json` into the run's directory (the logdir of the
watch's writer), and a `watch(..., live=True)` polls it with a stat. Its content:

    {"version": 1, "views": ["parameters", "variance"], "log_freq": 10}

`views` are the watch's views wanted now (any of VIEWS; empty: views off), `log_freq` the
logged-step interval wanted for them. The dashboard rewrites the file, or touches it, at
least every HEARTBEAT_SECONDS while a page shows the run; a file not touched for
STALE_SECONDS means nobody is looking (a closed browser cannot say so), and the watch
then writes only its scalars. Written whole (a temporary file, then a rename), so a
reader sees the old request or the new one, never half of one.

Views written for the dashboard go to the run's LIVE_SUBDIR (`<run>/live`), rolling
event files that keep the last few minutes, so a week of watching stays bounded on disk.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

CONTROL_FILE = "summarylib_live.json"
LIVE_SUBDIR = "live"
VERSION = 1
# The views a dashboard may ask for: a watch's kinds, and the parameters' variance.
VIEWS = ("parameters", "gradients", "activations", "variance")
HEARTBEAT_SECONDS = 5.0
STALE_SECONDS = 15.0
# The longest interval a request may ask for (a logged step every so many steps).
MAX_LOG_FREQ = 1_000_000


@dataclass(frozen=True)
class LiveRequest:
    """What a dashboard asks of a run's watch: the views, and a logged step every
    `log_freq` steps."""

    views: tuple[str, ...]
    log_freq: int


def control_path(run_dir: str) -> str:
    """Where a run's control file is."""
    return os.path.join(run_dir, CONTROL_FILE)


def parse_request(data: object) -> LiveRequest:
    """The request in `data` (the file's JSON, or a dashboard's POST body); ValueError
    saying what is wrong, for anything else."""
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, got {type(data).__name__}")
    views = data.get("views", [])
    if not isinstance(views, list) or not all(view in VIEWS for view in views):
        raise ValueError(f"expected 'views' a list of {', '.join(VIEWS)}, got {views!r}")
    log_freq = data.get("log_freq", 1)
    if type(log_freq) is not int or not 1 <= log_freq <= MAX_LOG_FREQ:
        raise ValueError(f"expected 'log_freq' an int from 1 to {MAX_LOG_FREQ}, got {log_freq!r}")
    return LiveRequest(tuple(view for view in VIEWS if view in views), log_freq)


def write_request(run_dir: str, request: LiveRequest) -> None:
    """Write `request` as the run's control file, whole (see the module docstring)."""
    path = control_path(run_dir)
    temporary = f"{path}.{os.getpid()}.tmp"
    body = {"version": VERSION, "views": list(request.views), "log_freq": request.log_freq}
    with open(temporary, "w", encoding="utf-8") as file:
        json.dump(body, file)
    os.replace(temporary, path)


def touch(run_dir: str) -> None:
    """The dashboard's heartbeat: the request stands, someone is looking."""
    os.utime(control_path(run_dir))


class ControlPoll:
    """A watch's side: the request standing now, for a stat of the file at most every
    `interval` seconds (the file is read again only when it changed)."""

    def __init__(
        self, run_dir: str, interval: float = 0.5, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._path = control_path(run_dir)
        self._interval = interval
        self._clock = clock
        self._next_stat = 0.0
        self._seen: tuple[int, int] | None = None  # (mtime_ns, size) of the file read
        self._request: LiveRequest | None = None
        self._touched = 0.0  # the file's mtime, wall-clock seconds

    def request(self) -> LiveRequest | None:
        """The views wanted now, or None: no file, a stale one (nobody looking), views off,
        or a file that is no request (a dashboard of another version, half a copy)."""
        now = self._clock()
        if now >= self._next_stat:
            self._next_stat = now + self._interval
            self._stat()
        if self._request is None or time.time() - self._touched > STALE_SECONDS:
            return None
        return self._request

    def _stat(self) -> None:
        try:
            status = os.stat(self._path)
        except OSError:
            self._seen, self._request = None, None
            return
        self._touched = status.st_mtime
        key = (status.st_mtime_ns, status.st_size)
        if key == self._seen:
            return
        self._seen = key
        try:
            with open(self._path, encoding="utf-8") as file:
                request = parse_request(json.load(file))
        except (OSError, ValueError):
            self._request = None
            return
        self._request = request if request.views else None
