"""The Live dashboard's HTTP side: one WSGI app, served by TensorBoard's own server (the
plugin, summarylib.live.plugin) or by the standalone one (`python -m summarylib.live`).

Routes, relative to the app's `base` (TensorBoard: `/data/plugin/summarylib_live/`,
standalone: `/`); the page resolves them against its module's URL:

- `GET index.js` (and the other files of `static/`): the page.
- `GET runs`: every run, whether it is live, its image and scalar tags, its standing request.
- `GET stream?run=R`: Server-Sent Events: `frame` for each new image of the run (the newest
  of each tag first), `scalars` for its newest scalars (at most SCALARS_PER_SECOND), and a
  `: ping` comment every PING_SECONDS; while it is open, the run's control file is touched.
- `GET frame?run=R&tag=T&frame=N`: the PNG of a frame kept (the last few of each tag).
- `GET control?run=R`: the standing request, or null; `POST control?run=R` with a request
  as JSON (see summarylib.format.live_control) writes the run's control file. Only the
  dashboard's own page may: a request for another host (DNS rebinding) is refused on
  every route, and a POST another site's page could send, or its stream, which keeps a
  request fresh, too (see summarylib.live.access).

The standard library alone (no werkzeug), so the standalone server needs no TensorBoard.
Errors, every bad request's included, are JSON, `{"error": "..."}`. Non-finite scalar
values are sent as the strings "NaN", "Infinity" and "-Infinity" (JSON has no such
numbers).
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from summarylib.format import live_control
from summarylib.live.access import (
    Environ,
    Hosts,
    HTTPError,
    listening_hosts,
    refuse_other_hosts,
    refuse_other_sites,
    refuse_unless_json,
)
from summarylib.live.frames import Follower, RunView

PING_SECONDS = 10.0
SCALARS_PER_SECOND = 10.0
MAX_BODY = 64 << 10
STATIC = Path(__file__).with_name("static")
_STATIC_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]*")
_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".json": "application/json",
}

StartResponse = Callable[..., Any]


def live_app(
    logdir: str | os.PathLike,
    poll_interval: float = 0.02,
    *,
    base: str = "/",
    page: bool = True,
    hosts: Hosts | None = None,
) -> LiveApp:
    """The dashboard's WSGI app over `logdir`: its routes under `base`; `page` serves
    static/index.html at `base` itself (the standalone server's front page); `hosts` the
    Host names it answers to (default: a server on the loopback interface's)."""
    return LiveApp(os.fspath(logdir), poll_interval, base, page, hosts or listening_hosts("127.0.0.1"))


class LiveApp:
    """The WSGI callable (see the module docstring); its follower thread starts at the
    first request."""

    def __init__(self, logdir: str, poll_interval: float, base: str, page: bool, hosts: Hosts) -> None:
        self.follower = Follower(logdir, poll_interval)
        self.base = base if base.endswith("/") else base + "/"
        self.page = page
        self.hosts = hosts

    def __call__(self, environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "") or "/"
        route = path[len(self.base) :] if path.startswith(self.base) else None
        if path + "/" == self.base:
            route = ""
        method = environ.get("REQUEST_METHOD", "GET")
        query = {name: values[-1] for name, values in parse_qs(environ.get("QUERY_STRING", "")).items()}
        try:
            refuse_other_hosts(environ, self.hosts)
            if route is None:
                raise HTTPError("404 Not Found", f"no such route: {path}")
            if route == "control" and method == "POST":
                return _json(start_response, self._post_control(query, environ))
            if method not in ("GET", "HEAD"):
                raise HTTPError("405 Method Not Allowed", f"{method} is not served at {route or '/'}")
            if route == "runs":
                return _json(start_response, self._runs())
            if route == "stream":  # an open stream keeps the run's request fresh
                refuse_other_sites(environ)
                return self._stream(self._run(query), start_response)
            if route == "frame":
                return self._frame(query, start_response)
            if route == "control":
                return _json(start_response, _request(self._run_directory(self._run(query))))
            return self._static("index.html" if route == "" and self.page else route, start_response)
        except HTTPError as error:
            return _json(start_response, {"error": str(error)}, error.status)

    def _runs(self) -> dict[str, object]:
        follower = self.follower
        follower.fresh()
        with follower.condition:
            views = {
                run: (view.live, sorted(view.frames), sorted(view.scalars))
                for run, view in follower.views.items()
            }
        runs = []
        for run, (live, image_tags, scalar_tags) in sorted(views.items()):
            directory = self._run_directory(run)
            has_control = os.path.exists(live_control.control_path(directory))
            runs.append(
                {
                    "run": run,
                    "live": live or has_control,
                    "image_tags": image_tags,
                    "scalar_tags": scalar_tags,
                    "request": _request(directory) if has_control else None,
                }
            )
        return {"runs": runs}

    def _run(self, query: dict[str, str]) -> str:
        """The run a query names: one of the logdir's runs (listed again if it is not known
        yet), never a path outside the logdir."""
        run = query.get("run")
        if run is None:
            raise HTTPError("400 Bad Request", "expected a 'run' parameter")
        follower = self.follower
        for max_age in (60.0, 0.0):
            follower.fresh(max_age)
            with follower.condition:
                if run in follower.views:
                    break
        else:
            raise HTTPError("400 Bad Request", f"no run {run!r} in the logdir")
        root = os.path.realpath(follower.logdir)
        inside = os.path.realpath(self._run_directory(run))
        if os.path.commonpath([root, inside]) != root:
            raise HTTPError("400 Bad Request", f"run {run!r} is outside the logdir")
        return run

    def _run_directory(self, run: str) -> str:
        return self.follower.run_directory(run)

    def _post_control(self, query: dict[str, str], environ: Environ) -> dict[str, object]:
        refuse_unless_json(environ)
        refuse_other_sites(environ)
        run = self._run(query)
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY:
            raise HTTPError("400 Bad Request", f"expected a JSON body of at most {MAX_BODY} bytes")
        try:
            body = environ["wsgi.input"].read(length) if length else b""
        except OSError:  # the client stopped sending (the server's socket timeout)
            raise HTTPError("400 Bad Request", f"expected a body of {length} bytes, got less") from None
        if len(body) < length:
            raise HTTPError("400 Bad Request", f"expected a body of {length} bytes, got {len(body)}")
        try:
            request = live_control.parse_request(json.loads(body))
        except ValueError as error:  # json's JSONDecodeError and UnicodeDecodeError included
            raise HTTPError("400 Bad Request", f"bad request body: {error}") from None
        except RecursionError:  # [[[[... nested deeper than the parser goes
            raise HTTPError("400 Bad Request", "bad request body: nested too deep") from None
        live_control.write_request(self._run_directory(run), request)
        return {"views": list(request.views), "log_freq": request.log_freq}

    def _frame(self, query: dict[str, str], start_response: StartResponse) -> Iterable[bytes]:
        run = self._run(query)
        tag = query.get("tag", "")
        try:
            number = int(query.get("frame", ""))
        except ValueError:
            raise HTTPError("400 Bad Request", "expected an int 'frame' parameter") from None
        frame = self.follower.frame(run, tag, number)
        if frame is None:
            raise HTTPError("404 Not Found", f"frame {number} of {run!r} {tag!r} is gone (or never was)")
        kind = "image/jpeg" if frame.data[:2] == b"\xff\xd8" else "image/png"
        return _respond(start_response, "200 OK", kind, frame.data, [("Cache-Control", "no-store")])

    def _static(self, name: str, start_response: StartResponse) -> Iterable[bytes]:
        path = STATIC / name
        if not _STATIC_NAME.fullmatch(name) or not path.is_file():
            raise HTTPError("404 Not Found", f"no such route: {name}")
        kind = _TYPES.get(path.suffix, "application/octet-stream")
        return _respond(start_response, "200 OK", kind, path.read_bytes(), [("Cache-Control", "no-cache")])

    def _stream(self, run: str, start_response: StartResponse) -> Iterator[bytes]:
        start_response(
            "200 OK",
            [
                ("Content-Type", "text/event-stream; charset=utf-8"),
                ("Cache-Control", "no-store"),
                ("X-Accel-Buffering", "no"),
                ("X-Content-Type-Options", "nosniff"),
            ],
        )
        return _Stream(self.follower, run).events()


class _Stream:
    """One page's stream of a run: what it has sent, and the events still to send."""

    def __init__(self, follower: Follower, run: str) -> None:
        self.follower = follower
        self.run = run
        self.sent: dict[str, int] = {}  # the last frame number sent, by tag
        self.scalars_sent = -1  # the RunView.scalars_changed count sent
        self.scalars_at = -math.inf  # when scalars were last sent (monotonic)
        self.scalars_held = False  # changed scalars not sent yet (too soon after the last)

    def events(self) -> Iterator[bytes]:
        """The stream's bytes, an event (or a few) a chunk; ends when the client goes
        (the server closes the generator when a write fails)."""
        follower = self.follower
        follower.open_stream(self.run)
        try:
            yield b"retry: 1000\n\n"
            seen = -1
            ping_at = time.monotonic() + PING_SECONDS
            while True:
                with follower.condition:
                    wait = ping_at - time.monotonic()
                    if self.scalars_held:
                        wait = min(wait, self.scalars_at + 1 / SCALARS_PER_SECOND - time.monotonic())
                    if follower.version == seen:
                        follower.condition.wait(max(0.0, wait))
                    seen = follower.version
                    chunk = self._new(follower.views.get(self.run))
                now = time.monotonic()
                if chunk:
                    yield chunk
                elif now >= ping_at:
                    yield b": ping\n\n"
                    ping_at = now + PING_SECONDS
        finally:
            follower.close_stream(self.run)

    def _new(self, view: RunView | None) -> bytes:
        """The events of what changed in the run since they were last sent (under the
        follower's condition)."""
        if view is None:
            return b""
        events = []
        for tag, frames in view.frames.items():
            last = self.sent.get(tag)
            new = [frame for frame in frames if last is None or frame.number > last]
            if last is None:
                new = new[-1:]  # on connect, the newest of each tag
            for frame in new:
                events.append(_event("frame", frame.event()))
            if new:
                self.sent[tag] = new[-1].number
        now = time.monotonic()
        changed = bool(view.scalars) and view.scalars_changed != self.scalars_sent
        self.scalars_held = changed and now - self.scalars_at < 1 / SCALARS_PER_SECOND
        if changed and not self.scalars_held:
            values = {tag: [step, wall, _number(value)] for tag, (step, wall, value) in view.scalars.items()}
            events.append(_event("scalars", {"run": self.run, "values": values}))
            self.scalars_sent, self.scalars_at = view.scalars_changed, now
        return b"".join(events)


def _event(name: str, data: object) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def _number(value: float) -> float | str:
    """A value as JSON can carry it: non-finite ones as JavaScript spells them."""
    if math.isfinite(value):
        return value
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def _request(directory: str) -> dict[str, object] | None:
    """A run's standing request (its control file's), or None (also for a control file
    that is no regular file of a request's size: see live_control.read_request)."""
    request = live_control.read_request(directory)
    if request is None:
        return None
    return {"views": list(request.views), "log_freq": request.log_freq}


def _json(start_response: StartResponse, body: object, status: str = "200 OK") -> Iterable[bytes]:
    data = json.dumps(body).encode()
    return _respond(start_response, status, "application/json", data, [("Cache-Control", "no-store")])


def _respond(
    start_response: StartResponse, status: str, kind: str, body: bytes, headers: list[tuple[str, str]]
) -> Iterable[bytes]:
    start_response(
        status,
        [
            ("Content-Type", kind),
            ("Content-Length", str(len(body))),
            ("X-Content-Type-Options", "nosniff"),
            *headers,
        ],
    )
    return [body]
