"""A stand-in training process for the Live dashboard's browser tests and benchmark: it
does what `watch(..., live=True)` does with the dashboard's requests, with frames a test
can check pixel by pixel (no framework needed).

    live_frames.py RUN_DIR [--size N] [--fps F] [--seconds S]

Every step (F a second, for S seconds): the scalars `loss` and `diverged` (NaN) into
RUN_DIR, and every 10th step a small image `samples/input` (an image tag of the run's
own); and, while the run's control file asks for views (ControlPoll, a stat at most every
0.5 s, as the watch polls it), each view asked, at the interval asked, as an N x N gray
grid image into RUN_DIR/live (rolling files, retain_seconds=600), flushed at once. The
image is laid out as two bands (`encoder.weight` and `decoder.weight`, with GridLayout's
description), and its first three pixels are the step, little-endian base 256: a test
reads them off the page's canvas to see that the frame shown is the step it says. Prints `ready` once the
first step is on disk.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

import summarylib as sl
from summarylib.format.live_control import LIVE_SUBDIR, ControlPoll
from summarylib.ops.tensor_grid import layout

# The view each request names, and the image tag the watch writes it under.
TAGS = {
    "parameters": "images/parameters",
    "gradients": "images/gradients",
    "activations": "images/activations",
    "variance": "images/parameters_variance",
}
STEP_PIXELS = 3
OTHER_TAG = "samples/input"


def encode_step(image: np.ndarray, step: int) -> None:
    """Write `step` into the first STEP_PIXELS pixels of `image` (little-endian base 256)."""
    for index in range(STEP_PIXELS):
        image[0, index] = (step >> (8 * index)) & 0xFF


def grid(size: int) -> tuple[list[np.ndarray], str]:
    """A few made-up size x size grid images and their two-band layout's description: noise
    of 16 gray levels (seed 001's "16-value greyscale", about half a byte a pixel in PNG,
    as a model's parameters compress)."""
    # The bands: the rows above and below one separator row, each `size` values wide.
    top = (size - 1) // 2
    bottom = size - 1 - top
    width = size
    grid_layout = layout(["encoder.weight", "decoder.weight"], [(top, width), (bottom, width)])
    assert (grid_layout.width, grid_layout.height) == (size, size), grid_layout
    rng = np.random.default_rng(0)
    images = []
    for _ in range(4):
        image = (rng.integers(1, 17, size=(size, size)) * 15).astype(np.uint8)
        image[top] = 0  # the separator row
        images.append(image)
    return images, grid_layout.description()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--fps", type=float, default=20.0)
    parser.add_argument("--seconds", type=float, default=60.0)
    args = parser.parse_args()
    images, description = grid(args.size)
    poll = ControlPoll(args.run_dir)
    scalars = sl.create_file_writer(args.run_dir, flush_millis=100)
    live = sl.create_file_writer(os.path.join(args.run_dir, LIVE_SUBDIR), retain_seconds=600)
    period = 1.0 / args.fps
    start = time.monotonic()
    step = 0
    while time.monotonic() - start < args.seconds:
        with scalars.as_default():
            sl.scalar("loss", 1.0 / (1 + step), step=step)
            sl.scalar("diverged", float("nan"), step=step)  # a non-finite scalar, as training can log
            if step % 10 == 0:  # an image tag of the run's own, beside the watch's views
                sl.image(OTHER_TAG, images[0][np.newaxis, :32, :32, np.newaxis], step=step)
        request = poll.request()
        if request is not None and step % request.log_freq == 0:
            with live.as_default():
                for view in request.views:
                    image = images[step % len(images)]
                    encode_step(image, step)
                    sl.image(
                        TAGS[view], image[np.newaxis, :, :, np.newaxis], step=step, description=description
                    )
            live.flush()  # each view on disk at once, as the watch writes them while someone looks
        if step == 0:
            scalars.flush()
            print("ready", flush=True)
        step += 1
        time.sleep(max(0.0, start + step * period - time.monotonic()))
    live.close()
    scalars.close()


if __name__ == "__main__":
    sys.exit(main())
