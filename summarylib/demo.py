"""Write a small run with every op summarylib has, then say how to look at it.

python -m summarylib.demo --logdir runs/demo
"""

from __future__ import annotations

import argparse
import math
import os

import summarylib as sl
from summarylib.reader import iter_events


def write_demo_run(logdir: str, steps: int = 100) -> str:
    """Log a made-up training run into `logdir`; returns the event file's path."""
    with sl.create_file_writer(logdir) as writer, writer.as_default():
        for step in range(steps):
            sl.set_step(step)
            loss = 2.0 * math.exp(-step / 30) + 0.05 * math.sin(step)
            sl.scalar("train/loss", loss, description="Cross-entropy on the training batch.")
            sl.scalar("train/learning_rate", 1e-3 * 0.97**step)
        return writer.path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logdir", default=os.path.join("runs", "demo"), help="where to write the run")
    parser.add_argument("--steps", type=int, default=100, help="training steps to simulate")
    args = parser.parse_args(argv)
    path = write_demo_run(args.logdir, args.steps)
    tags: dict[str, int] = {}
    for event in iter_events(path):
        for value in event.summary.value:
            tags[value.tag] = tags.get(value.tag, 0) + 1
    print(f"wrote {path}")
    for tag, count in sorted(tags.items()):
        print(f"  {tag}: {count} events")
    print("\nto look at it:")
    print(
        f"  tensorboard --logdir {args.logdir}     (pip install tensorboard; then open http://localhost:6006)"
    )


if __name__ == "__main__":
    main()
