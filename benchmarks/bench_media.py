"""Log images and audio through summarylib, tensorboardX and torch.utils.tensorboard.

    python benchmarks/bench_media.py [--image-calls N] [--audio-calls N] [--repeats R]

Images: a batch of 4 RGB uint8 images of 256x256 per call, once random (PNG cannot
compress it) and once smooth (it compresses well); every library writes all 4. Audio: 1 s
of 44.1 kHz mono float32 per call. Contenders that are not installed are left out.
Compare ratios, not absolute times.
"""

from __future__ import annotations

import argparse

import numpy as np
from common import compare

SAMPLE_RATE = 44100


def random_images() -> np.ndarray:
    return np.random.default_rng(0).integers(0, 256, (4, 256, 256, 3), dtype=np.uint8)


def smooth_images() -> np.ndarray:
    y, x = np.mgrid[0:256, 0:256]
    image = np.stack([x, y, (x + y) // 2], axis=-1)
    return np.stack([(image + 40 * k) % 256 for k in range(4)]).astype(np.uint8)


def one_second_of_audio() -> np.ndarray:
    t = np.arange(SAMPLE_RATE) / SAMPLE_RATE
    return (0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)


def main() -> None:
    import summarylib as sl

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image-calls", type=int, default=40)
    parser.add_argument("--audio-calls", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    for content, images in (("random", random_images()), ("smooth", smooth_images())):
        compare(
            f"image: 4 x 256x256x3 uint8, {content}",
            args.image_calls,
            args.repeats,
            lambda step, images=images: sl.image("samples", images, step=step, max_outputs=4),
            lambda writer, step, images=images: writer.add_images(
                "samples", images, step, dataformats="NHWC"
            ),
        )
    clip = one_second_of_audio()
    compare(
        "audio: 1 s of 44.1 kHz mono float32",
        args.audio_calls,
        args.repeats,
        lambda step: sl.audio("speech", clip, SAMPLE_RATE, step=step),
        lambda writer, step: writer.add_audio("speech", clip, step, sample_rate=SAMPLE_RATE),
    )


if __name__ == "__main__":
    main()
