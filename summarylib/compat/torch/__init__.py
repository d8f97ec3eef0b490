"""torch.utils.tensorboard's `SummaryWriter` (and `FileWriter`) on summarylib: change one import.

    from summarylib.compat.torch import SummaryWriter   # was: from torch.utils.tensorboard import ...

Importing this package does not import torch (only `add_graph` does, when called).
"""

from summarylib.compat.torch.file_writer import FileWriter
from summarylib.compat.torch.writer import SummaryWriter

__all__ = ["FileWriter", "SummaryWriter"]
