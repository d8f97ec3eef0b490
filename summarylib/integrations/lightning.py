"""Lightning's `TensorBoardLogger` on summarylib, for the `lightning` package:

    from summarylib.integrations.lightning import TensorBoardLogger
    # was: from lightning.pytorch.loggers import TensorBoardLogger
    trainer = lightning.Trainer(logger=TensorBoardLogger("logs"))

See summarylib.integrations.lightning_logger for what it writes and where it differs.
"""

from summarylib.integrations.lightning_logger import logger_class_for

TensorBoardLogger = logger_class_for("lightning.pytorch", "lightning.fabric", __name__)

__all__ = ["TensorBoardLogger"]
