"""torch's SummaryWriter API per call: summarylib.compat.torch against
torch.utils.tensorboard and tensorboardX, for add_scalar, add_histogram, add_image and
add_scalars (4 series), each timed to the writer's close.

    python benchmarks/bench_torch_writer.py [--scale S] [--repeats R]

Contenders that are not installed are left out. Compare ratios, not absolute times.
"""

from __future__ import annotations

import argparse

import numpy as np
from common import available, best_of, print_table, writer_run

WRITERS = ("summarylib.compat.torch", "torch.utils.tensorboard", "tensorboardX")


def workloads(scale: float) -> list[tuple[str, int, object]]:
    """(title, calls, log(writer, step)) of each method measured."""
    rng = np.random.default_rng(0)
    weights = rng.normal(size=100_000).astype(np.float32)
    image = rng.random((3, 64, 64), dtype=np.float32)
    series = {"train": 0.5, "validation": 0.6, "test": 0.7, "baseline": 0.8}
    return [
        ("add_scalar", int(50_000 * scale), lambda w, step: w.add_scalar("loss", 0.5, step)),
        (
            "add_histogram (100,000 values)",
            int(300 * scale),
            lambda w, step: w.add_histogram("w", weights, step),
        ),
        ("add_image (3x64x64 float)", int(1_000 * scale), lambda w, step: w.add_image("img", image, step)),
        ("add_scalars (4 series)", int(10_000 * scale), lambda w, step: w.add_scalars("loss", series, step)),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies the number of calls")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    for title, calls, log in workloads(args.scale):
        rows = {
            module: best_of(args.repeats, writer_run(module, calls, log))
            for module in WRITERS
            if available(module.split(".")[0])
        }
        print_table(title, calls, rows, baseline=WRITERS[0], unit="µs")


if __name__ == "__main__":
    main()
