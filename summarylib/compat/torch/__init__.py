"""torch.utils.tensorboard's `SummaryWriter` (and `FileWriter`) on summarylib: change one import.

    from summarylib.compat.torch import SummaryWriter   # was: from torch.utils.tensorboard import ...

Importing this package does not import torch (only `add_graph` does, when called).

`writer.py` makes the class of its method groups, one module each (core: the run, flush
and close; scalars, media, histograms, dashboards, hparams). Part of compat, a surface: it
may import the ops, the writer, format, checks, the protos and compat's legacy encodings,
and integrations.torch's tracer, which `add_graph` imports when it is called.
"""

from summarylib.compat.torch.file_writer import FileWriter
from summarylib.compat.torch.writer import SummaryWriter

__all__ = ["FileWriter", "SummaryWriter"]
