"""tensorboardX's SummaryWriter through the module."""

import sys

import tensorboardX

writer = tensorboardX.SummaryWriter(sys.argv[1])
for step in range(3):
    writer.add_scalar("acc", 0.25 * step, global_step=step)
writer.close()
