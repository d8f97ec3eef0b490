"""A real training process for the Live dashboard's browser tests and benchmark: an MLP
trained on the CPU under `watch(model, log="all", live=True)`, so the views written are
only those the dashboard asks for (the run's control file).

    live_watch.py RUN_DIR [--seconds S] [--hidden H] [--fps F]

Trains (784-H-10, batch 32, SGD; at most F steps a second) for S seconds, the loss as a
scalar every step, into RUN_DIR; prints `ready` once the first step is on disk.
"""

from __future__ import annotations

import argparse
import sys
import time

import torch

import summarylib as sl
from summarylib.integrations.torch import watch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--fps", type=float, default=30.0)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(784, args.hidden), torch.nn.ReLU(), torch.nn.Linear(args.hidden, 10)
    )
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    writer = sl.create_file_writer(args.run_dir, flush_millis=100)
    inputs, labels = torch.randn(32, 784), torch.randint(0, 10, (32,))
    with writer.as_default():
        handle = watch(model, log="all", log_freq=1, optimizer=optimizer, live=True)
        start = time.monotonic()
        step = 0
        while time.monotonic() - start < args.seconds:
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
