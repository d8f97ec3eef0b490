"""A real S3-protocol server for tests: moto's server mode on 127.0.0.1, reached through a
TCP relay the test can cut and restore (an outage of the store, without losing what it
holds) or throttle (a slow store), with the environment s3fs, boto3 and TensorBoard read
their endpoint from."""

from __future__ import annotations

import contextlib
import os
import pathlib
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from typing import TYPE_CHECKING

from tests.processes import free_port, stop

if TYPE_CHECKING:  # the benchmarks use this module without pytest
    import pytest


class Relay:
    """Forwards connections from a local port to the server; `cut()` refuses and drops
    them until `restore()`; `rate` (bytes per second each way and connection, None for
    no limit) slows what it forwards."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self.rate: float | None = None
        self._listener: socket.socket | None = None
        self._connections: list[socket.socket] = []
        self._lock = threading.Lock()
        self.restore()

    def restore(self) -> None:
        listener = socket.create_server(("127.0.0.1", self.port), reuse_port=True)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(OSError):  # wakes the thread blocked in accept()
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        with self._lock:
            connections, self._connections = self._connections, []
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
            connection.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            with self._lock:
                self._connections += [client, server]
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(1 << 16):
                rate = self.rate
                if rate is not None:
                    time.sleep(len(data) / rate)
                sink.sendall(data)
        for end in (source, sink):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)


@contextlib.contextmanager
def s3_server(bucket: str) -> Iterator[Relay]:
    """Start moto's S3 server with `bucket`, point AWS_ENDPOINT_URL (s3fs, boto3) and
    S3_ENDPOINT (TensorBoard) at a relay to it; yield the relay; stop it all after. s3fs's
    cached filesystems are dropped on the way in and out: they keep the endpoint they were
    made with, and another module's server is gone."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    saved = dict(os.environ)
    relay = None
    try:
        _wait_until_up(port)
        relay = Relay(port)
        endpoint = f"http://127.0.0.1:{relay.port}"
        os.environ.update(
            AWS_ACCESS_KEY_ID="testing",
            AWS_SECRET_ACCESS_KEY="testing",
            AWS_DEFAULT_REGION="us-east-1",
            AWS_ENDPOINT_URL=endpoint,
            S3_ENDPOINT=endpoint,
        )
        import boto3

        _forget_filesystems()
        boto3.client("s3", endpoint_url=endpoint).create_bucket(Bucket=bucket)
        yield relay
    finally:
        if relay is not None:
            relay.cut()
        _forget_filesystems()
        os.environ.clear()
        os.environ.update(saved)
        stop(process)


def _forget_filesystems() -> None:
    import s3fs

    s3fs.S3FileSystem.clear_instance_cache()


def _wait_until_up(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1).close()
            return
        time.sleep(0.1)
    raise RuntimeError("moto's S3 server did not start")


def spill_root_for(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    """A directory of the test's own to be the temporary directory (TMPDIR) where writers
    keep what a store refused or has not taken yet (beside tmp_path, which some tests
    expect to stay empty)."""
    root = tmp_path_factory.mktemp("spill")
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    return root


def bucket_fixtures(bucket: str, spill_autouse: bool = False) -> tuple:
    """The fixtures of a test module on one bucket of a moto server: `s3` (the relay, one
    server per module), `url` (a run of the test's own name) and `spill_root` (see
    spill_root_for; `spill_autouse` for a module whose every writer may spill). Assign
    them to module names: `s3, url, spill_root = bucket_fixtures("name")`."""
    import pytest  # here: the benchmarks import this module without pytest

    @pytest.fixture(scope="module")
    def s3() -> Iterator[Relay]:
        with s3_server(bucket) as relay:
            yield relay

    @pytest.fixture
    def url(s3: Relay, request: pytest.FixtureRequest) -> str:
        return f"s3://{bucket}/{request.node.name}"

    @pytest.fixture(autouse=spill_autouse)
    def spill_root(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
        """Where writers keep what a store refused: the test's own directory, not /tmp."""
        return spill_root_for(tmp_path_factory, monkeypatch)

    return s3, url, spill_root
