"""Train a small LightningModule with summarylib's TensorBoardLogger.

    python examples/lightning_fit.py --logdir logs/lightning_fit
    tensorboard --logdir logs/lightning_fit

The one-line change from Lightning's own logger:

    from lightning.pytorch.loggers import TensorBoardLogger        # before
    from summarylib.integrations.lightning import TensorBoardLogger   # after

The module logs what LightningModules log: metrics through `self.log`, hyperparameters
through `save_hyperparameters`, an image through `self.logger.experiment` (torch's
`SummaryWriter` API), and its graph (`log_graph=True` with `example_input_array`).
"""

from __future__ import annotations

import argparse

import lightning
import torch

from summarylib.integrations.lightning import TensorBoardLogger

# A quiet Trainer on the CPU that logs every step.
TRAINER_OPTIONS = {
    "accelerator": "cpu",
    "log_every_n_steps": 1,
    "enable_checkpointing": False,
    "enable_progress_bar": False,
    "enable_model_summary": False,
}


class TinyRegressor(lightning.LightningModule):
    """A model small enough to train in a second: a sum of four inputs, learned."""

    def __init__(self, learning_rate: float = 0.05, hidden: int = 8) -> None:
        super().__init__()
        self.save_hyperparameters()
        layers = [torch.nn.Linear(4, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1)]
        self.net = torch.nn.Sequential(*layers)
        self.example_input_array = torch.zeros(2, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)

    def training_step(self, batch, batch_index):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self(x), y)
        self.log("train_loss", loss)
        if batch_index == 0:
            pixels = torch.linspace(0, 1, 3 * 8 * 8).reshape(3, 8, 8)
            self.logger.experiment.add_image("inputs", pixels, self.global_step)
        return loss

    def validation_step(self, batch, batch_index):
        x, y = batch
        self.log("val_loss", torch.nn.functional.mse_loss(self(x), y))

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=self.hparams.learning_rate)


def batches() -> torch.utils.data.DataLoader:
    """32 fixed examples in batches of 8."""
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(32, 4, generator=generator)
    y = x.sum(dim=1, keepdim=True)
    return torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8)


def fit(logger, epochs: int = 2) -> None:
    """Train TinyRegressor with `logger` (any Lightning logger)."""
    torch.manual_seed(0)
    trainer = lightning.Trainer(max_epochs=epochs, logger=logger, **TRAINER_OPTIONS)
    trainer.fit(TinyRegressor(), batches(), batches())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logdir", default="logs/lightning_fit")
    args = parser.parse_args()
    logger = TensorBoardLogger(args.logdir, log_graph=True)
    fit(logger)
    print(f"wrote {logger.log_dir}")


if __name__ == "__main__":
    main()
