"""Lightning's `TensorBoardLogger` on summarylib, for the `pytorch_lightning` package:

    from summarylib.integrations.pytorch_lightning import TensorBoardLogger
    # was: from pytorch_lightning.loggers import TensorBoardLogger

The same logger as summarylib.integrations.lightning's, on pytorch_lightning's classes.
"""

from summarylib.integrations.lightning_logger import logger_class_for

TensorBoardLogger = logger_class_for("pytorch_lightning", "lightning_fabric", __name__)

__all__ = ["TensorBoardLogger"]
