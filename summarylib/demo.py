"""Write a small run with every op summarylib has, then say how to look at it.

python -m summarylib.demo --logdir runs/demo
"""

from __future__ import annotations

import argparse
import math
import os

import numpy as np

import summarylib as sl
from summarylib.reader import iter_events


def _samples(step: int, rng: np.random.Generator) -> np.ndarray:
    """Four 64x64 RGB pictures that sharpen as training goes on."""
    y, x = np.mgrid[0:64, 0:64] / 64.0
    noise = rng.normal(0, 1.0 / (1 + step / 10), size=(4, 64, 64, 3))
    base = np.stack([x, y, 1 - x], axis=-1)[np.newaxis]
    return np.clip(base + 0.3 * noise, 0, 1).astype(np.float32)


def _tone(step: int, sample_rate: int = 16_000) -> np.ndarray:
    """Half a second of a tone whose pitch rises with the step."""
    t = np.arange(sample_rate // 2) / sample_rate
    return (0.5 * np.sin(2 * np.pi * (220 + 5 * step) * t)).astype(np.float32)


def write_demo_run(logdir: str, steps: int = 100) -> str:
    """Log a made-up training run with every op into `logdir`; returns the event file."""
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, size=2000).astype(bool)
    with sl.create_file_writer(logdir) as writer, writer.as_default():
        sl.text("about", "A **summarylib demo**: a made-up training run with every op.", step=0)
        for step in range(steps):
            sl.set_step(step)
            loss = 2.0 * math.exp(-step / 30) + 0.05 * math.sin(step)
            sl.scalar("train/loss", loss, description="Cross-entropy on the training batch.")
            sl.scalar("train/learning_rate", 1e-3 * 0.97**step)
            sl.histogram("layer1/weights", rng.normal(0, 1 + step / 50, size=5000))
            if step % 10 == 0:
                sl.image("samples", _samples(step, rng), max_outputs=4)
                sl.audio("tone", _tone(step), sample_rate=16_000)
                skill = step / steps
                predictions = np.clip(
                    labels * skill + rng.uniform(0, 1, size=labels.size) * (1 - skill), 0, 1
                )
                sl.pr_curve("eval/pr", labels, predictions)
                sl.text("eval/table", [["step", str(step)], ["loss", f"{loss:.3f}"]])
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
