"""The README's first command: the demo writes a run that every TensorBoard dashboard shows."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from tensorboard import context

from summarylib.demo import write_demo_run
from tests.tensorboard_data import provider_for
from tests.tensorboard_server import get_json, post_json, running_tensorboard, wait_for

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.slow
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
        "images": ["samples", "watch/parameters"],
        "audio": ["tone"],
    }
    assert listed["scalars"]["."]["train/loss"].max_step == 19


@pytest.mark.slow
def test_the_demo_lights_up_every_dashboard_of_a_real_tensorboard(tmp_path):
    logdir = str(tmp_path / "demo")
    write_demo_run(logdir, steps=12)
    assert_every_dashboard_lights_up(logdir)


def assert_every_dashboard_lights_up(logdir: str) -> None:
    """A real TensorBoard on `logdir`, a demo run, enables every dashboard in DASHBOARDS and
    finds the hparams sessions the demo writes."""
    with running_tensorboard(logdir) as base:
        listing = wait_for(
            lambda: get_json(base, "data/plugins_listing"),
            lambda found: all(found.get(name, {}).get("enabled") for name in DASHBOARDS),
        )
        assert all(listing[name]["enabled"] for name in DASHBOARDS)
        sessions = post_json(
            base,
            "data/plugin/hparams/session_groups",
            {
                "experimentName": "",
                "allowedStatuses": ["STATUS_SUCCESS"],
                "colParams": [],
                "startIndex": 0,
                "sliceSize": 10,
            },
        )
        assert sessions["totalSize"] == 3  # the main run and two of the sweep


# Every dashboard TensorBoard has without TensorFlow, and that the demo writes for.
DASHBOARDS = [
    "scalars",
    "custom_scalars",
    "images",
    "audio",
    "graphs",
    "distributions",
    "histograms",
    "text",
    "pr_curves",
    "hparams",
    "projector",
    "mesh",
]
