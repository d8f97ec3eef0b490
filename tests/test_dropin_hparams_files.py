"""add_hparams through torch's, tensorboardX's and Lightning's own writers and through
summarylib's drop-ins: the same runs holding the same protos, value for value, and the
same rows in a real TensorBoard's HParams dashboard for a sweep whose seeds share their
hyperparameters (one row per run, never a row averaging runs)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")
pytest.importorskip("tensorboardX", reason="tensorboardX is not installed (the frameworks extra)")

import tensorboardX
import torch
from torch.utils.tensorboard import SummaryWriter as TorchWriter

from summarylib.compat import tensorboardX as compat_tensorboardx
from summarylib.compat.torch import SummaryWriter
from tests.dropin_files import run_values
from tests.tensorboard_server import post_json, running_tensorboard, wait_for

HPARAMS = {
    "lr": 0.1,
    "optimizer": "adam",
    "layers": 3,
    "amp": True,
    "scale": torch.tensor([0.25, 4.0]),
    "momentum": np.float64(0.9),
    "skipped": None,
}
METRICS = {"hparam/accuracy": 0.75, "hparam/loss": 0.5}


def torch_program(writer_class, logdir: str) -> None:
    """torch's calls: the curves, a session in a run named by the time, one named, one
    beside the curves (`run_name="."`), and a second timed one."""
    with writer_class(logdir) as writer:
        writer.add_scalar("loss", 1.0, 1)
        writer.add_hparams(
            HPARAMS, METRICS, hparam_domain_discrete={"optimizer": ["adam", "sgd"]}, global_step=3
        )
        writer.add_hparams({"lr": 0.2, "width": 64}, {"hparam/accuracy": 0.5}, {"width": [32, 64]}, "trial2")
        writer.add_hparams({"lr": 0.3}, {"hparam/accuracy": 0.25}, run_name=".", global_step=7)
        writer.add_hparams({"lr": 0.4}, {"hparam/accuracy": 0.125})


def tensorboardx_program(writer_class, logdir: str) -> None:
    """tensorboardX's calls: its `name`, its typing (bools as booleans, callables by name,
    other values listed untyped) and its steps (the records at 0, the metrics at the step)."""
    with writer_class(logdir) as writer:
        writer.add_scalar("loss", 1.0, 1)
        values = {
            "lr": 0.1,
            "optimizer": "adam",
            "amp": False,
            "act": torch.relu,
            "shape": [3, 4],
            "none": None,
        }
        writer.add_hparams(values, METRICS, global_step=3)
        writer.add_hparams({"lr": 0.2}, {"hparam/accuracy": 0.5}, name="trial2", global_step=5)


@pytest.mark.parametrize(
    ("program", "theirs", "ours"),
    [
        (torch_program, TorchWriter, SummaryWriter),
        (tensorboardx_program, tensorboardX.SummaryWriter, compat_tensorboardx.SummaryWriter),
    ],
    ids=["torch", "tensorboardX"],
)
def test_add_hparams_writes_the_runs_and_records_of_the_writer_it_replaces(tmp_path, program, theirs, ours):
    program(theirs, str(tmp_path / "theirs"))
    program(ours, str(tmp_path / "ours"))
    expected, got = run_values(str(tmp_path / "theirs")), run_values(str(tmp_path / "ours"))
    assert sorted(got) == sorted(expected)
    for run, values in expected.items():
        assert sorted(got[run]) == sorted(values), run


def test_lightning_log_hyperparams_writes_lightnings_records(tmp_path):
    """Lightning's logger writes torch's experiment (its metrics only `hp_metric`, so the
    dashboard offers that metric, not every scalar), session start and end at the step."""
    lightning_loggers = pytest.importorskip("lightning.pytorch.loggers", reason="lightning is not installed")
    from summarylib.integrations.lightning import TensorBoardLogger

    params = {
        "lr": 0.01,
        "net": {"width": 32, "act": "relu"},
        "flag": True,
        "weights": torch.tensor([1.0, 2.0]),
    }
    for name, logger_class in (("theirs", lightning_loggers.TensorBoardLogger), ("ours", TensorBoardLogger)):
        logger = logger_class(str(tmp_path), name=name, version=0)
        logger.log_metrics({"train/loss": 0.5}, step=1)
        logger.log_hyperparams(params)
        logger.log_hyperparams({"lr": 0.02}, metrics={"val/acc": 0.9}, step=4)
        logger.finalize("success")
    expected, got = run_values(str(tmp_path / "theirs")), run_values(str(tmp_path / "ours"))
    assert list(got) == list(expected) == ["version_0"]
    assert sorted(got["version_0"]) == sorted(expected["version_0"])


def test_lightning_finalize_flushes_the_experiment_before_closing_it(tmp_path):
    """A writer subclass that saves its buffer on flush (as Lightning's finalize calls it)
    hears of the flush before the close."""
    from summarylib.integrations.lightning import TensorBoardLogger

    calls = []

    class Recording(SummaryWriter):
        def flush(self):
            calls.append("flush")
            super().flush()

        def close(self):
            calls.append("close")
            super().close()

    logger = TensorBoardLogger(str(tmp_path), name="run", version=0)
    logger._experiment = Recording(logger.log_dir)
    logger.finalize("success")
    assert calls[:2] == ["flush", "close"]


def _sweep(logdir: str) -> None:
    """2 learning rates x 2 seeds, each run its own writer; the seed is not a hyperparameter
    (as in most sweeps), so two runs share each configuration."""
    for writers, parent in ((TorchWriter, "theirs"), (SummaryWriter, "ours")):
        for lr in (0.1, 0.01):
            for seed in (0, 1):
                with writers(f"{logdir}/{parent}/lr{lr}_seed{seed}") as writer:
                    writer.add_hparams({"lr": lr}, {"hparam/accuracy": lr * 10 + seed})


@pytest.mark.slow  # a real TensorBoard server
def test_a_sweep_with_repeated_hyperparameters_shows_one_row_a_run(tmp_path):
    _sweep(str(tmp_path))
    request = {
        "experimentName": "",
        "allowedStatuses": ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"],
        "colParams": [{"hparam": "lr", "order": "ORDER_ASC"}],
        "startIndex": 0,
        "sliceSize": 100,
    }
    with running_tensorboard(str(tmp_path)) as base:
        answer = wait_for(
            lambda: post_json(base, "data/plugin/hparams/session_groups", request),
            lambda r: sum(len(g["sessions"]) for g in r.get("sessionGroups", [])) == 8,
        )
    rows = {"theirs": [], "ours": []}
    for group in answer["sessionGroups"]:
        (session,) = group["sessions"]  # one run a row: no group averages two runs
        metric = session["metricValues"][0]["value"]
        rows[session["name"].split("/")[0]].append((group["hparams"]["lr"], metric))
    assert sorted(rows["ours"]) == sorted(rows["theirs"])
    assert len(rows["ours"]) == 4


def _reinforcement_learning_logger(writer_class, logdir: str) -> None:
    """A reinforcement-learning library's logger (stable-baselines3's TensorBoard output
    does this): torch's own `hparams()` protos handed to `writer.file_writer.add_summary`
    beside the training curves, then a writer per evaluation run."""
    from torch.utils.tensorboard.summary import hparams

    writer = writer_class(logdir)
    experiment, start, end = hparams({"gamma": 0.99, "policy": "MlpPolicy"}, {"rollout/ep_rew_mean": 0})
    for summary in (experiment, start, end):
        writer.file_writer.add_summary(summary)
    for step in range(3):
        writer.add_scalar("rollout/ep_rew_mean", 10.0 * step, step)
    writer.close()
    for seed in (0, 1):
        with writer_class(f"{logdir}/eval_{seed}") as evaluation:
            evaluation.add_hparams({"gamma": 0.99}, {"eval/mean_reward": 5.0 + seed}, run_name=".")


def test_a_logger_that_writes_torchs_hparams_protos_itself_leaves_the_same_runs(tmp_path):
    _reinforcement_learning_logger(TorchWriter, str(tmp_path / "theirs"))
    _reinforcement_learning_logger(SummaryWriter, str(tmp_path / "ours"))
    expected, got = run_values(str(tmp_path / "theirs")), run_values(str(tmp_path / "ours"))
    assert sorted(got) == sorted(expected) == [".", "eval_0", "eval_1"]
    for run, values in expected.items():
        assert sorted(got[run]) == sorted(values), run
