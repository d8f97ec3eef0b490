"""The Live dashboard's server (summarylib.live) as a page meets it: real servers on real
sockets over real event files, a real `tensorboard --logdir` finding the plugin through its
entry point, and `python -m summarylib.live`; the routes of summarylib/live/app.py driven
with http.client and urllib, the stream read as a browser's EventSource reads it.

The fast tests call the WSGI app in this process (the WSGI interface, no socket): what it
refuses, what it sends for odd values, what it keeps of a tag's frames.
"""

from __future__ import annotations

import contextlib
import http.client
import io
import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import summarylib as sl
from summarylib.format import live_control
from summarylib.live.app import live_app
from summarylib.live.frames import KEEP_FRAMES
from summarylib.reader import iter_values
from tests.processes import stop

PARAMETERS = "images/parameters"


def _write_image(run_dir: str, step: int, value: int, description: str = "layer bands") -> bytes:
    """One image into `run_dir` (flushed); the PNG bytes as written (read back)."""
    pixels = np.full((1, 6, 10, 1), value, np.uint8)
    pixels[0, 0, 0, 0] = step % 256  # every frame's bytes differ
    with sl.create_file_writer(run_dir, flush_millis=10) as writer, writer.as_default():
        sl.image(PARAMETERS, pixels, step=step, description=description)
    written = [v for v in iter_values(run_dir) if v.tag == PARAMETERS and v.step == step]
    return written[-1].value.encoded[0]


def _write_scalar(run_dir: str, step: int, value: float) -> None:
    with sl.create_file_writer(run_dir, flush_millis=10) as writer, writer.as_default():
        sl.scalar("loss", value, step=step)


@pytest.fixture
def logdir(tmp_path: Any) -> str:
    """A logdir with run `train`: a scalar in it and an image in its live/."""
    run = tmp_path / "train"
    _write_scalar(str(run), 1, 0.5)
    _write_image(str(run / live_control.LIVE_SUBDIR), 1, 7)
    return str(tmp_path)


# --- Real servers ------------------------------------------------------------------------

_STANDALONE_ADDRESS = re.compile(rb"at (http://127\.0\.0\.1:\d+/)")


@contextlib.contextmanager
def _standalone(logdir: str, timeout: float = 60.0) -> Iterator[str]:
    """`python -m summarylib.live --logdir logdir --port 0`; its base URL, from the line it prints."""
    process = subprocess.Popen(
        [sys.executable, "-m", "summarylib.live", "--logdir", logdir, "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert process.stdout is not None
    try:
        deadline = time.monotonic() + timeout
        line = b""
        while time.monotonic() < deadline and not (match := _STANDALONE_ADDRESS.search(line)):
            line = process.stdout.readline()
            if not line and process.poll() is not None:
                raise RuntimeError(f"python -m summarylib.live exited {process.returncode}")
        assert match, "python -m summarylib.live printed no address"
        yield match.group(1).decode()
    finally:
        stop(process)
        process.stdout.close()


@contextlib.contextmanager
def _server(kind: str, logdir: str) -> Iterator[str]:
    """The base URL of the dashboard's routes, served by `kind`."""
    if kind == "standalone":
        with _standalone(logdir) as base:
            yield base
        return
    pytest.importorskip("tensorboard", reason="TensorBoard is not installed (the tensorboard extra)")
    from tests.tensorboard_server import running_tensorboard

    with running_tensorboard(logdir) as base:
        yield base + "data/plugin/summarylib_live/"


def _get(url: str) -> tuple[int, str, bytes]:
    """(status, content type, body) of GET `url`, errors included."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.headers["Content-Type"], response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read()


def _post(url: str, body: bytes) -> tuple[int, Any]:
    request = urllib.request.Request(
        url, data=body, headers={"Content-Type": "application/json"}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


class _EventStream:
    """A `stream` response read as EventSource reads it: events (name, data) one by one."""

    def __init__(self, url: str) -> None:
        parts = urllib.parse.urlsplit(url)
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        self.connection.request("GET", f"{parts.path}?{parts.query}", headers={"Accept": "text/event-stream"})
        self.response = self.connection.getresponse()
        assert self.response.status == 200
        assert self.response.headers["Content-Type"].startswith("text/event-stream")

    def next(self, name: str, timeout: float = 30.0) -> dict[str, Any]:
        """The data of the next event called `name` (others are passed over)."""
        deadline = time.monotonic() + timeout
        event, data = "message", []
        while time.monotonic() < deadline:
            line = self.response.fp.readline().decode().rstrip("\n")
            if line.startswith("event: "):
                event = line[len("event: ") :]
            elif line.startswith("data: "):
                data.append(line[len("data: ") :])
            elif not line:
                if event == name and data:
                    return json.loads("\n".join(data))
                event, data = "message", []
        raise AssertionError(f"no {name!r} event within {timeout} s")

    def close(self) -> None:
        self.connection.close()


def _run(runs: dict[str, Any], name: str) -> dict[str, Any]:
    return next(run for run in runs["runs"] if run["run"] == name)


@pytest.mark.slow
def test_tensorboard_lists_the_plugin(logdir: str) -> None:
    pytest.importorskip("tensorboard", reason="TensorBoard is not installed (the tensorboard extra)")
    from tests.tensorboard_server import get_json, running_tensorboard

    with running_tensorboard(logdir) as base:
        listing = get_json(base, "data/plugins_listing")
        assert listing["summarylib_live"]["enabled"] is True
        assert listing["summarylib_live"]["tab_name"] == "Live"
        loading = listing["summarylib_live"]["loading_mechanism"]
        assert loading == {"type": "IFRAME", "module_path": "/data/plugin/summarylib_live/index.js"}
        status, kind, body = _get(base + "data/plugin/summarylib_live/index.js")
        assert (status, kind.split(";")[0]) == (200, "text/javascript")
        assert b"export async function render" in body


@pytest.mark.slow
def test_a_run_watched_live_is_live_before_anyone_asks(tmp_path: Any) -> None:
    # watch(..., live=True) makes R/live, empty until a page asks: TensorBoard shows the
    # Live tab active (not under "inactive") and the page lists the run as live from then
    pytest.importorskip("tensorboard", reason="TensorBoard is not installed (the tensorboard extra)")
    from tests.tensorboard_server import get_json, running_tensorboard

    run_dir = str(tmp_path / "mlp")
    _write_scalar(run_dir, 0, 1.0)
    with running_tensorboard(str(tmp_path)) as base:
        assert get_json(base, "data/plugins_listing")["summarylib_live"]["enabled"] is False
        os.makedirs(os.path.join(run_dir, live_control.LIVE_SUBDIR))
        deadline = time.monotonic() + 30  # the runs are listed again every 2 s with no page open
        while not get_json(base, "data/plugins_listing")["summarylib_live"]["enabled"]:
            assert time.monotonic() < deadline, "the Live tab stayed inactive"
            time.sleep(0.2)
        runs = get_json(base, "data/plugin/summarylib_live/runs")
        assert _run(runs, "mlp")["live"] is True and _run(runs, "mlp")["image_tags"] == []


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["tensorboard", "standalone"])
def test_a_page_sees_a_run_and_its_new_frames(kind: str, logdir: str) -> None:
    run_dir = os.path.join(logdir, "train")
    live_dir = os.path.join(run_dir, live_control.LIVE_SUBDIR)
    with _server(kind, logdir) as base:
        status, kind_, body = _get(base + "runs")
        assert (status, kind_) == (200, "application/json")
        train = _run(json.loads(body), "train")
        assert train == {
            "run": "train",
            "live": True,
            "image_tags": [PARAMETERS],
            "scalar_tags": ["loss"],
            "request": None,
        }
        assert all(run["run"] != "train/live" for run in json.loads(body)["runs"])

        stream = _EventStream(base + "stream?run=train")
        try:
            first = stream.next("frame")  # the newest on connect
            assert (first["run"], first["tag"], first["step"]) == ("train", PARAMETERS, 1)
            assert (first["width"], first["height"], first["description"]) == (10, 6, "layer bands")
            scalars = stream.next("scalars")
            assert scalars["run"] == "train"
            assert scalars["values"]["loss"][0::2] == [1, 0.5]

            written_at = time.time()
            png = _write_image(live_dir, 2, 9)
            new = stream.next("frame")
            arrived = time.time() - written_at
            assert (new["step"], new["frame"] > first["frame"]) == (2, True)
            assert arrived < 5.0  # read from the file within a poll (~20 ms); generous for a busy machine
            status, kind_, frame = _get(base + f"frame?run=train&tag={PARAMETERS}&frame={new['frame']}")
            assert (status, kind_, frame) == (200, "image/png", png)
            _write_scalar(run_dir, 2, 0.25)
            assert stream.next("scalars")["values"]["loss"][0::2] == [2, 0.25]
        finally:
            stream.close()

        status, _, body = _get(base + f"frame?run=train&tag={PARAMETERS}&frame=999999")
        assert status == 404 and "error" in json.loads(body)
        status, _, body = _get(base + "no-such-route")
        assert status == 404 and "error" in json.loads(body)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["tensorboard", "standalone"])
def test_the_page_switches_the_views_through_the_control_file(kind: str, logdir: str, tmp_path: Any) -> None:
    run_dir = os.path.join(logdir, "train")
    control = live_control.control_path(run_dir)
    with _server(kind, logdir) as base:
        assert json.loads(_get(base + "control?run=train")[2]) is None
        status, answer = _post(
            base + "control?run=train", b'{"views": ["gradients", "parameters"], "log_freq": 5}'
        )
        assert (status, answer) == (200, {"views": ["parameters", "gradients"], "log_freq": 5})
        assert live_control.ControlPoll(run_dir).request() == live_control.LiveRequest(
            ("parameters", "gradients"), 5
        )
        assert json.loads(_get(base + "control?run=train")[2]) == answer
        assert _run(json.loads(_get(base + "runs")[2]), "train")["request"] == answer

        before = os.stat(control).st_mtime_ns
        for bad in (b'{"views": ["weights"]}', b'{"views": [], "log_freq": 0}', b"not json", b"[1]"):
            status, answer = _post(base + "control?run=train", bad)
            assert status == 400 and "error" in answer
        assert os.stat(control).st_mtime_ns == before

        # While a page shows the run, its control file is touched (someone is looking).
        os.utime(control, (time.time() - 100, time.time() - 100))
        assert live_control.ControlPoll(run_dir).request() is None  # stale
        stream = _EventStream(base + "stream?run=train")
        try:
            deadline = time.monotonic() + 10
            while time.time() - os.stat(control).st_mtime > live_control.STALE_SECONDS:
                assert time.monotonic() < deadline, "the open stream never touched the control file"
                time.sleep(0.05)
        finally:
            stream.close()

        outside = tmp_path.parent / f"{tmp_path.name}-outside"
        outside.mkdir()
        escape = os.path.relpath(outside, logdir)
        for run in (escape, "..", "/etc", "no-such-run"):
            status, answer = _post(base + "control?" + urllib.parse.urlencode({"run": run}), b'{"views": []}')
            assert status == 400 and "error" in answer
        assert not os.listdir(outside)


# --- The app in this process ---------------------------------------------------------------


def _call(
    app: Any,
    path: str,
    query: str = "",
    method: str = "GET",
    body: bytes = b"",
    headers: dict[str, str] | None = None,
) -> tuple[str, Any]:
    """(status, parsed JSON or bytes) of one WSGI call of `app`; `headers` as WSGI gives
    them (default: a JSON body's Content-Type)."""
    answer: dict[str, Any] = {}

    def start_response(status: str, headers: list[tuple[str, str]]) -> None:
        answer.update(status=status, headers=dict(headers))

    environ = {
        "REQUEST_METHOD": method,
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": io.BytesIO(body),
        **({"CONTENT_TYPE": "application/json"} if headers is None else headers),
    }
    data = b"".join(app(environ, start_response))
    assert answer["headers"]["X-Content-Type-Options"] == "nosniff"
    is_json = answer["headers"]["Content-Type"] == "application/json"
    return answer["status"], json.loads(data) if is_json else data


def test_the_app_answers_under_its_base_only(logdir: str) -> None:
    app = live_app(logdir, base="/data/plugin/summarylib_live/", page=False)
    status, runs = _call(app, "/data/plugin/summarylib_live/runs")
    assert status == "200 OK" and [run["run"] for run in runs["runs"]] == ["train"]
    assert _call(app, "/runs")[0] == "404 Not Found"
    assert _call(app, "/data/plugin/summarylib_live/")[0] == "404 Not Found"  # no front page in TensorBoard
    status, body = _call(live_app(logdir), "/index.js")
    assert status == "200 OK" and b"render" in body
    assert _call(live_app(logdir), "/../app.py")[0] == "404 Not Found"
    assert _call(live_app(logdir), "/runs", method="DELETE")[0] == "405 Method Not Allowed"


def test_a_body_too_big_or_a_run_outside_is_refused(logdir: str) -> None:
    app = live_app(logdir)
    status, answer = _call(app, "/control", "run=train", "POST", b" " * (1 << 20))
    assert status == "400 Bad Request" and "at most" in answer["error"]
    assert _call(app, "/control", "run=..", "POST", b'{"views": []}')[0] == "400 Bad Request"
    assert _call(app, "/control", "", "POST", b'{"views": []}')[0] == "400 Bad Request"
    assert not os.path.exists(live_control.control_path(os.path.join(logdir, "train")))


def test_a_tag_keeps_its_last_frames_and_a_logdir_run_counts(tmp_path: Any) -> None:
    live_dir = str(tmp_path / live_control.LIVE_SUBDIR)  # the logdir itself is the run "."
    for step in range(KEEP_FRAMES + 3):
        _write_image(live_dir, step, step)
    app = live_app(str(tmp_path))
    _, runs = _call(app, "/runs")
    assert runs["runs"] == [
        {"run": ".", "live": True, "image_tags": [PARAMETERS], "scalar_tags": [], "request": None}
    ]
    follower = app.follower
    with follower.condition:
        kept = [frame.step for frame in follower.views["."].frames[PARAMETERS]]
    assert kept == list(range(3, KEEP_FRAMES + 3))
    newest = follower.frame(".", PARAMETERS, follower.views["."].frames[PARAMETERS][-1].number)
    assert newest is not None and newest.step == KEEP_FRAMES + 2


def test_non_finite_scalars_are_sent_as_javascript_spells_them(tmp_path: Any) -> None:
    run_dir = str(tmp_path / "run")
    _write_scalar(run_dir, 1, float("nan"))
    with sl.create_file_writer(run_dir) as writer, writer.as_default():
        sl.scalar("up", float("inf"), step=1)
        sl.scalar("down", float("-inf"), step=1)
    app = live_app(str(tmp_path))
    _call(app, "/runs")
    environ = {"REQUEST_METHOD": "GET", "PATH_INFO": "/stream", "QUERY_STRING": "run=run"}
    events = app(environ, lambda status, headers: None)
    try:
        chunks = [next(iter(events)) for _ in range(2)]  # retry:, then the scalars
    finally:
        events.close()
    values = json.loads(chunks[1].decode().split("data: ", 1)[1])["values"]
    assert {tag: value[2] for tag, value in values.items()} == {
        "loss": "NaN",
        "up": "Infinity",
        "down": "-Infinity",
    }


@pytest.mark.slow
def test_the_standalone_server_imports_no_tensorboard() -> None:
    code = "import sys, summarylib.live.app, summarylib.live.__main__; print('tensorboard' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def _frames(events: Iterator[bytes]) -> Iterator[dict[str, Any]]:
    """The `frame` events' data of a stream's chunks, as they come."""
    for chunk in events:
        for event in chunk.decode().split("\n\n"):
            if event.startswith("event: frame\n"):
                yield json.loads(event.split("data: ", 1)[1])


@pytest.mark.slow  # seconds: the files roll every second
def test_a_stream_follows_rolling_files_as_they_begin_and_go(tmp_path: Any) -> None:
    live_dir = str(tmp_path / "run" / live_control.LIVE_SUBDIR)
    writer = sl.create_file_writer(live_dir, retain_seconds=2.0)
    pixels = np.zeros((1, 4, 4, 1), np.uint8)
    with writer.as_default():
        sl.image(PARAMETERS, pixels, step=0)
    writer.flush()
    app = live_app(str(tmp_path))
    events = app(
        {"REQUEST_METHOD": "GET", "PATH_INFO": "/stream", "QUERY_STRING": "run=run"}, lambda *_: None
    )
    frames = _frames(iter(events))
    try:
        assert next(frames)["step"] == 0
        for step in range(1, 6):
            time.sleep(1.1)  # past the roll: this step begins a new file
            with writer.as_default():
                sl.image(PARAMETERS, pixels + step, step=step)
            writer.flush()
            assert next(frames)["step"] == step
        files = os.listdir(live_dir)
        assert len(files) < 6  # the oldest went (retain_seconds), and the stream went on
    finally:
        events.close()
        writer.close()


def test_the_standalone_server_refuses_a_logdir_at_a_url(capsys: Any) -> None:
    from summarylib.live.__main__ import main

    with pytest.raises(SystemExit) as exited:
        main(["--logdir", "s3://bucket/runs"])
    assert exited.value.code == 2
    assert "a local directory" in capsys.readouterr().err


def test_a_post_another_site_could_send_is_refused(logdir: str) -> None:
    """What a page of another site can make the browser send is refused before anything
    is written; the dashboard's own page (same origin, also behind a proxy that rewrites
    Host) and clients that are no browser are served."""
    app = live_app(logdir)
    control = live_control.control_path(os.path.join(logdir, "train"))
    body = b'{"views": ["parameters"]}'
    json_body = {"CONTENT_TYPE": "application/json"}
    refused = [
        ({"CONTENT_TYPE": "text/plain"}, "415 Unsupported Media Type"),  # a form, a no-cors fetch
        ({"CONTENT_TYPE": "application/x-www-form-urlencoded"}, "415 Unsupported Media Type"),
        ({}, "415 Unsupported Media Type"),
        ({**json_body, "HTTP_SEC_FETCH_SITE": "cross-site"}, "403 Forbidden"),
        ({**json_body, "HTTP_SEC_FETCH_SITE": "same-site"}, "403 Forbidden"),  # another port
        ({**json_body, "HTTP_ORIGIN": "http://evil.example", "HTTP_HOST": "127.0.0.1:6006"}, "403 Forbidden"),
        ({**json_body, "HTTP_ORIGIN": "null", "HTTP_HOST": "127.0.0.1:6006"}, "403 Forbidden"),
    ]
    for headers, expected in refused:
        status, answer = _call(app, "/control", "run=train", "POST", body, headers)
        assert (status, "error" in answer) == (expected, True), headers
        assert not os.path.exists(control), headers
    served = [
        {"CONTENT_TYPE": "application/json; charset=utf-8", "HTTP_SEC_FETCH_SITE": "same-origin"},
        {**json_body, "HTTP_SEC_FETCH_SITE": "same-origin", "HTTP_ORIGIN": "https://lab.example"},  # a proxy
        {**json_body, "HTTP_ORIGIN": "http://127.0.0.1:6006", "HTTP_HOST": "127.0.0.1:6006"},
        {**json_body, "HTTP_ORIGIN": "https://lab.example", "HTTP_X_FORWARDED_HOST": "lab.example"},
        json_body,  # curl, urllib
    ]
    for headers in served:
        os.makedirs(os.path.dirname(control), exist_ok=True)
        status, answer = _call(app, "/control", "run=train", "POST", body, headers)
        assert (status, answer) == ("200 OK", {"views": ["parameters"], "log_freq": 1}), headers
        os.remove(control)
    # The stream keeps a run's request fresh (someone is looking): other sites get none.
    status, answer = _call(app, "/stream", "run=train", headers={"HTTP_SEC_FETCH_SITE": "cross-site"})
    assert status == "403 Forbidden" and "error" in answer


def test_with_no_page_open_the_follower_reads_only_when_asked(tmp_path: Any) -> None:
    """A TensorBoard with the plugin whose Live tab nobody opens: between requests the
    follower lists and reads nothing (it used to walk the logdir every 2 s); a request
    then sees what was written meanwhile."""
    logdir = tmp_path / "logs"
    _write_scalar(str(logdir / "train"), 1, 0.5)
    app = live_app(logdir)
    assert [run["run"] for run in _call(app, "/runs")[1]["runs"]] == ["train"]
    time.sleep(0.5)  # a round the request woke while one ran comes right after it
    listed = app.follower._listed_at
    _write_scalar(str(logdir / "eval"), 1, 0.25)
    time.sleep(3.0)  # longer than the old idle listing interval
    assert app.follower._listed_at == listed
    assert [run["run"] for run in _call(app, "/runs")[1]["runs"]] == ["eval", "train"]
    assert app.follower._listed_at > listed
