"""Test images, shared by the PNG tests and the image benchmarks: photo-like ones made here,
a real photograph, a smooth parameter map and the weights of a trained model: what users log."""

from __future__ import annotations

import numpy as np


def photo(height: int = 256, width: int = 256, seed: int = 0) -> np.ndarray:
    """Photo-like RGB: smooth colour fields, a few hard-edged discs, sensor noise."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width] / max(height, width)
    fields = np.zeros((height, width, 3))
    for channel in range(3):
        for _ in range(12):
            fx, fy = rng.uniform(-6, 6, 2)
            amplitude = rng.uniform(0.2, 1) / (1 + abs(fx) + abs(fy))
            fields[..., channel] += amplitude * np.sin(2 * np.pi * (fx * x + fy * y) + rng.uniform(0, 6.3))
    fields = (fields - fields.min()) / np.ptp(fields) * 200 + 25
    for _ in range(6):
        cy, cx, r = rng.uniform(0, 1, 3)
        disc = (y - cy) ** 2 + (x - cx) ** 2 < (0.05 + 0.15 * r) ** 2
        fields[disc] = fields[disc] * 0.6 + rng.uniform(0, 100, 3)
    fields += rng.normal(0, 3, fields.shape)
    return np.clip(fields, 0, 255).astype(np.uint8)


def grace_hopper() -> np.ndarray:
    """A real camera photograph (512x600 RGB) that matplotlib ships: the real-photo case of
    the PNG tests and the image benchmarks."""
    from matplotlib import cbook
    from PIL import Image

    with cbook.get_sample_data("grace_hopper.jpg") as file, Image.open(file) as picture:
        return np.asarray(picture.convert("RGB")).copy()


def real_photos() -> dict[str, np.ndarray]:
    """The real photograph as users log it: 256x256 crops, whole, and resized to 640x427."""
    from PIL import Image

    whole = grace_hopper()
    photos = {f"crop {y},{x}": whole[y : y + 256, x : x + 256].copy() for y in (0, 256) for x in (0, 256)}
    photos["whole 512x600"] = whole
    resized = Image.fromarray(whole).resize((640, 750), Image.Resampling.LANCZOS)
    photos["resized 640x427"] = np.asarray(resized)[160:587].copy()
    return photos


def smooth_map(size: int = 1000, seed: int = 0) -> np.ndarray:
    """A `[size, size]` float32 map in [0, 1]: smooth waves with a few hard-edged blocks,
    as a learned parameter map or an activation looks."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:size, 0:size] / size
    values = np.zeros((size, size))
    for _ in range(6):
        fx, fy = rng.uniform(-3, 3, 2)
        values += rng.uniform(0.2, 1) * np.sin(2 * np.pi * (fx * x + fy * y) + rng.uniform(0, 6.3))
    for _ in range(4):
        top, left = rng.uniform(0, 0.8, 2)
        height, width = rng.uniform(0.05, 0.2, 2)
        values[(y > top) & (y < top + height) & (x > left) & (x < left + width)] += rng.uniform(-1.5, 1.5)
    return ((values - values.min()) / np.ptp(values)).astype(np.float32)


def trained_weights(steps: int = 20, seed: int = 0) -> np.ndarray:
    """The `[1000, 1000]` weight of a layer of a small model trained `steps` steps on a
    regression task, min-max scaled to [0, 1] as a float32 map: a real parameter map."""
    import torch

    generator = torch.Generator().manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(64, 1000), torch.nn.ReLU(), torch.nn.Linear(1000, 1000))
    torch.manual_seed(seed)
    for layer in model:
        if isinstance(layer, torch.nn.Linear):
            layer.reset_parameters()
    target = torch.randn(64, 1000, generator=generator)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for _ in range(steps):
        inputs = torch.randn(64, 64, generator=generator)
        loss = ((model(inputs) - inputs @ target) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    weight = model[2].weight.detach().numpy()
    return ((weight - weight.min()) / np.ptp(weight)).astype(np.float32)
