"""`python -m summarylib.inspect` without `--tag` prints `tensorboard --inspect`'s statistics,
which pool the steps of all tags: on a healthy run whose tags are logged at different steps
its `outoforder_steps` is not empty, so the report says what that list is, and still ends OK."""

from __future__ import annotations

import subprocess
import sys

import summarylib as sl
from summarylib.inspect.text_output import POOLED_NOTE


def _inspect(logdir: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "summarylib.inspect", "--logdir", logdir]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def test_a_healthy_run_with_tags_at_other_steps_says_the_list_is_pooled(tmp_path):
    with sl.create_file_writer(str(tmp_path)) as writer, writer.as_default():
        for step in range(3):
            sl.scalar("loss", 1.0 / (step + 1), step=step)
        sl.text("about", "logged last, at step 0", step=0)
    result = _inspect(str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "outoforder_steps     [(2, 0)]" in result.stdout
    assert POOLED_NOTE in result.stdout
    assert "WARNING" not in result.stdout
    assert result.stdout.rstrip().splitlines()[-1].startswith("OK: ")


def test_a_run_in_step_order_has_no_note(tmp_path):
    with sl.create_file_writer(str(tmp_path)) as writer, writer.as_default():
        for step in range(3):
            sl.scalar("loss", 1.0 / (step + 1), step=step)
    result = _inspect(str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert POOLED_NOTE not in result.stdout
