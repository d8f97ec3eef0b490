"""torch.utils.tensorboard's SummaryWriter under an alias."""

import sys

import numpy as np
from torch.utils.tensorboard import SummaryWriter as SW

with SW(log_dir=sys.argv[1]) as writer:
    for step in range(3):
        writer.add_scalar("loss", 1.0 / (step + 1), step)
        writer.add_scalars("pair", {"a": float(step), "b": 2.0 * step}, step)
        writer.add_histogram("w", np.linspace(0, step + 1, 20), step)
        writer.add_text("msg", f"hello {step}", step)
