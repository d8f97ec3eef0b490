"""Writer classes of other libraries onto summarylib's drop-in replacements: torch's and
tensorboardX's SummaryWriter, Keras's TensorBoard callback, Lightning's TensorBoardLogger.
Arguments stay as they are."""

from __future__ import annotations

from summarylib.migrate.decisions import Decision, Move

TORCH = "summarylib.compat.torch.SummaryWriter"
TENSORBOARDX = "summarylib.compat.tensorboardX.SummaryWriter"
TENSORBOARDX_GLOBAL = "summarylib.compat.tensorboardX.GlobalSummaryWriter"
# The drop-in writer classes whose calls the file makes are checked (surface.check).
DROP_IN_WRITERS = {TORCH, TENSORBOARDX, TENSORBOARDX_GLOBAL}
KERAS = "summarylib.integrations.keras.TensorBoard"
LIGHTNING = "summarylib.integrations.lightning.TensorBoardLogger"
PYTORCH_LIGHTNING = "summarylib.integrations.pytorch_lightning.TensorBoardLogger"

TARGETS = {
    "torch.utils.tensorboard.SummaryWriter": TORCH,
    "torch.utils.tensorboard.writer.SummaryWriter": TORCH,
    "tensorboardX.SummaryWriter": TENSORBOARDX,
    "tensorboardX.writer.SummaryWriter": TENSORBOARDX,
    "tensorboardX.GlobalSummaryWriter": TENSORBOARDX_GLOBAL,
    "tensorboardX.global_writer.GlobalSummaryWriter": TENSORBOARDX_GLOBAL,
    "keras.callbacks.TensorBoard": KERAS,
    "keras.src.callbacks.TensorBoard": KERAS,
    "tensorflow.keras.callbacks.TensorBoard": KERAS,
    "tensorflow.compat.v2.keras.callbacks.TensorBoard": KERAS,
    "tf_keras.callbacks.TensorBoard": KERAS,
    "lightning.pytorch.loggers.TensorBoardLogger": LIGHTNING,
    "lightning.pytorch.loggers.tensorboard.TensorBoardLogger": LIGHTNING,
    "pytorch_lightning.loggers.TensorBoardLogger": PYTORCH_LIGHTNING,
    "pytorch_lightning.loggers.tensorboard.TensorBoardLogger": PYTORCH_LIGHTNING,
}

TORCH_IN_V2 = "--to v2 keeps torch-style writers on summarylib.compat (their add_* methods are the API)"


def decide(qualified: str, to: str) -> Decision | None:
    """The decision for a writer class, or None when `qualified` is not one."""
    target = TARGETS.get(qualified)
    if target is None:
        return None
    return Move(target, note=TORCH_IN_V2 if target in DROP_IN_WRITERS and to == "v2" else "")
