"""`watch(..., live=True)` over a control file someone else left in the run directory: a
real training process whose control file is a link to /dev/zero or a FIFO, and a watch
of a run on a store (memory://) whose control object is too big to be a request. The
watch trains on and asks for no views (summarylib.format.live_control.read_request)."""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import textwrap
import time
import uuid

import pytest

pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")

import torch

import summarylib as sl
from summarylib.format.live_control import CONTROL_FILE, LIVE_SUBDIR, MAX_BYTES, control_path
from summarylib.integrations.torch import watch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRAINING_SCRIPT = textwrap.dedent(
    """
    import resource, sys, time
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))  # a runaway read fails fast
    import torch
    import summarylib as sl
    from summarylib.integrations.torch import watch

    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    with sl.create_file_writer(sys.argv[1]) as writer:
        handle = watch(model, log="all", writer=writer, optimizer=optimizer, live=True)
        for step in range(60):  # a little over a second: the control file is polled twice and more
            model(torch.randn(4, 8)).pow(2).mean().backward()
            optimizer.step()
            time.sleep(0.02)
        handle.remove()
    print("trained", handle.step)
    """
)


@pytest.mark.slow
@pytest.mark.parametrize("planted", ["link to /dev/zero", "FIFO"])
def test_a_control_file_that_is_no_file_neither_kills_nor_hangs_the_training(logdir, planted):
    """A link to /dev/zero was read without end (MemoryError), a FIFO blocked the first
    poll for ever: the real training process now trains to its end, asking for no views."""
    os.makedirs(logdir)
    if planted == "FIFO":
        os.mkfifo(control_path(logdir))
    else:
        os.symlink("/dev/zero", control_path(logdir))
    result = subprocess.run(
        [sys.executable, "-c", TRAINING_SCRIPT, logdir],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,  # a bound on a hang
    )
    assert (result.returncode, result.stdout.split()) == (0, ["trained", "60"]), result.stderr
    assert glob.glob(os.path.join(logdir, LIVE_SUBDIR, "*tfevents*")) == []


def test_a_control_object_too_big_to_be_a_request_asks_for_nothing():
    """On a store, a control object past MAX_BYTES (a valid request, padded) is no request
    (the poll reads at most that much of it); the request alone is one."""
    fsspec = pytest.importorskip("fsspec", reason="fsspec is not installed (the remote-test extra)")
    url = f"memory://watch-live-{uuid.uuid4().hex}/run"
    fs, path = fsspec.core.url_to_fs(url)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
    body = json.dumps({"version": 1, "views": ["parameters"], "log_freq": 1}).encode()

    def steps_until(done) -> None:
        deadline = time.monotonic() + 30
        while not done():
            assert time.monotonic() < deadline
            model(torch.randn(4, 8)).pow(2).mean().backward()
            time.sleep(0.01)

    def live_objects() -> list[str]:
        fs.invalidate_cache()
        return fs.ls(f"{path}/{LIVE_SUBDIR}") if fs.exists(f"{path}/{LIVE_SUBDIR}") else []

    fs.pipe_file(f"{path}/{CONTROL_FILE}", body + b" " * MAX_BYTES)
    with sl.create_file_writer(url) as writer:
        handle = watch(model, log="parameters", writer=writer, live=True)
        steps_until(lambda: handle.step >= 60)  # about a second: polled twice
        assert live_objects() == []
        fs.pipe_file(f"{path}/{CONTROL_FILE}", body)
        steps_until(lambda: len(live_objects()) >= 1)
        handle.remove()
