"""`python -m summarylib.live` as network software (summarylib.live.server): real server
processes on 127.0.0.1, real sockets that send nothing, half a request or too much, a
real file-descriptor limit (RLIMIT_NOFILE) in the server's process, and what it says
when it cannot start. Resources are asserted (threads, CPU time), never wall-clock times.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

import summarylib as sl
from summarylib.format import live_control
from tests.processes import stop

pytestmark = pytest.mark.slow
_ADDRESS = re.compile(rb"at http://127\.0\.0\.1:(\d+)/")


@contextlib.contextmanager
def _server(logdir: str, *options: str) -> Iterator[tuple[subprocess.Popen, int]]:
    """`python -m summarylib.live --logdir logdir --port 0 *options`; the process and its port."""
    process = subprocess.Popen(
        [sys.executable, "-m", "summarylib.live", "--logdir", logdir, "--port", "0", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    assert process.stdout is not None
    try:
        line = process.stdout.readline()
        match = _ADDRESS.search(line)
        assert match, f"python -m summarylib.live did not start: {line + process.stdout.read(4096)!r}"
        yield process, int(match.group(1))
    finally:
        stop(process)
        process.stdout.close()


@pytest.fixture
def logdir(tmp_path: Any) -> str:
    """A logdir with run `train` (a scalar)."""
    with sl.create_file_writer(str(tmp_path / "train")) as writer, writer.as_default():
        sl.scalar("loss", 0.5, step=1)
    return str(tmp_path)


def _connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=30)


def _answer(connection: socket.socket) -> bytes:
    """All the server sends until it closes the connection (the client waits 30 s at most)."""
    chunks = []
    while chunk := connection.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def _get(port: int, route: str = "runs") -> bytes:
    with _connect(port) as connection:
        connection.sendall(f"GET /{route} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        return _answer(connection)


def _status_and_error(answer: bytes) -> tuple[int, str]:
    """The status of an HTTP answer and the "error" of its JSON body."""
    head, _, body = answer.partition(b"\r\n\r\n")
    assert b"Content-Type: application/json" in head, head
    return int(head.split()[1]), json.loads(body)["error"]


def _threads(process: subprocess.Popen) -> int:
    with open(f"/proc/{process.pid}/status") as status:
        return int(next(line.split()[1] for line in status if line.startswith("Threads:")))


def _cpu_seconds(process: subprocess.Popen) -> float:
    """User and system CPU time the process has used so far."""
    with open(f"/proc/{process.pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_what_keeps_it_from_starting_is_one_line_and_exit_2(tmp_path: Any) -> None:
    # A port in use ended in an OSError traceback; a logdir that is not there was served.
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        cases = [
            (["--logdir", str(tmp_path), "--port", str(port)], f"port {port}: Address already in use"),
            (["--logdir", str(tmp_path / "nonexistent")], "no such directory"),
            (["--logdir", str(tmp_path), "--host", "no-such-host.invalid"], "cannot listen on"),
            (["--logdir", str(tmp_path), "--timeout", "0"], "--timeout"),
        ]
        for arguments, says in cases:
            result = subprocess.run(
                [sys.executable, "-m", "summarylib.live", *arguments],
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert result.returncode == 2, arguments
            assert result.stdout == "" and "Traceback" not in result.stderr, result.stderr
            assert len(result.stderr.splitlines()) == 1 and says in result.stderr, result.stderr


def test_idle_and_half_sent_connections_are_closed_after_the_timeout(logdir: str) -> None:
    # With no socket timeout, each held a thread for ever.
    with _server(logdir, "--timeout", "1") as (_, port):
        idle, half, short = _connect(port), _connect(port), _connect(port)
        with idle, half, short:
            half.sendall(f"GET /runs HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n".encode())  # no blank line
            short.sendall(
                f"POST /control?run=train HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
                '{"views": '.encode()
            )
            assert _answer(idle) == b""
            assert _answer(half) == b""
            status, error = _status_and_error(_answer(short))
            assert status == 400 and "100 bytes" in error
        assert _get(port).startswith(b"HTTP/1.0 200 OK")
        assert not os.path.lexists(live_control.control_path(os.path.join(logdir, "train")))


def test_the_server_s_own_errors_are_json(logdir: str) -> None:
    with _server(logdir) as (_, port):
        for request, expected in [
            (b"NONSENSE\r\n\r\n", 400),
            (b"GET /runs HTTP/1.1 extra\r\n\r\n", 400),
            (b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n", 414),
            (b"GET /runs HTTP/1.1\r\nX-Long: " + b"a" * 70_000 + b"\r\n\r\n", 431),
        ]:
            with _connect(port) as connection:
                connection.sendall(request)
                assert _status_and_error(_answer(connection))[0] == expected, request[:30]


def test_connections_served_at_once_are_bounded_streams_included(logdir: str) -> None:
    # A thread a connection, without bound: each stream, idle or half-sent request held one.
    with _server(logdir, "--max-connections", "3", "--timeout", "60") as (process, port):
        streams = [_connect(port) for _ in range(2)]
        for stream in streams:
            stream.sendall(f"GET /stream?run=train HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            assert stream.recv(4096).startswith(b"HTTP/1.0 200 OK")
        with_streams = most = _threads(process)
        waiting = [_connect(port) for _ in range(8)]
        for look in range(220):  # until the third slot is taken, then 20 looks more
            most = max(most, _threads(process))
            if most > with_streams and look >= 20:
                break
            time.sleep(0.05)
        assert most == with_streams + 1  # was with_streams + 8
        for stream in streams:
            stream.close()
        for connection in waiting:
            connection.sendall(f"GET /runs HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        for connection in waiting:
            with connection:
                assert _answer(connection).startswith(b"HTTP/1.0 200 OK")


def test_at_the_file_descriptor_limit_accept_backs_off_instead_of_spinning(logdir: str) -> None:
    # With no descriptor left, accept failed at once, again and again: the loop took about
    # 60% of a core until a connection closed.
    with _server(logdir, "--timeout", "120") as (process, port):
        resource.prlimit(process.pid, resource.RLIMIT_NOFILE, (32, 32))  # the server's own limit
        held = []
        try:
            free = 32 - len(os.listdir(f"/proc/{process.pid}/fd"))
            for _ in range(free + 3):  # three more than it can accept: they wait in its queue
                held.append(_connect(port))
            for _ in range(200):  # until its descriptors are all taken (a bound, not a time)
                if len(os.listdir(f"/proc/{process.pid}/fd")) >= 32:
                    break
                time.sleep(0.05)
            assert len(os.listdir(f"/proc/{process.pid}/fd")) >= 32
            before = _cpu_seconds(process)
            time.sleep(3.0)  # the window the CPU time is measured over
            used = _cpu_seconds(process) - before
            assert used < 0.3, f"{used:.2f} s of CPU in 3 s at the descriptor limit"
        finally:
            for connection in held:
                connection.close()
        assert _get(port).startswith(b"HTTP/1.0 200 OK")  # served again once descriptors are free


def test_a_link_planted_at_the_old_temporary_name_is_not_written_through(logdir: str, tmp_path: Any) -> None:
    # The server wrote `summarylib_live.json.<its pid>.tmp`, following a link planted there.
    victim = tmp_path.parent / f"{tmp_path.name}-victim"
    victim.write_text("the user's own file")
    control = live_control.control_path(os.path.join(logdir, "train"))
    with _server(logdir) as (process, port):
        os.symlink(victim, f"{control}.{process.pid}.tmp")
        body = b'{"views": ["parameters"]}'
        with _connect(port) as connection:
            connection.sendall(
                f"POST /control?run=train HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            assert _answer(connection).startswith(b"HTTP/1.0 200 OK")
    assert victim.read_text() == "the user's own file"
    assert live_control.read_request(os.path.dirname(control)) == live_control.LiveRequest(("parameters",), 1)
