"""Log 100,000 scalars through summarylib, tensorboardX and torch.utils.tensorboard.

    python benchmarks/bench_scalar.py [--calls N] [--repeats R]

Contenders that are not installed are left out. Compare ratios, not absolute times.
"""

from __future__ import annotations

import argparse

from common import compare


def main() -> None:
    import summarylib as sl

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    compare(
        "scalar",
        args.calls,
        args.repeats,
        lambda step: sl.scalar("loss", 0.5, step=step),
        lambda writer, step: writer.add_scalar("loss", 0.5, step),
        unit="µs",
    )


if __name__ == "__main__":
    main()
