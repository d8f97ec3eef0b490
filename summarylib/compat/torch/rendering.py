"""Pictures torch's writer draws before encoding them: bounding boxes on an image,
matplotlib figures, the frames of a video batch and their animated GIF.

Pillow and matplotlib are imported inside the functions that use them, so importing
summarylib imports neither (matplotlib only when a figure is logged).
"""

from __future__ import annotations

import io
import math
import sys
from typing import Any

import numpy as np

from summarylib.compat.legacy_values import image_entry

BOX_COLOR = "Red"
LABEL_COLOR = "black"
BOX_WIDTH = 2


def draw_boxes(pixels: np.ndarray, boxes: np.ndarray, labels: list[str] | None, rescale: float) -> np.ndarray:
    """`[h, w, c]` uint8 pixels with each `[x1, y1, x2, y2]` box outlined in red and its
    label (if any) on a red band at the box's bottom left, then resized by `rescale`
    (Lanczos): the picture torch's `add_image_with_boxes` writes."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.fromarray(pixels)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default()
    for index, (left, top, right, bottom) in enumerate(boxes.tolist()):
        corners = [(left, top), (left, bottom), (right, bottom), (right, top), (left, top)]
        draw.line(corners, width=BOX_WIDTH, fill=BOX_COLOR)
        label = labels[index] if labels is not None else None
        if label:
            text_left, text_top, text_right, text_bottom = font.getbbox(label)
            text_width, text_height = text_right - text_left, text_bottom - text_top
            margin = math.ceil(0.05 * text_height)
            band_top = bottom - text_height - 2 * margin
            draw.rectangle([(left, band_top), (left + text_width, bottom)], fill=BOX_COLOR)
            draw.text((left + margin, band_top + margin), label, fill=LABEL_COLOR, font=font)
    height, width = pixels.shape[:2]
    size = (int(width * rescale), int(height * rescale))
    if size != (width, height):
        image = image.resize(size, Image.Resampling.LANCZOS)
    return np.asarray(image)


def is_figure(value: Any) -> bool:
    """Whether `value` is a matplotlib Figure (without importing matplotlib: a program
    that made a figure has imported it)."""
    module = sys.modules.get("matplotlib.figure")
    return module is not None and isinstance(value, module.Figure)


def figure_pixels(figure: Any, close: bool) -> np.ndarray:
    """A matplotlib figure rendered by Agg as `[h, w, 3]` uint8 RGB (closed if `close`)."""
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    rgb = np.array(np.asarray(canvas.buffer_rgba())[..., :3])
    if close:
        plt.close(figure)
    return rgb


def video_grid(videos: np.ndarray) -> np.ndarray:
    """`[n, t, h, w, c]` videos as `[t, rows*h, columns*w, c]` frames: the batch, padded
    with black videos to a power of two, on a grid of 2**((bit_length(n) - 1) // 2) rows,
    as torch lays it out."""
    count, frames, height, width, channels = videos.shape
    padded_count = 1 << (count - 1).bit_length() if count else 0
    if padded_count != count:
        padding = np.zeros((padded_count - count, *videos.shape[1:]), videos.dtype)
        videos = np.concatenate((videos, padding))
    rows = 2 ** ((count.bit_length() - 1) // 2)
    columns = padded_count // rows
    grid = videos.reshape(rows, columns, frames, height, width, channels).transpose(2, 0, 3, 1, 4, 5)
    return np.ascontiguousarray(grid.reshape(frames, rows * height, columns * width, channels))


def gif_bytes(frames: np.ndarray, fps: float) -> bytes:
    """`[t, h, w, c]` uint8 frames (c: 1, 3 or 4) as an animated GIF looping forever,
    each frame shown 1/fps seconds (GIF counts in hundredths: rounded by pillow, at least
    one, so `fps` over 100 is shown at 100; `fps` at least 1/655.35, checked at the call)."""
    from PIL import Image

    images = [Image.fromarray(frame[..., 0] if frame.shape[-1] == 1 else frame) for frame in frames]
    output = io.BytesIO()
    # A GIF's delay is 1 to 65535 hundredths of a second: faster than 100 fps is shown at 100.
    duration = min(max(1000.0 / fps, 10.0), 655350.0)
    images[0].save(output, format="GIF", save_all=True, append_images=images[1:], duration=duration, loop=0)
    return output.getvalue()


def video_summary(tag: str, frames: np.ndarray, fps: float) -> bytes:
    """The serialized Summary torch writes for a video: a `Summary.Image` holding the
    GIF and stating one frame's height, width and channels, with no metadata
    (TensorBoard's images dashboard plays it)."""
    _, height, width, channels = frames.shape
    return image_entry(tag, gif_bytes(frames, fps), height, width, channels)
