"""tensorboardX's `SummaryWriter` on summarylib: the same class as
`summarylib.compat.torch.SummaryWriter` (tensorboardX's writer has torch's API; its
extras `export_scalars_to_json` and `add_onnx_graph` raise NotImplementedError).

    from summarylib.compat.tensorboardX import SummaryWriter   # was: from tensorboardX import ...
"""

from summarylib.compat.torch import SummaryWriter

__all__ = ["SummaryWriter"]
