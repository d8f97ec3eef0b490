"""A real training process for the Live dashboard's browser tests and benchmark: an MLP
trained on the CPU under `watch(model, log="all", live=True)`, so the views written are
only those the dashboard asks for (the run's control file).

    live_watch.py RUN_DIR [--seconds S] [--layers 784,256,10] [--fps F]

Trains (an MLP of these layer sizes, ReLUs between, on made-up classes of smooth
patterns, batch 32, SGD; at most F steps a second) for S seconds, the loss as a scalar
every step, into RUN_DIR; prints `ready` once the first step is on disk.
`--layers 784,1000,210,20` is benchmarks/bench_watch.py's
999,430-parameter MLP, whose parameters make a 1000x1000 image.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time

import torch

import summarylib as sl
from summarylib.integrations.torch import watch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--layers", default="784,256,10")
    parser.add_argument("--fps", type=float, default=30.0)
    args = parser.parse_args()
    torch.manual_seed(0)
    sizes = [int(size) for size in args.layers.split(",")]
    layers: list[torch.nn.Module] = []
    for fan_in, fan_out in itertools.pairwise(sizes):
        layers += [torch.nn.Linear(fan_in, fan_out), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers[:-1])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    writer = sl.create_file_writer(args.run_dir, flush_millis=100)
    # made-up data a model can learn: each class a smooth pattern (runs of 16 equal
    # inputs), plus noise, a new batch every step
    patterns = torch.randn(sizes[-1], -(-sizes[0] // 16)).repeat_interleave(16, dim=1)[:, : sizes[0]]
    with writer.as_default():
        handle = watch(model, log="all", log_freq=1, optimizer=optimizer, live=True)
        start = time.monotonic()
        step = 0
        while time.monotonic() - start < args.seconds:
            labels = torch.randint(0, sizes[-1], (32,))
            inputs = patterns[labels] + 0.5 * torch.randn(32, sizes[0])
            loss = torch.nn.functional.cross_entropy(model(inputs), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            sl.scalar("loss", loss.item(), step=step)
            if step == 0:
                writer.flush()
                print("ready", flush=True)
            step += 1
            time.sleep(max(0.0, start + step / args.fps - time.monotonic()))
        handle.remove()
    writer.close()


if __name__ == "__main__":
    sys.exit(main())
