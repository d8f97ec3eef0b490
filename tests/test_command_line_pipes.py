"""The command-line tools piped into a reader that stops early (`... | head`): the tool ends
quietly with its usual exit status, no BrokenPipeError traceback."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import summarylib as sl

# Each test starts the tool in a subprocess.
pytestmark = pytest.mark.slow

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_into_closed_pipe(*args: str) -> tuple[int, str]:
    """(exit status, stderr) of `python -m ARGS` whose stdout's reader is gone before it writes."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    process = subprocess.Popen(
        [sys.executable, "-m", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True
    )
    process.stdout.close()  # the child is still importing: its first write meets a closed pipe
    errors = process.stderr.read()
    return process.wait(120), errors


def test_inspect_into_a_closed_pipe_ends_quietly(tmp_path):
    writer = sl.create_file_writer(str(tmp_path))
    with writer.as_default():
        for step in range(3):
            sl.scalar("loss", 1.0 / (step + 1), step=step)
    writer.close()
    status, errors = run_into_closed_pipe("summarylib.inspect", "--logdir", str(tmp_path))
    assert "Traceback" not in errors and "BrokenPipeError" not in errors, errors
    assert status == 0


def test_migrate_diff_into_a_closed_pipe_ends_quietly(tmp_path):
    pytest.importorskip("libcst", reason="libcst is not installed (the migrate extra)")
    program = tmp_path / "train.py"
    program.write_text("from torch.utils.tensorboard import SummaryWriter\n\nwriter = SummaryWriter()\n")
    status, errors = run_into_closed_pipe("summarylib.migrate", str(program))
    assert "Traceback" not in errors and "BrokenPipeError" not in errors, errors
    assert status == 0
