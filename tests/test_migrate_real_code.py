"""Patterns of real public programs that migrated wrong (found by tests/test_migrate_real.py),
each as a minimal hand-written snippet: TF's global steps, variable default steps, tags under
tf.name_scope, a writer handed to another library, and a `; ` left behind a removed import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("libcst")

from summarylib.migrate import migrate_source
from tests.tensorboard_data import read_scalars

FAKE_TF = Path(__file__).parent / "migrate_corpus" / "fake_tf"


def _migrate_cli(tmp_path: Path, source: str, to: str = "compat") -> tuple[int, str, list[dict]]:
    """Run the command on `source` as a user would: exit status, migrated text, left calls."""
    program = tmp_path / "train.py"
    program.write_text(source)
    report = tmp_path / "report.json"
    command = [sys.executable, "-m", "summarylib.migrate", "--in-place", "--to", to, "--json"]
    done = subprocess.run([*command, "--report", str(report), str(program)], capture_output=True, timeout=120)
    left = json.loads(report.read_text())["files"][0]["left"]
    return done.returncode, program.read_text(), left


CONTRIB_FRAMEWORK_STEP = """\
import sys
import tensorflow as tf
tf.enable_eager_execution()
global_step = tf.contrib.framework.get_or_create_global_step()
writer = tf.contrib.summary.create_file_writer(sys.argv[1])
with writer.as_default(), tf.contrib.summary.always_record_summaries():
    for _ in range(3):
        tf.contrib.summary.scalar("loss", 1.0)
        global_step.assign_add(1)
"""


@pytest.mark.parametrize("to", ["compat", "v2"])
def test_a_contrib_framework_global_step_is_carried_over(tmp_path: Path, to: str) -> None:
    # contrib ops read the global step; tf.contrib.framework's spelling stayed TF's variable,
    # which summarylib's ops never read: every point at step 0.
    status, migrated, left = _migrate_cli(tmp_path, CONTRIB_FRAMEWORK_STEP, to)
    assert (status, left) == (0, [])
    logdir = tmp_path / "logs"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(FAKE_TF), os.environ.get("PYTHONPATH", "")]))
    subprocess.run([sys.executable, "-c", migrated, str(logdir)], check=True, env=env, timeout=120)
    [(_run, tags)] = read_scalars(str(logdir)).items()
    assert [step for step, _ in tags["loss"]] == [0, 1, 2]


def test_a_kept_global_step_that_cannot_be_passed_is_listed(tmp_path: Path) -> None:
    source = (
        "from tensorflow.train import create_global_step\n"
        "import tensorflow as tf\n"
        "step = create_global_step()\n"
        "writer = tf.contrib.summary.create_file_writer('logs')\n"
        "with writer.as_default(), tf.contrib.summary.always_record_summaries():\n"
        "    tf.contrib.summary.scalar('loss', 1.0)\n"
    )
    status, _, left = _migrate_cli(tmp_path, source)
    assert status == 1
    assert [entry["code"] for entry in left] == ["create_global_step()"]
    assert "pass step=<the global step> to each contrib op" in left[0]["reason"]


VARIABLE_STEP = """\
import tensorflow as tf
global_step = tf.compat.v1.train.get_or_create_global_step()
writer = tf.summary.create_file_writer("logs")
tf.summary.experimental.set_step(global_step)
with writer.as_default(step=optimizer.iterations):
    tf.summary.scalar("loss", 1.0)
    global_step.assign_add(1)
"""


@pytest.mark.parametrize("to", ["compat", "v2"])
def test_a_variable_default_step_is_listed_on_every_run(tmp_path: Path, to: str) -> None:
    # TF reads a variable default step at each op; summarylib reads it once: silently step 0.
    status, migrated, left = _migrate_cli(tmp_path, VARIABLE_STEP, to)
    assert status == 1
    assert [entry["code"] for entry in left] == [
        "tf.summary.experimental.set_step(global_step)",
        "writer.as_default(step=optimizer.iterations)",
    ]
    assert all("TensorFlow variable" in entry["reason"] for entry in left)
    again, _, left_again = _migrate_cli(tmp_path, migrated, to)
    assert again == 1
    assert [entry["code"] for entry in left_again] == [
        "summarylib.set_step(global_step)",
        "writer.as_default(step=optimizer.iterations)",
    ]


NAME_SCOPES = """\
import sys
import tensorflow as tf
from tensorflow.summary import scalar
writer = tf.summary.create_file_writer(sys.argv[1])
with writer.as_default():
    with tf.name_scope("loss"), tf.name_scope("inner"):
        tf.summary.scalar("foo", 1.0, step=0)
        scalar(name="bar", data=2.0, step=0)
    tf.summary.scalar("top", 3.0, step=0)
"""


def test_tags_under_name_scopes_are_written_as_tf2_wrote_them(tmp_path: Path) -> None:
    # TF 2 writes loss/inner/foo (custom-scalar layouts name such tags); summarylib has no
    # name scopes, so the migrated op carries the scope in its tag.
    status, migrated, left = _migrate_cli(tmp_path, NAME_SCOPES)
    assert (status, left) == (0, [])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(FAKE_TF), os.environ.get("PYTHONPATH", "")]))
    subprocess.run([sys.executable, "-c", migrated, str(tmp_path / "logs")], check=True, env=env, timeout=120)
    [(_run, tags)] = read_scalars(str(tmp_path / "logs")).items()
    assert sorted(tags) == ["loss/inner/bar", "loss/inner/foo", "top"]
    assert migrate_source(migrated).source == migrated


def test_a_tag_under_a_scope_that_is_not_a_literal_is_listed_on_every_run() -> None:
    source = (
        "import tensorflow as tf\n"
        "writer = tf.summary.create_file_writer('logs')\n"
        "with writer.as_default(), tf.name_scope(phase):\n"
        "    tf.summary.scalar('loss', 1.0, step=0)\n"
    )
    first = migrate_source(source)
    second = migrate_source(first.source)
    assert [left.code for left in first.report.left] == ["tf.summary.scalar('loss', 1.0, step=0)"]
    assert [left.code for left in second.report.left] == ["summarylib.scalar('loss', 1.0, step=0)"]
    assert "write the full tag" in second.report.left[0].reason


def test_a_writer_handed_to_another_library_stays_tensorflows() -> None:
    # TF-Agents' trainers hand their writer to metric_utils.eager_compute, which writes to it
    # with tf.summary: a summarylib writer would get nothing from it.
    source = (
        "import tensorflow as tf\n"
        "from tf_agents.eval import metric_utils\n"
        "writer = tf.summary.create_file_writer('logs')\n"
        "metric_utils.eager_compute(metrics, env, policy, summary_writer=writer)\n"
        "with writer.as_default():\n"
        "    tf.summary.scalar('loss', 1.0, step=0)\n"
    )
    result = migrate_source(source)
    assert result.source == source
    assert [left.code for left in result.report.left] == [
        "tf.summary.create_file_writer('logs')",
        "tf.summary.scalar('loss', 1.0, step=0)",
    ]
    assert "hands the writer writer to metric_utils.eager_compute" in result.report.left[0].reason


def test_no_semicolon_is_left_behind_a_removed_import() -> None:
    source = (
        "import sys; import tensorflow as tf\n"
        "with tf.summary.create_file_writer(sys.argv[1]).as_default():\n"
        "    tf.summary.scalar('a', 1.0, step=0)\n"
    )
    assert "import sys\n" in migrate_source(source).source.splitlines(keepends=True)
