"""Processes the tests start (servers, trainers): a free port for one, and stopping one."""

from __future__ import annotations

import socket
import subprocess


def free_port() -> int:
    """A TCP port of 127.0.0.1 free now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def stop(process: subprocess.Popen) -> None:
    """Terminate `process` and reap it (killed if it does not end within 10 s)."""
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
