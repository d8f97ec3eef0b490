"""Who may talk to a training run through the Live dashboard (summarylib.live.access),
over real sockets against both servers: `python -m summarylib.live` and a real
`tensorboard --logdir` finding the plugin through its entry point. Requests are written
with http.client, so each header is the one a browser (or an attacker's page) sends.

The addresses a server answers to when it listens on more than loopback are tested in
this process through the plugin made from TensorBoard's own context: every server these
tests start listens on 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import io
import json
import os
import socket
import threading
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

import summarylib as sl
from summarylib.format import live_control
from tests.live_session import plugin_registered, standalone_server, tensorboard

KINDS = ["standalone", "tensorboard"]
REQUEST = b'{"views": ["parameters"], "log_freq": 2}'


@dataclass
class Server:
    """A running dashboard: its port and the path its routes are under."""

    port: int
    prefix: str

    def ask(
        self,
        method: str,
        route: str,
        host: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, str, Any]:
        """(status, content type, body: parsed if JSON) of one request whose Host is `host`."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request(
                method, self.prefix + route, body=body, headers={"Host": host, **(headers or {})}
            )
            response = connection.getresponse()
            kind = response.getheader("Content-Type") or ""
            data = response.read() if not kind.startswith("text/event-stream") else b""
        finally:
            connection.close()
        return response.status, kind, json.loads(data) if kind == "application/json" else data

    def post(self, host: str, body: bytes = REQUEST, run: str = "train") -> tuple[int, str, Any]:
        """POST control as the dashboard's page sends it (JSON, same origin), for `host`."""
        headers = {
            "Content-Type": "application/json",
            "Sec-Fetch-Site": "same-origin",
            "Origin": f"http://{host}",
        }
        return self.ask("POST", f"control?run={urllib.parse.quote(run)}", host, body, headers)


@contextlib.contextmanager
def serving(kind: str, logdir: str) -> Iterator[Server]:
    """The dashboard over `logdir`, served by `kind` on a free port of 127.0.0.1."""
    if kind == "standalone":
        serve, prefix = standalone_server(logdir), "/"
    else:
        pytest.importorskip("tensorboard", reason="TensorBoard is not installed (the tensorboard extra)")
        if not plugin_registered():
            pytest.skip("TensorBoard does not find the summarylib_live plugin (reinstall summarylib)")
        serve, prefix = tensorboard(logdir), "/data/plugin/summarylib_live/"
    with serve as base:
        yield Server(int(urllib.parse.urlsplit(base).port or 0), prefix)


def _run(logdir: str, name: str) -> str:
    directory = os.path.join(logdir, name)
    with sl.create_file_writer(directory) as writer, writer.as_default():
        sl.scalar("loss", 0.5, step=1)
    return directory


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_a_rebound_name_is_refused_and_the_server_s_own_names_are_served(kind: str, tmp_path: Any) -> None:
    """DNS rebinding: a page of attacker.example whose name now points at 127.0.0.1 is the
    dashboard's own origin to the browser (Sec-Fetch-Site: same-origin), but says
    `Host: attacker.example:PORT`; it was served, and switched the run's views."""
    logdir = str(tmp_path)
    control = live_control.control_path(_run(logdir, "train"))
    with serving(kind, logdir) as server:
        port = server.port
        refused = [
            f"attacker.example:{port}",
            "attacker.example",
            f"ATTACKER.example:{port}",
            f"localhost.attacker.example:{port}",
            f"127.0.0.1.nip.io:{port}",
            f"127.0.0.1:{port + 1}",  # another port: another server's origin
            f"localhost:{port + 1}",
            f"[::2]:{port}",
            "",
            f"127.0.0.1:{port}x",
        ]
        for host in refused:
            status, kind_, answer = server.post(host)
            assert (status, kind_, "error" in answer) == (403, "application/json", True), host
            assert not os.path.lexists(control), host
        forwarded = {"X-Forwarded-Host": f"127.0.0.1:{port}"}  # any page may send that header
        assert server.ask("GET", "control?run=train", f"attacker.example:{port}", headers=forwarded)[0] == 403
        status, kind_, answer = server.ask("GET", "stream?run=train", f"attacker.example:{port}")
        assert (status, kind_, "error" in answer) == (403, "application/json", True)
        assert server.ask("GET", "runs", f"attacker.example:{port}")[0] == 403
        assert not os.path.lexists(control)

        served = [
            f"127.0.0.1:{port}",
            "127.0.0.1",
            f"localhost:{port}",
            f"LocalHost:{port}",
            "localhost",
            f"localhost.:{port}",
            f"127.4.5.6:{port}",
            f"[::1]:{port}",
        ]
        for number, host in enumerate(served, start=1):
            body = json.dumps({"views": ["gradients"], "log_freq": number}).encode()
            status, _, answer = server.post(host, body)
            assert (status, answer) == (200, {"views": ["gradients"], "log_freq": number}), host
            assert live_control.read_request(os.path.dirname(control)) == live_control.LiveRequest(
                ("gradients",), number
            )
            assert server.ask("GET", "control?run=train", host)[2] == answer


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_every_bad_request_is_a_4xx_with_a_json_error(kind: str, tmp_path: Any) -> None:
    # A body of arrays nested 60,000 deep (under the body limit) was a 500.
    logdir = str(tmp_path)
    control = live_control.control_path(_run(logdir, "train"))
    host = "127.0.0.1"
    with serving(kind, logdir) as server:
        bodies = [
            b"[" * 60_000,
            b'{"views": ' + b"[" * 60_000,
            b'{"views": ["parameters"], "x": ' + b"{" * 30_000,
            b"\xff\xfe not text",
            b"",
        ]
        for body in bodies:
            status, kind_, answer = server.post(host, body)
            assert (status, kind_, "error" in answer) == (400, "application/json", True), body[:40]
        for method, route, expected in [
            ("GET", "no-such-route", 404),
            ("GET", "frame?run=train&tag=t&frame=x", 400),
            ("GET", "frame?run=train&tag=t&frame=" + "9" * 5000, 400),
            ("GET", "control", 400),
            ("GET", "stream?run=no-such-run", 400),
            ("DELETE", "runs", 405),
        ]:
            status, kind_, answer = server.ask(method, route, host)
            assert (status, kind_, "error" in answer) == (expected, "application/json", True), route
        assert not os.path.lexists(control)


def _fifo(path: str) -> None:
    os.mkfifo(path)


def _dev_zero(path: str) -> None:
    os.symlink("/dev/zero", path)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_a_control_file_that_is_a_fifo_or_a_link_to_dev_zero_is_no_request(kind: str, tmp_path: Any) -> None:
    # The runs route read it without a bound (a 500, the server's memory) or blocked on
    # the FIFO for ever.
    logdir = str(tmp_path)
    for name, plant in (("fifo", _fifo), ("zero", _dev_zero)):
        plant(live_control.control_path(_run(logdir, name)))
    with serving(kind, logdir) as server:
        status, _, answer = server.ask("GET", "runs", "127.0.0.1")
        assert status == 200
        assert {run["run"]: (run["live"], run["request"]) for run in answer["runs"]} == {
            "fifo": (True, None),
            "zero": (True, None),
        }
        for name in ("fifo", "zero"):
            assert server.ask("GET", f"control?run={name}", "127.0.0.1")[:3:2] == (200, None)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_concurrent_posts_never_fail_and_the_trainer_never_reads_half_of_one(
    kind: str, tmp_path: Any
) -> None:
    # The posts shared one temporary file: some were 500s (the file renamed by another),
    # and the trainer could read an empty file or a mix of two requests.
    logdir = str(tmp_path)
    run_dir = _run(logdir, "train")
    bodies = [json.dumps({"views": ["parameters"], "log_freq": n}).encode() for n in range(1, 21)]
    statuses: list[int] = []
    with serving(kind, logdir) as server:
        server.post("127.0.0.1", bodies[0])

        def post(body: bytes) -> None:
            for _ in range(3):
                statuses.append(server.post("127.0.0.1", body)[0])

        threads = [threading.Thread(target=post, args=(body,)) for body in bodies]
        for thread in threads:
            thread.start()
        seen = set()
        for _ in range(100_000):  # bounded: stops when the posts are answered
            with open(live_control.control_path(run_dir), "rb") as file:
                seen.add(live_control.parse_request(json.loads(file.read())).log_freq)  # whole, or raises
            if not any(thread.is_alive() for thread in threads):
                break
        for thread in threads:
            thread.join(60)
    assert sorted(statuses) == [200] * 60
    assert seen <= set(range(1, 21))
    assert [name for name in os.listdir(run_dir) if "tfevents" not in name] == ["summarylib_live.json"]


def _plugin_status(flags: argparse.Namespace | None, host: str, logdir: str) -> int:
    """The status of GET runs for `host` from the plugin made from a TensorBoard context
    with `flags` (TensorBoard's server listening on port 6006)."""
    pytest.importorskip("tensorboard", reason="TensorBoard is not installed (the tensorboard extra)")
    from tensorboard.plugins import base_plugin

    from summarylib.live.plugin import ROUTE_BASE, LivePlugin

    plugin = LivePlugin(base_plugin.TBContext(logdir=logdir, flags=flags))
    app = plugin.get_plugin_apps()["/*"]
    statuses: list[str] = []
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": ROUTE_BASE + "runs",
        "HTTP_HOST": host,
        "SERVER_PORT": "6006",
        "wsgi.input": io.BytesIO(),
    }
    b"".join(app(environ, lambda status, headers: statuses.append(status)))
    return int(statuses[0].split()[0])


def test_the_plugin_answers_to_the_address_tensorboard_listens_on(tmp_path: Any) -> None:
    """--host and --bind_all as TensorBoard parsed them: on loopback (its default), loopback
    names only; on every interface or a host of the network, also that host, this
    machine's names and any IP address (an address literal is never a rebound name)."""
    logdir = str(tmp_path)
    _run(logdir, "train")
    machine = socket.gethostname().lower()
    default = argparse.Namespace(host=None, bind_all=False)
    for flags in (default, argparse.Namespace(host="127.0.0.1", bind_all=False), None):
        assert _plugin_status(flags, "localhost:6006", logdir) == 200
        assert _plugin_status(flags, "attacker.example:6006", logdir) == 403
        assert _plugin_status(flags, "192.0.2.7:6006", logdir) == 403
        if machine != "localhost":
            assert _plugin_status(flags, f"{machine}:6006", logdir) == 403
    network = [
        argparse.Namespace(host=None, bind_all=True),
        argparse.Namespace(host="0.0.0.0", bind_all=False),
        argparse.Namespace(host="lab.example", bind_all=False),
    ]
    for flags in network:
        for host in (f"{machine}:6006", "192.0.2.7:6006", "[2001:db8::1]:6006", "localhost:6006"):
            assert _plugin_status(flags, host, logdir) == 200, (flags, host)
        assert _plugin_status(flags, "attacker.example:6006", logdir) == 403
        assert _plugin_status(flags, f"{machine}:6007", logdir) == 403
    assert _plugin_status(network[2], "lab.example:6006", logdir) == 200
    assert _plugin_status(network[0], "lab.example:6006", logdir) == 403
