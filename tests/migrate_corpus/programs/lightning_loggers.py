"""Lightning's TensorBoardLogger, from both packages."""

import sys

import pytorch_lightning.loggers as pl_loggers
from lightning.pytorch.loggers import TensorBoardLogger

logger = TensorBoardLogger(sys.argv[1], name="new", version=0)
old = pl_loggers.TensorBoardLogger(save_dir=sys.argv[1], name="old", version=0)
for step in range(3):
    logger.log_metrics({"loss": 1.0 - 0.1 * step}, step=step)
    old.log_metrics({"loss": 2.0 - 0.1 * step}, step=step)
logger.finalize("success")
old.finalize("success")
