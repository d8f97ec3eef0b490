"""The watch's GPU path (summarylib.integrations.torch.watch_device), run on CPU tensors
against the CPU path's views: there is no GPU here, so what this leaves untested is the
CUDA placement only (pinned memory, the asynchronous copy, its event)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")

import torch

import summarylib as sl
from summarylib.integrations.torch.watch_device import DeviceViews
from summarylib.integrations.watch_views import KindViews
from tests.test_watch_worker import views

STEPS = 4


def tensors_of(step: int) -> dict[str, torch.Tensor]:
    """Parameters-like tensors: one large enough to be sampled for its bands, one constant,
    one with NaN and Inf, one all NaN, and a few moving weights (for the variance)."""
    generator = torch.Generator().manual_seed(step)
    big = torch.randn(40_000, generator=generator) * 0.05 + 0.001 * step
    odd = torch.randn(6, 7, generator=generator)
    odd[0, 0], odd[1, 1], odd[2, 2] = float("nan"), float("inf"), float("-inf")
    return {
        "big": big.reshape(200, 200),
        "constant": torch.full((5,), 0.25),
        "odd": odd,
        "nan": torch.full((3,), float("nan")),
        "small": torch.linspace(-1, 1, 17) * (1 + step),
    }


def write(logdir: str, device_path: bool) -> None:
    views = KindViews("parameters", images=True, variance_steps=2, buckets=None)
    device = DeviceViews(views, variance_steps=2)
    with sl.create_file_writer(logdir) as writer:
        for step in range(STEPS):
            named = tensors_of(step)
            grid = views.layout_of(list(named), [tuple(t.shape) for t in named.values()])
            if device_path:
                device.queue(writer, step, grid, list(named.values()))
            else:
                values = torch.cat([t.reshape(-1) for t in named.values()]).numpy()
                views.queue(writer, step, grid, values)


def test_gpu_path_on_cpu_tensors_writes_what_the_cpu_path_writes(tmp_path):
    write(str(tmp_path / "cpu"), device_path=False)
    write(str(tmp_path / "device"), device_path=True)
    (cpu_histograms, cpu_images, cpu_text), (histograms, images, text) = (
        views(str(tmp_path / "cpu")),
        views(str(tmp_path / "device")),
    )
    assert histograms.keys() == cpu_histograms.keys() and images.keys() == cpu_images.keys()
    assert set(images) == {"images/parameters", "images/parameters_variance"}
    assert text == cpu_text
    for tag, series in cpu_histograms.items():
        assert [s for s, _ in histograms[tag]] == [s for s, _ in series] == list(range(STEPS))
        for (_, expected), (_, got) in zip(series, histograms[tag], strict=True):
            np.testing.assert_array_equal(got[:, :2], expected[:, :2], err_msg=tag)  # the same edges
            assert got[:, 2].sum() == expected[:, 2].sum(), tag  # the same values counted
            # a value within float32 rounding of an edge may land in the bucket beside it
            assert np.abs(got[:, 2] - expected[:, 2]).sum() <= 2, tag
    for tag, series in cpu_images.items():
        assert [s for s, _ in images[tag]] == [s for s, _ in series]
        for (_, expected), (_, got) in zip(series, images[tag], strict=True):
            assert got.shape == expected.shape
            difference = np.abs(got.astype(int) - expected.astype(int))
            assert difference.max() <= 1 and (difference > 0).mean() < 1e-3, tag
            np.testing.assert_array_equal(got == 0, expected == 0)  # separators, padding, NaN, Inf
