"""A small DDP training loop that logs every step, run by tests/test_distributed.py under
`torchrun --nproc_per_node=2` (gloo, CPU).

    ddp_training.py LOGDIR MODE OUTDIR   (MODE: default | all; OUTDIR/rank{k}.json: rank k's values)
"""

import json
import sys

import torch
import torch.distributed as dist

import summarylib as sl

logdir, mode, out = sys.argv[1], sys.argv[2], sys.argv[3]
dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(rank)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
writer = sl.create_file_writer(logdir, ranks="all" if mode == "all" else None)
local_losses, reduced = [], []
with writer.as_default():
    for step in range(5):
        x = torch.randn(8, 4)
        loss = ((model(x) - x.sum(dim=1, keepdim=True)) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        local_losses.append(loss.item())
        reduced.append(sl.distributed.mean(loss.detach()))
        sl.scalar("loss/mean_over_ranks", reduced[-1], step=step)
        sl.scalar("loss/this_rank", loss.item(), step=step)
writer.close()
with open(f"{out}/rank{rank}.json", "w") as file:
    json.dump({"rank": rank, "local": local_losses, "reduced": reduced, "noop": writer.path is None}, file)
dist.barrier()  # tear gloo down together: a rank leaving early can abort the other
dist.destroy_process_group()
