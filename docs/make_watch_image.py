"""Make docs/watch_parameters.png, the README's picture of a watch's parameter image: the
weights of a made-up 784-128-64-10 MLP (numpy only, as the demo makes them) laid out by
`summarylib.ops.tensor_grid.grid_image`, one band per tensor, each normalized on its own.

    python docs/make_watch_image.py
"""

from __future__ import annotations

import itertools
import os

import numpy as np

from summarylib.ops.image.png import encode_png
from summarylib.ops.tensor_grid import grid_image


def made_up_weights(step: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Weights of a small MLP as training might leave them at `step`: Glorot-scaled noise
    plus a few input pixels and units that have learned more than the rest."""
    weights = {}
    sizes = [784, 128, 64, 10]
    for index, (fan_in, fan_out) in enumerate(itertools.pairwise(sizes)):
        kernel = rng.normal(0, np.sqrt(2 / (fan_in + fan_out)), size=(fan_out, fan_in))
        kernel[:, : fan_in // 8] *= 1 + step / 20  # the first inputs matter more as training goes on
        kernel[:: max(1, fan_out // 6)] *= 3  # a few strong units
        weights[f"dense{index}.weight"] = kernel
        weights[f"dense{index}.bias"] = np.linspace(-0.1, 0.1, fan_out) * step / 10
    return weights


def main() -> None:
    image, _ = grid_image(made_up_weights(50, np.random.default_rng(0)))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "watch_parameters.png")
    with open(path, "wb") as file:
        file.write(encode_png(image))
    print(f"wrote {path}: {image.shape[1]}x{image.shape[0]}")


if __name__ == "__main__":
    main()
