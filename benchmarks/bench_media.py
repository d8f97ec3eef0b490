"""Log images and audio through summarylib, tensorboardX and torch.utils.tensorboard.

    python benchmarks/bench_media.py [--image-calls N] [--audio-calls N] [--repeats R] [--quick]

Images: a batch of 4 RGB uint8 images of 256x256 per call, of several kinds: random noise
(PNG cannot compress it), a smooth gradient, a photo-like image, a rendered line chart,
text (antialiased) and two-level text (pillow's bitmap font, black on white); every library
writes all 4 (tensorboardX and torch as one 1024x256 grid, summarylib as 4 PNGs). Beside
the times, the event-file bytes per 256x256 image: PNG size is the other half of the trade.
Audio: 1 s of 44.1 kHz mono float32 per call. Contenders that are not installed are left
out. Compare ratios, not absolute times.

Two of issue 32's goal rows, printed through `common.goal`: a two-level image's PNG bytes
against pillow's default PNG (the gray 256x256 page of tests/test_png.py), and the audio
call's total time against tensorboardX's, with the ratio of the processes' CPU times beside
it (on a busy machine the wall-clock ratio moves with the other load).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

import numpy as np
from common import Timing, available, best_of, goal, parse_with_quick, print_table, summarylib_run, writer_run
from real_images import contenders

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tests.images import photo
from tests.test_png import pillow_png, two_level_text

SAMPLE_RATE = 44100


def random_images() -> np.ndarray:
    return np.random.default_rng(0).integers(0, 256, (4, 256, 256, 3), dtype=np.uint8)


def smooth_images() -> np.ndarray:
    y, x = np.mgrid[0:256, 0:256]
    image = np.stack([x, y, (x + y) // 2], axis=-1)
    return np.stack([(image + 40 * k) % 256 for k in range(4)]).astype(np.uint8)


def photo_images() -> np.ndarray:
    """Photo-like: smooth colour fields, a few hard-edged discs, sensor noise."""
    return np.stack([photo(seed=seed) for seed in range(4)])


def plot_images() -> np.ndarray:
    """Line charts rendered by matplotlib (Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    t = np.linspace(0, 10, 200)
    batch = []
    for k in range(4):
        figure = plt.figure(figsize=(2.56, 2.56), dpi=100)
        axes = figure.add_subplot()
        axes.plot(t, np.sin(t + k), label="sin")
        axes.plot(t, np.exp(-t / 4) * np.cos(3 * t + k), label="damped")
        axes.legend()
        axes.grid(True)
        figure.canvas.draw()
        batch.append(np.asarray(figure.canvas.buffer_rgba())[..., :3].copy())
        plt.close(figure)
    return np.stack(batch)


def text_images() -> np.ndarray:
    """Black words on white."""
    from PIL import Image, ImageDraw

    rng = np.random.default_rng(1)
    words = ("the", "quick", "brown", "fox", "loss", "accuracy", "epoch", "step")
    batch = []
    for _ in range(4):
        canvas = Image.new("RGB", (256, 256), "white")
        draw = ImageDraw.Draw(canvas)
        for line in range(21):
            draw.text((4, 2 + 12 * line), " ".join(rng.choice(words, 6)), fill="black")
        batch.append(np.asarray(canvas))
    return np.stack(batch)


def two_level_images() -> np.ndarray:
    """Black words on white in pillow's bitmap font: pixels 0 or 255 only."""
    return np.stack([two_level_text(mode="RGB", seed=seed) for seed in range(4)])


IMAGE_KINDS = {
    "random": random_images,
    "smooth": smooth_images,
    "photo": photo_images,
    "plot": plot_images,
    "text": text_images,
    "two-level text": two_level_images,
}


def sized(run: Callable[[str], Timing], sizes: list[int]) -> Callable[[str], Timing]:
    """`run`, also noting the bytes it left in its logdir."""

    def run_and_measure(logdir: str) -> Timing:
        timing = run(logdir)
        sizes.append(sum(entry.stat().st_size for entry in os.scandir(logdir) if entry.is_file()))
        return timing

    return run_and_measure


def image_table(kind: str, images: np.ndarray, calls: int, repeats: int) -> None:
    """Time per call and event-file bytes per image for each installed library."""
    import summarylib as sl

    runs = {
        "summarylib": summarylib_run(
            calls, lambda step: sl.image("samples", images, step=step, max_outputs=len(images))
        )
    }
    for module in ("tensorboardX", "torch.utils.tensorboard"):
        if available(module.split(".")[0]) and available("tensorboard"):
            runs[module] = writer_run(
                module,
                calls,
                lambda writer, step: writer.add_images("samples", images, step, dataformats="NHWC"),
            )
    print(f"\nimage: 4 x 256x256x3 uint8, {kind} ({calls:,} calls, best of {repeats})\n")
    print("| library | caller ms/call | total ms/call (incl. close) | total / summarylib's | bytes/image |")
    print("|---|---:|---:|---:|---:|")
    rows = {}
    for name, run in runs.items():
        sizes: list[int] = []
        rows[name] = (best_of(repeats, sized(run, sizes)), min(sizes) / (calls * len(images)))
    base = rows["summarylib"][0].total
    for name, (timing, size) in rows.items():
        print(
            f"| {name} | {timing.caller / calls * 1e3:.2f} | {timing.total / calls * 1e3:.2f} | "
            f"{timing.total / base:.1f}x | {size:,.0f} |"
        )


def one_second_of_audio() -> np.ndarray:
    t = np.arange(SAMPLE_RATE) / SAMPLE_RATE
    return (0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)


def two_level_bytes_goal() -> None:
    """The goal row of a two-level image's PNG bytes against pillow's default PNG."""
    from summarylib.ops.image.png import encode_png

    pixels = two_level_text()
    ours, theirs = len(encode_png(pixels)), len(pillow_png(pixels))
    measured = f"{ours / theirs:.2f}x ({ours:,} vs {theirs:,} bytes)"
    goal(
        "PNG bytes of a two-level image (256x256 text) vs pillow's default",
        measured,
        "<=1.1x",
        ours <= 1.1 * theirs,
    )


def main() -> None:
    import summarylib as sl

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image-calls", type=int, default=40)
    parser.add_argument("--audio-calls", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=3)
    args = parse_with_quick(parser, image_calls=10, audio_calls=100, repeats=1)

    for kind, make in IMAGE_KINDS.items():
        image_table(kind, make(), args.image_calls, args.repeats)
    two_level_bytes_goal()
    clip = one_second_of_audio()
    rows = contenders(
        args.audio_calls,
        args.repeats,
        lambda step: sl.audio("speech", clip, SAMPLE_RATE, step=step),
        lambda writer, step: writer.add_audio("speech", clip, step, sample_rate=SAMPLE_RATE),
    )
    timings = {name: measured.timing for name, measured in rows.items()}
    print_table("audio: 1 s of 44.1 kHz mono float32", args.audio_calls, timings, unit="ms")
    if "tensorboardX" in rows:
        ours, theirs = rows["summarylib"], rows["tensorboardX"]
        ratio = theirs.timing.total / ours.timing.total
        # The CPU ratio too: on a busy machine the wall-clock one moves with the other load.
        measured = f"{ratio:.1f}x faster ({theirs.cpu / ours.cpu:.1f}x in CPU time)"
        goal("1 s of 44.1 kHz audio vs tensorboardX", measured, ">=3x", ratio >= 3)


if __name__ == "__main__":
    main()
