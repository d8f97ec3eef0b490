"""The live dashboard's control file: which views a run's watch should write now.

The one channel from TensorBoard back to a training process (seed 001's "mode file"): the
Live dashboard writes `summarylib_live.json` into the run's directory (the logdir of the
watch's writer), and a `watch(..., live=True)` polls it with a stat. Its content:

    {"version": 1, "views": ["parameters", "variance"], "log_freq": 10}

`views` are the watch's views wanted now (any of VIEWS; empty: views off), `log_freq` the
logged-step interval wanted for them. The dashboard rewrites the file, or touches it, at
least every HEARTBEAT_SECONDS while a page shows the run; a file not touched for
STALE_SECONDS means nobody is looking (a closed browser cannot say so), and the watch
then writes only its scalars. Written whole (a temporary file of a unique name, created
exclusively, then a rename), so a reader sees the old request or the new one, never half
of one, and concurrent writers never share a temporary file or follow a link planted at
its name.

Read as a file a run's directory may hold by mistake or by malice is read: only a regular
file, opened without following a symbolic link and without blocking (a FIFO), at most
MAX_BYTES of it; anything else (a link to /dev/zero, a FIFO, a directory, a huge file) is
no request, so a watch never hangs or runs out of memory over it.

Views written for the dashboard go to the run's LIVE_SUBDIR (`<run>/live`), rolling
event files that keep the last few minutes, so a week of watching stays bounded on disk.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
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
# The most of a control file read (a request is some 80 bytes): a bigger file is no request.
MAX_BYTES = 4096
# How a control file is opened: never through a link, never waiting for a FIFO's writer.
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
# The file's mode (mkstemp's is 0o600): readable by a watch run as another user, as open()
# makes a file under the usual umask (reading the umask means setting it, which a threaded
# server cannot do safely).
_MODE = 0o644


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
    """Write `request` as the run's control file, whole (see the module docstring): a
    temporary file that `mkstemp` creates exclusively under a name no one can guess,
    renamed over the control file (a link planted at the control file's name is
    replaced, never followed)."""
    body = {"version": VERSION, "views": list(request.views), "log_freq": request.log_freq}
    handle, temporary = tempfile.mkstemp(prefix=f".{CONTROL_FILE}.", suffix=".tmp", dir=run_dir)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            os.fchmod(file.fileno(), _MODE)
            json.dump(body, file)
        os.replace(temporary, control_path(run_dir))
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(temporary)
        raise


def read_request(run_dir: str) -> LiveRequest | None:
    """The request of the run's control file (views off included), or None: no file, or
    a file that is no request (see the module docstring: only a regular file, at most
    MAX_BYTES, read without following a link or blocking)."""
    try:
        handle = os.open(control_path(run_dir), _READ_FLAGS)
    except OSError:  # none, a link (ELOOP), no permission
        return None
    try:
        status = os.fstat(handle)
        if not stat.S_ISREG(status.st_mode) or status.st_size > MAX_BYTES:
            return None
        data = _read_at_most(handle, MAX_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(handle)
    if len(data) > MAX_BYTES:  # grew since the fstat
        return None
    try:
        return parse_request(json.loads(data))
    except (ValueError, RecursionError):  # JSONDecodeError and UnicodeDecodeError included
        return None


def _read_at_most(handle: int, limit: int) -> bytes:
    """The file's bytes from its start, `limit` at most (fewer at its end)."""
    chunks: list[bytes] = []
    size = 0
    while size < limit and (chunk := os.read(handle, limit - size)):
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def touch(run_dir: str) -> None:
    """The dashboard's heartbeat: the request stands, someone is looking (a link at the
    control file's name is touched itself, not what it points at)."""
    os.utime(control_path(run_dir), follow_symlinks=False)


class ControlPoll:
    """A watch's side: the request standing now, for a stat of the file at most every
    `interval` seconds (the file is read again only when it changed)."""

    def __init__(
        self, run_dir: str, interval: float = 0.5, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._run_dir = run_dir
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
            status = os.lstat(self._path)  # the file itself, as read_request reads it
        except OSError:
            self._seen, self._request = None, None
            return
        self._touched = status.st_mtime
        key = (status.st_mtime_ns, status.st_size)
        if key == self._seen:
            return
        self._seen = key
        request = read_request(self._run_dir)
        self._request = request if request is not None and request.views else None
