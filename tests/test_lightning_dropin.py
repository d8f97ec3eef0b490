"""summarylib's Lightning TensorBoardLogger behaves as Lightning expects of its own (issue 20):
`trainer.log_dir` is the run, checkpoints and `hparams.yaml` land in it, `log_graph`
warns where Lightning's warns, and none of it needs tensorboard installed."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("lightning", reason="lightning is not installed (the frameworks extra)")
pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")

import lightning
import torch
from lightning.pytorch.callbacks import ModelCheckpoint
from lightning.pytorch.profilers import SimpleProfiler

from examples.lightning_fit import TRAINER_OPTIONS, TinyRegressor, batches
from summarylib.integrations.lightning import TensorBoardLogger
from summarylib.reader import iter_events

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def files_named(root: str, name: str) -> list[str]:
    """Every file called `name` under `root`."""
    return [os.path.join(d, name) for d, _, files in os.walk(root) if name in files]


def test_trainer_log_dir_is_the_run_and_holds_checkpoints_profiles_and_hparams_yaml(tmp_path):
    logger = TensorBoardLogger(str(tmp_path))
    options = dict(TRAINER_OPTIONS, enable_checkpointing=True)
    trainer = lightning.Trainer(
        max_epochs=1,
        logger=logger,
        callbacks=[ModelCheckpoint()],
        profiler=SimpleProfiler(filename="profile"),  # writes into trainer.log_dir
        **options,
    )
    assert trainer.log_dir == logger.log_dir  # was the save dir
    torch.manual_seed(0)
    trainer.fit(TinyRegressor(), batches(), batches())
    assert trainer.log_dir == logger.log_dir == str(tmp_path / "lightning_logs" / "version_0")
    checkpoints = [
        os.path.join(d, f) for d, _, names in os.walk(tmp_path) for f in names if f.endswith(".ckpt")
    ]
    assert checkpoints and all(
        c.startswith(os.path.join(trainer.log_dir, "checkpoints")) for c in checkpoints
    )
    assert files_named(str(tmp_path), "hparams.yaml") == [os.path.join(trainer.log_dir, "hparams.yaml")]
    assert files_named(str(tmp_path), "fit-profile.txt") == [os.path.join(trainer.log_dir, "fit-profile.txt")]


def test_the_same_on_pytorch_lightning(tmp_path):
    import pytorch_lightning

    from summarylib.integrations.pytorch_lightning import TensorBoardLogger as PLTensorBoardLogger

    class PLRegressor(pytorch_lightning.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.net = torch.nn.Linear(4, 1)

        def training_step(self, batch, batch_index):
            x, y = batch
            return torch.nn.functional.mse_loss(self.net(x), y)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.01)

    logger = PLTensorBoardLogger(str(tmp_path))
    trainer = pytorch_lightning.Trainer(max_epochs=1, logger=logger, **TRAINER_OPTIONS)
    assert isinstance(logger, pytorch_lightning.loggers.TensorBoardLogger)
    assert trainer.log_dir == logger.log_dir  # was the save dir
    trainer.fit(PLRegressor(), batches())
    assert trainer.log_dir == logger.log_dir == str(tmp_path / "lightning_logs" / "version_0")


def test_log_graph_without_an_input_warns_as_lightning_does(tmp_path):
    logger = TensorBoardLogger(str(tmp_path), log_graph=True)
    model = TinyRegressor()
    model.example_input_array = None
    with pytest.warns(
        UserWarning, match="Could not log computational graph to TensorBoard: The `model.example_input_array`"
    ):
        logger.log_graph(model)


def test_log_graph_of_an_input_it_cannot_trace_warns_as_lightning_does(tmp_path):
    logger = TensorBoardLogger(str(tmp_path), log_graph=True)
    model = TinyRegressor()
    model.example_input_array = {"features": torch.zeros(2, 4)}  # forward takes x, not a dict
    with pytest.warns(UserWarning, match="can't be traced by TensorBoard"):
        logger.log_graph(model)  # a TypeError from the forward pass, before
    logger.finalize("success")


# Refuses tensorboard and tensorboardX, as if neither were installed, then fits with a graph.
WITHOUT_TENSORBOARD = """
import importlib.metadata, sys

class NotInstalled(importlib.metadata.DistributionFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("tensorboard", "tensorboardX"):
            raise ModuleNotFoundError(f"No module named {name!r}")
        return None

    def find_distributions(self, context=importlib.metadata.DistributionFinder.Context()):
        if (context.name or "").lower() in ("tensorboard", "tensorboardx"):
            raise importlib.metadata.PackageNotFoundError(context.name)
        return iter(())

sys.meta_path.insert(0, NotInstalled())
import lightning, torch
from examples.lightning_fit import TRAINER_OPTIONS, TinyRegressor, batches
from summarylib.integrations.lightning import TensorBoardLogger

logger = TensorBoardLogger(sys.argv[1], log_graph=True)
trainer = lightning.Trainer(max_epochs=1, logger=logger, **TRAINER_OPTIONS)
trainer.fit(TinyRegressor(), batches())
assert trainer.log_dir == logger.log_dir, (trainer.log_dir, logger.log_dir)
loaded = sorted(name for name in sys.modules if name.split(".")[0] in ("tensorboard", "tensorboardX"))
assert not loaded, loaded
print("fitted", logger.log_dir)
"""


@pytest.mark.slow
def test_the_logger_fits_and_logs_its_graph_without_tensorboard_installed(tmp_path):
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(WITHOUT_TENSORBOARD), str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=ROOT, KERAS_BACKEND="torch"),
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "fitted" in result.stdout
    run = tmp_path / "lightning_logs" / "version_0"
    events = [e for name in os.listdir(run) if "tfevents" in name for e in iter_events(str(run / name))]
    assert any(e.graph_def for e in events)
    assert any(v.tag == "train_loss" for e in events for v in e.summary.value)


def test_the_logger_pickles_as_spawning_strategies_pickle_it(tmp_path):
    logger = TensorBoardLogger(str(tmp_path), name="pickled", version=3)
    logger.log_metrics({"loss": 1.0}, step=0)  # an experiment, which is not pickled
    copy = pickle.loads(pickle.dumps(logger))  # AttributeError: local object, before
    assert type(copy) is TensorBoardLogger and copy.log_dir == logger.log_dir
    logger.finalize("success")
