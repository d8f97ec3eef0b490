"""tensorboardX's `SummaryWriter` and `GlobalSummaryWriter` on summarylib: torch's writer
with tensorboardX 2.6's signatures and behaviour where they differ (see
`summarylib.compat.tensorboardx_writer` and `summarylib.compat.tensorboardx_global`).

    from summarylib.compat.tensorboardX import SummaryWriter   # was: from tensorboardX import ...
"""

from summarylib.compat.tensorboardx_global import GlobalSummaryWriter
from summarylib.compat.tensorboardx_writer import SummaryWriter

__all__ = ["GlobalSummaryWriter", "SummaryWriter"]
