"""The README's first command: the demo writes a run that every TensorBoard dashboard shows."""

from __future__ import annotations

import os
import subprocess
import sys

from tensorboard import context

from tests.tensorboard_data import provider_for

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_demo_writes_every_dashboard(tmp_path):
    logdir = str(tmp_path / "demo")
    result = subprocess.run(
        [sys.executable, "-m", "summarylib.demo", "--logdir", logdir, "--steps", "20"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert f"tensorboard --logdir {logdir}" in result.stdout
    provider = provider_for(logdir)
    ctx = context.RequestContext()
    listed = {
        "scalars": provider.list_scalars(ctx, experiment_id="", plugin_name="scalars"),
        "histograms": provider.list_tensors(ctx, experiment_id="", plugin_name="histograms"),
        "pr_curves": provider.list_tensors(ctx, experiment_id="", plugin_name="pr_curves"),
        "text": provider.list_tensors(ctx, experiment_id="", plugin_name="text"),
        "images": provider.list_blob_sequences(ctx, experiment_id="", plugin_name="images"),
        "audio": provider.list_blob_sequences(ctx, experiment_id="", plugin_name="audio"),
    }
    tags = {plugin: sorted(runs["."]) for plugin, runs in listed.items()}
    assert tags == {
        "scalars": ["train/learning_rate", "train/loss"],
        "histograms": ["layer1/weights"],
        "pr_curves": ["eval/pr"],
        "text": ["about", "eval/table"],
        "images": ["samples"],
        "audio": ["tone"],
    }
    assert listed["scalars"]["."]["train/loss"].max_step == 19
