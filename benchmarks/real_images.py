"""Images on real data: summarylib against tensorboardX, torch.utils.tensorboard and pillow.

    python benchmarks/real_images.py [--quick]

Three of issue 21's goal rows, each printed through `common.goal`:

- Real photographs (the camera photograph matplotlib ships, as 256x256 crops, whole 512x600
  and resized to 640x427), one image per call, total time per image including the writer's
  close, against tensorboardX's `add_image`; the bytes against pillow's default PNG.
- A 1000x1000 float32 parameter map logged with `sl.image` every step, including close: a
  synthetic smooth one with hard edges, and the weights of a layer trained here for a few
  seconds (torch); steps per second and bytes against pillow's.
- 4 random 256x256x3 uint8 images (incompressible) per call against tensorboardX.

Beside them: where summarylib's time goes per photo (filter choice, filtering, deflate, the
rest: the float conversion, the event and the file), and pillow's own encoder at
compress_level 1..3 on the same photos. Compare ratios, not absolute times.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from common import Timing, available, best_of, goal, least_ms, summarylib_run, writer_run

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from tests.images import real_photos, smooth_map, trained_weights

PEERS = ("tensorboardX", "torch.utils.tensorboard")
QUICK_PHOTOS = ("crop 0,0", "whole 512x600", "resized 640x427")
# What bounds a map's step, said where its goal is not met (the profile: about 0.9 ms of CPU
# converting floats, 0.2 choosing and filtering, then the deflate, then about 1.5 for the
# event, the file and the writer).
SMOOTH_LIMIT = (
    "limit: the deflate that keeps a smooth map within 1.1x pillow's bytes, libdeflate's level 1, "
    "2.7 ms of CPU a step (ISA-L's 1.7 ms gives 1.26x, zlib's level 3 takes 11 ms); "
    "the CPU rate is what an idle core gives"
)
WEIGHTS_LIMIT = (
    "limit: ISA-L's deflate of noise-like weights, about 1.5 ms of CPU a step, and the float "
    "conversion; the CPU rate is what an idle core gives"
)


def peers() -> list[str]:
    """The peers installed here."""
    return [name for name in PEERS if available(name.split(".")[0]) and available("tensorboard")]


def pillow_bytes(pixels: np.ndarray, **options: int) -> bytes:
    """The PNG pillow writes (at its default compression unless told)."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(pixels[..., 0] if pixels.shape[-1] == 1 else pixels).save(buffer, format="PNG", **options)
    return buffer.getvalue()


@dataclass
class Measured:
    """A contender's best wall-clock timing, and its least CPU time of the process (writer
    threads included) over the same runs: the ratio a machine busy with other work does not
    skew."""

    timing: Timing
    cpu: float


def best_with_cpu(repeats: int, run: Callable[[str], Timing]) -> Measured:
    cpu: list[float] = []

    def measured(logdir: str) -> Timing:
        start = time.process_time()
        timing = run(logdir)
        cpu.append(time.process_time() - start)
        return timing

    return Measured(best_of(repeats, measured), min(cpu))


def contenders(
    calls: int, repeats: int, ours: Callable[[int], object], theirs: Callable[[Any, int], object]
) -> dict[str, Measured]:
    """Best-of timings of `ours(step)` under summarylib and `theirs(writer, step)` in each peer."""
    rows = {"summarylib": best_with_cpu(repeats, summarylib_run(calls, ours))}
    for peer in peers():
        rows[peer] = best_with_cpu(repeats, writer_run(peer, calls, theirs))
    return rows


def one_photo(calls: int, repeats: int, pixels: np.ndarray) -> dict[str, Measured]:
    import summarylib as sl

    batch = pixels[None]
    return contenders(
        calls,
        repeats,
        lambda step: sl.image("photo", batch, step=step),
        lambda writer, step: writer.add_image("photo", pixels, step, dataformats="HWC"),
    )


def photo_rows(calls: int, repeats: int, quick: bool) -> None:
    """Per real photo (`quick`: one crop, the whole photo and the resized one): ms per image
    incl. close for each library, and bytes against pillow's."""
    from summarylib.ops.image import png

    photos = real_photos()
    if quick:
        photos = {name: pixels for name, pixels in photos.items() if name in QUICK_PHOTOS}
    print(f"\nreal photographs, one per call ({calls} calls, best of {repeats}): ms per image incl. close\n")
    print("| photo | summarylib | " + " | ".join(peers()) + " | bytes vs pillow default |")
    print("|---|---:|" + "---:|" * len(peers()) + "---:|")
    totals: dict[str, float] = {}
    cpu: dict[str, float] = {}
    worst_bytes = 0.0
    for name, pixels in photos.items():
        row = one_photo(calls, repeats, pixels)
        size = len(png.encode_png(pixels)) / len(pillow_bytes(pixels))
        worst_bytes = max(worst_bytes, size)
        for library, measured in row.items():
            totals[library] = totals.get(library, 0.0) + measured.timing.total / calls
            cpu[library] = cpu.get(library, 0.0) + measured.cpu / calls
        cells = " | ".join(f"{measured.timing.total / calls * 1e3:.2f}" for measured in row.values())
        print(f"| {name} | {cells} | {size:.3f}x |")
    if "tensorboardX" in totals:
        ratio = totals["tensorboardX"] / totals["summarylib"]
        cpu_ratio = cpu["tensorboardX"] / cpu["summarylib"]
        ours, theirs = (totals[library] / len(photos) * 1e3 for library in ("summarylib", "tensorboardX"))
        goal(
            "real photographs vs tensorboardX add_image, total per image incl. close",
            f"{ratio:.1f}x faster ({ours:.2f} vs {theirs:.2f} ms a photo; {cpu_ratio:.1f}x in CPU time), "
            f"{worst_bytes:.2f}x pillow's bytes at most",
            ">=10x at <=1.1x pillow's bytes",
            ratio >= 10 and worst_bytes <= 1.1,
        )


def cpu_ms(repeats: int, run: Callable[[], object]) -> float:
    """The least CPU time of `repeats` runs of `run`, in ms (a loaded machine's other work
    does not count)."""
    return least_ms(repeats, run, time.thread_time)


def profile_row(repeats: int, name: str, pixels: np.ndarray) -> str:
    from summarylib.ops.image import png, png_deflate

    height, width, channels = pixels.shape
    rows = pixels.reshape(height, width * channels)
    filter_type, ratio = png.choose_filter(rows, channels)
    scanlines = png.filter_rows(rows, channels, filter_type)
    ours = len(png.encode_png(pixels))
    stages = [
        cpu_ms(repeats, lambda: png.choose_filter(rows, channels)),
        cpu_ms(repeats, lambda: png.filter_rows(rows, channels, filter_type)),
        cpu_ms(repeats, lambda: png_deflate.deflate(scanlines, ratio)),
        cpu_ms(repeats, lambda: png.encode_png(pixels)),
    ]
    pillow = []
    for level in (1, 2, 3, 6):
        size = len(pillow_bytes(pixels, compress_level=level)) / ours
        seconds = cpu_ms(max(1, repeats // 5), lambda level=level: pillow_bytes(pixels, compress_level=level))
        pillow.append(f"{seconds:.2f} ({size:.2f}x bytes)")
    return f"| {name} | " + " | ".join(f"{stage:.2f}" for stage in stages) + " | " + " | ".join(pillow) + " |"


def profile_rows(repeats: int) -> None:
    """Where summarylib's encoding time goes on each photo, and pillow's encoder at its fast levels."""
    print("\nsummarylib's PNG encoder per photo, CPU ms (least of repeats), against pillow's encoder\n")
    print("| photo | choose filter | filter | deflate | whole PNG | pillow level 1 | 2 | 3 | 6 (default) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, pixels in real_photos().items():
        print(profile_row(repeats, name, pixels))


def one_map(steps: int, repeats: int, values: np.ndarray) -> dict[str, Measured]:
    import summarylib as sl

    batch = values[None, ..., None]
    return contenders(
        steps,
        repeats,
        lambda step: sl.image("weights", batch, step=step),
        lambda writer, step: writer.add_image("weights", values, step, dataformats="HW"),
    )


def settled(values: np.ndarray) -> np.ndarray:
    """`values`, once torch's worker threads have stopped spinning after training (they take
    a core for a while, which the next timings would pay)."""
    time.sleep(1)
    return values


def parameter_map_rows(steps: int, repeats: int, train_steps: int) -> None:
    """`sl.image` of a 1000x1000 float32 map every step: steps/s incl. close, bytes vs pillow."""
    from summarylib.ops.image import encoding as image_encoding

    maps = {
        "synthetic smooth map": (smooth_map, SMOOTH_LIMIT),
        f"trained weights ({train_steps} Adam steps)": (
            lambda: settled(trained_weights(train_steps)),
            WEIGHTS_LIMIT,
        ),
    }
    print(f"\n1000x1000 float32 map per step ({steps} steps, best of {repeats}): steps/s incl. close\n")
    header = " | ".join(["summarylib", *peers(), "summarylib per CPU s", "bytes vs pillow default"])
    print(f"| map | {header} |")
    print("|---|---:|" + "---:|" * len(peers()) + "---:|---:|")
    for name, (make, limit) in maps.items():
        values = make()
        row = one_map(steps, repeats, values)
        rates = {library: steps / measured.timing.total for library, measured in row.items()}
        cpu_rate = steps / row["summarylib"].cpu
        pixels = image_encoding.to_uint8(values[..., None])
        size = len(image_encoding.image_strings(pixels[None], 1000, 1000)[2]) / len(pillow_bytes(pixels))
        cells = " | ".join(f"{rate:.0f}" for rate in rates.values())
        print(f"| {name} | {cells} | {cpu_rate:.0f} | {size:.3f}x |")
        rate = rates["summarylib"]
        met = rate >= 100 and size <= 1.1
        measured = f"{rate:.0f} steps/s ({cpu_rate:.0f} of CPU time), {size:.2f}x pillow's bytes"
        goal(
            f"1000x1000 float32 map per step incl. close, {name}",
            measured if met else f"{measured}; {limit}",
            ">=100 steps/s at <=1.1x pillow's bytes",
            met,
        )


def random_rows(calls: int, repeats: int) -> None:
    """4 random 256x256x3 uint8 images per call against each peer's add_images."""
    import summarylib as sl

    images = np.random.default_rng(0).integers(0, 256, (4, 256, 256, 3), dtype=np.uint8)
    row = contenders(
        calls,
        repeats,
        lambda step: sl.image("noise", images, step=step, max_outputs=4),
        lambda writer, step: writer.add_images("noise", images, step, dataformats="NHWC"),
    )
    print(f"\n4 random 256x256x3 uint8 images per call ({calls} calls, best of {repeats}), incl. close\n")
    print("| library | ms per call | vs summarylib |")
    print("|---|---:|---:|")
    base = row["summarylib"]
    for library, measured in row.items():
        total = measured.timing.total
        print(f"| {library} | {total / calls * 1e3:.2f} | {total / base.timing.total:.1f}x |")
    if "tensorboardX" in row:
        ratio = row["tensorboardX"].timing.total / base.timing.total
        cpu_ratio = row["tensorboardX"].cpu / base.cpu
        measured = f"{ratio:.1f}x faster ({cpu_ratio:.1f}x in CPU time)"
        goal("4 random 256x256x3 uint8 images vs tensorboardX", measured, ">=2x", ratio >= 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer calls and repeats (under about 40 s)")
    args = parser.parse_args()
    calls, repeats = (5, 1) if args.quick else (20, 3)
    one_photo(2, 1, real_photos()["crop 0,0"])  # imports and first writers: not in any row
    photo_rows(calls, repeats, args.quick)
    profile_rows(5 if args.quick else 40)
    parameter_map_rows(8 if args.quick else 60, repeats, 10 if args.quick else 200)
    random_rows(calls * 2, repeats)


if __name__ == "__main__":
    main()
