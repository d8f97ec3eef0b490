"""torch's writer through the submodule import, with calls summarylib's drop-in lacks."""

import sys

import torch
import torch.utils.tensorboard

writer = torch.utils.tensorboard.SummaryWriter(sys.argv[1])
writer.add_scalar("loss", torch.tensor(0.5), 0, new_style=True)
writer.add_onnx_graph("model.onnx")
writer.add_scalar("acc", 0.9, 0, precision=3)
writer.close()
