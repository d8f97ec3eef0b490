"""summarylib's Lightning TensorBoardLogger against Lightning's own, on a real Trainer.fit."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("lightning", reason="lightning is not installed (the frameworks extra)")
pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")

import torch
import yaml
from lightning.pytorch.loggers import TensorBoardLogger as LightningTensorBoardLogger
from lightning.pytorch.utilities import rank_zero_only
from tensorboard import context

from examples.lightning_fit import TRAINER_OPTIONS, batches, fit
from summarylib.integrations.lightning import TensorBoardLogger
from summarylib.proto import hparams_pb2
from summarylib.reader import iter_events
from tests.full_disk import nearly_full_tmpfs
from tests.tensorboard_data import provider_for
from tests.tensorboard_server import post_json, running_tensorboard, wait_for

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def listing(logdir: str) -> dict:
    """{plugin: {run: {tag: [steps]}}} of a logdir, as TensorBoard's data provider sees it."""
    provider = provider_for(logdir)
    ctx = context.RequestContext()
    found: dict = {}
    for plugin in ("scalars", "hparams"):
        runs = provider.list_scalars(ctx, experiment_id="", plugin_name=plugin)
        runs |= provider.list_tensors(ctx, experiment_id="", plugin_name=plugin)
        found[plugin] = {run: sorted(tags) for run, tags in runs.items()}
    images = provider.list_blob_sequences(ctx, experiment_id="", plugin_name="images")
    found["images"] = {run: sorted(tags) for run, tags in images.items()}
    scalars = provider.read_scalars(ctx, experiment_id="", plugin_name="scalars", downsample=10**6)
    found["steps"] = {
        run: {tag: [(d.step, round(d.value, 5)) for d in data] for tag, data in tags.items()}
        for run, tags in scalars.items()
    }
    found["graphs"] = sorted(provider._multiplexer.Runs())
    return found


@pytest.fixture(scope="module")
def both_fits(tmp_path_factory):
    root = tmp_path_factory.mktemp("lightning")
    ours, theirs = str(root / "ours"), str(root / "theirs")
    fit(TensorBoardLogger(ours, log_graph=True))
    fit(LightningTensorBoardLogger(theirs, log_graph=True))
    return ours, theirs


def test_same_versions_tags_steps_values_and_hparams_yaml(both_fits):
    ours, theirs = both_fits
    for root in (ours, theirs):
        assert os.listdir(os.path.join(root, "lightning_logs")) == ["version_0"]
    run = os.path.join("lightning_logs", "version_0")
    ours_listing, theirs_listing = listing(ours), listing(theirs)
    assert ours_listing["steps"] == theirs_listing["steps"]
    assert set(ours_listing["steps"][run]) == {"train_loss", "val_loss", "epoch", "hp_metric"}
    assert ours_listing["images"] == theirs_listing["images"] == {run: ["inputs"]}
    assert ours_listing["hparams"] == theirs_listing["hparams"]
    with (
        open(os.path.join(ours, run, "hparams.yaml")) as a,
        open(os.path.join(theirs, run, "hparams.yaml")) as b,
    ):
        assert yaml.safe_load(a) == yaml.safe_load(b) == {"learning_rate": 0.05, "hidden": 8}


def test_graph_of_the_module_is_written(both_fits):
    ours, _ = both_fits
    run = os.path.join("lightning_logs", "version_0")
    multiplexer = provider_for(ours)._multiplexer
    names = [node.name for node in multiplexer.Graph(run).node]
    assert any(name.startswith("TinyRegressor/net/") for name in names), names


@pytest.mark.slow
def test_the_hparams_dashboard_lists_the_version_with_lightnings_metric(both_fits):
    """As with Lightning's own logger, the dashboard's metric is the one `log_hyperparams`
    was given (`hp_metric`, the placeholder -1 by default), not every scalar of the run."""
    ours, _ = both_fits
    request = {
        "experimentName": "",
        "allowedStatuses": ["STATUS_SUCCESS", "STATUS_RUNNING", "STATUS_FAILURE", "STATUS_UNKNOWN"],
        "colParams": [],
        "startIndex": 0,
        "sliceSize": 10,
    }
    with running_tensorboard(ours) as base:
        groups = wait_for(
            lambda: post_json(base, "data/plugin/hparams/session_groups", request),
            lambda found: found.get("totalSize") == 1,
        )
        experiment = post_json(base, "data/plugin/hparams/experiment", {"experimentName": ""})
    (group,) = groups["sessionGroups"]
    assert group["hparams"] == {"learning_rate": 0.05, "hidden": 8.0}
    (session,) = group["sessions"]
    assert session["status"] == "STATUS_SUCCESS"
    assert [m["name"]["tag"] for m in experiment["metricInfos"]] == ["hp_metric"]
    assert [(m["name"]["tag"], m["value"]) for m in session["metricValues"]] == [("hp_metric", -1)]


def test_a_second_fit_gets_the_next_version(tmp_path):
    fit(TensorBoardLogger(str(tmp_path)))
    logger = TensorBoardLogger(str(tmp_path))
    assert logger.version == 1 and logger.log_dir == os.path.join(
        str(tmp_path), "lightning_logs", "version_1"
    )


def test_other_ranks_write_nothing_and_create_no_directories(tmp_path, monkeypatch):
    monkeypatch.setattr(rank_zero_only, "rank", 1)
    logger = TensorBoardLogger(str(tmp_path / "logs"))
    logger.log_metrics({"loss": 1.0}, step=0)
    logger.log_hyperparams({"lr": 0.1})
    logger.experiment.add_image("anything", np.zeros((3, 2, 2)))
    logger.finalize("success")
    assert not os.path.exists(tmp_path / "logs")


def test_the_same_logger_on_pytorch_lightning(tmp_path):
    import pytorch_lightning

    from summarylib.integrations.pytorch_lightning import TensorBoardLogger as PLTensorBoardLogger

    class PLRegressor(pytorch_lightning.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.save_hyperparameters({"width": 3})
            self.net = torch.nn.Linear(4, 1)

        def training_step(self, batch, batch_index):
            x, y = batch
            loss = torch.nn.functional.mse_loss(self.net(x), y)
            self.log("loss", loss)
            return loss

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.01)

    logger = PLTensorBoardLogger(str(tmp_path))
    assert isinstance(logger, pytorch_lightning.loggers.Logger)
    trainer = pytorch_lightning.Trainer(max_epochs=1, logger=logger, **TRAINER_OPTIONS)
    trainer.fit(PLRegressor(), batches())
    run = os.path.join("lightning_logs", "version_0")
    assert [step for step, _ in listing(str(tmp_path))["steps"][run]["loss"]] == [0, 1, 2, 3]


@pytest.mark.slow
def test_the_example_script_trains_and_logs(tmp_path):
    logdir = str(tmp_path / "logs")
    result = subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "lightning_fit.py"), "--logdir", logdir],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=ROOT),
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    run = os.path.join("lightning_logs", "version_0")
    assert f"wrote {os.path.join(logdir, run)}" in result.stdout
    assert set(listing(logdir)["steps"][run]) == {"train_loss", "val_loss", "epoch", "hp_metric"}


def test_vector_and_list_hyperparameters_are_written_as_lightning_writes_them(tmp_path):
    """Lightning writes a list as its text and a vector as its first element (torch's
    `hparams()`); a 0-d tensor, where Lightning raises IndexError, is its number."""
    params = {"class_weights": torch.tensor([1.0, 2.0]), "layers": [3, 4]}
    shown = {}
    for name, logger_class in (("ours", TensorBoardLogger), ("theirs", LightningTensorBoardLogger)):
        logger = logger_class(str(tmp_path / name))
        logger.log_hyperparams({**params, "lr": torch.tensor(0.5)} if name == "ours" else params)
        logger.finalize("success")
        (path,) = [
            os.path.join(logger.log_dir, file) for file in os.listdir(logger.log_dir) if "tfevents" in file
        ]
        (start,) = [
            value
            for event in iter_events(path)
            for value in event.summary.value
            if value.tag == "_hparams_/session_start_info"
        ]
        shown[name] = hparams_pb2.HParamsPluginData.FromString(start.metadata.plugin_data.content)
    ours = shown["ours"].session_start_info.hparams
    assert {key: ours[key] for key in params} == dict(shown["theirs"].session_start_info.hparams)
    assert ours["layers"].string_value == "[3, 4]" and ours["class_weights"].number_value == 1.0
    assert ours["lr"].number_value == 0.5


def test_trainer_fit_returns_when_the_disk_fills_up_during_training(tmp_path, caplog):
    with nearly_full_tmpfs(str(tmp_path / "mnt"), free=4096) as mount:
        logger = TensorBoardLogger(mount, log_graph=True)
        fit(logger, epochs=4)  # raised WriterError from finalize, and OSError from hparams.yaml, before
        after_fit = True
    assert after_fit
    warned = [r.getMessage() for r in caplog.records if r.name == "summarylib" and r.levelname == "WARNING"]
    assert any(
        ("flushing the writer failed" in m or "closing the writer failed" in m) and "No space left" in m
        for m in warned
    ), warned
    assert any("writing hparams.yaml failed" in m for m in warned), warned
