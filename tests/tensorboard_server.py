"""A real TensorBoard server over a logdir, for tests that query its HTTP API as the
dashboards do. Both of TensorBoard's data loaders: the Python multiplexer
(`load_fast=False`) and the Rust data server (`load_fast=True`)."""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any

from tests.processes import stop

LOADERS = (False, True)
_ADDRESS = re.compile(rb"TensorBoard [^ ]+ at (http://127\.0\.0\.1:\d+/)")


@contextlib.contextmanager
def running_tensorboard(logdir: str, load_fast: bool = False, timeout: float = 60.0) -> Iterator[str]:
    """Start `tensorboard --logdir logdir` on 127.0.0.1 (a free port); yield its base URL
    (ending in '/') once it answers; stop it afterwards."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tensorboard.main",
            "--logdir",
            str(logdir),
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            f"--load_fast={'true' if load_fast else 'false'}",
            "--reload_interval",
            "1",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        base = _wait_for_address(process, timeout)
        yield base
    finally:
        stop(process)
        assert process.stdout is not None
        process.stdout.close()


def _wait_for_address(process: subprocess.Popen, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    seen = b""
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line and process.poll() is not None:
            break
        seen += line
        match = _ADDRESS.search(line)
        if match:
            return match.group(1).decode()
    raise RuntimeError(f"tensorboard did not start: {seen.decode(errors='replace')}")


def get(base: str, path: str, **params: Any) -> bytes:
    """The body of GET `base + path` with `params` as the query string."""
    url = base + path.lstrip("/")
    if params:
        url += "?" + urllib.parse.urlencode(params)
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read()


def get_json(base: str, path: str, **params: Any) -> Any:
    """GET `base + path` and parse the JSON it returns."""
    return json.loads(get(base, path, **params))


def post_json(base: str, path: str, body: Any) -> Any:
    """POST `body` as JSON to `base + path` (as the HParams dashboard does) and parse the answer."""
    request = urllib.request.Request(
        base + path.lstrip("/"),
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def wait_for(fetch: Any, ready: Any, timeout: float = 60.0) -> Any:
    """Call `fetch()` until `ready(result)` is true (TensorBoard loads logdirs in the
    background); return that result, or raise with the last one seen."""
    deadline = time.monotonic() + timeout
    result = None
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            result = fetch()
            if ready(result):
                return result
        time.sleep(0.25)
    raise AssertionError(f"TensorBoard never returned what was expected; last answer: {result!r}")
