"""A real TensorBoard server shows the images of a `watch` run while its files roll
under `retain_seconds`."""

from __future__ import annotations

import io
import os
import time

import pytest

pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")

import torch
from PIL import Image

import summarylib as sl
from summarylib.integrations.torch import watch
from tests.tensorboard_server import get, get_json, running_tensorboard, wait_for


@pytest.mark.slow
def test_tensorboard_shows_the_newest_watch_images_while_files_roll(logdir):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    writer = sl.create_file_writer(logdir, retain_seconds=2, flush_millis=100)
    handle = watch(model, log="all", log_freq=1, images=True, writer=writer)

    def train_for(seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            loss = model(torch.randn(8, 16)).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            writer.flush()
            time.sleep(0.02)

    def images() -> list:
        return get_json(base, "data/plugin/images/images", run=".", tag="images/parameters", sample=0)

    train_for(1.0)
    with running_tensorboard(logdir) as base:
        first = wait_for(images, bool)
        train_for(4.0)  # files roll every second; those older than 2 s are deleted
        newest = handle.step - 1
        latest = wait_for(images, lambda found: found and found[-1]["step"] == newest)
        png = get(base, "data/plugin/images/individualImage?" + latest[-1]["query"])
        tags = get_json(base, "data/plugin/images/tags")["."]
    handle.remove()
    writer.close()
    assert latest[-1]["step"] > first[-1]["step"]
    assert {
        "images/parameters",
        "images/gradients",
        "images/activations",
        "images/parameters_variance",
    } <= set(tags)
    assert "<td>0.weight</td>" in tags["images/parameters"]["description"]  # the bands, as a table
    assert Image.open(io.BytesIO(png)).mode == "L"
    assert len(os.listdir(logdir)) <= 4  # old files are gone
