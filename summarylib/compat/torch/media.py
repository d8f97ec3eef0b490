"""torch's media methods: images (with `dataformats`, boxes, matplotlib figures), video,
audio and text, each written through the op layer's encoder for its kind.

Images are the image op's PNG summary of the one picture torch draws (a batch as a grid,
gray as RGB, torch's scaling: see `dataformats`), under the tag as given; TensorBoard's
images dashboard shows them as it shows torch's `Summary.Image`. Audio is the audio
op's WAV with the samples torch writes (mono, `x * 32767` truncated to 16 bits), text
the text op's string tensor under `<tag>/text_summary`, as torch names it. Video is
torch's `Summary.Image` holding an animated GIF, written with pillow (torch needs
moviepy, and without it writes an empty value).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from summarylib.checks import check_flag, real_number
from summarylib.compat.torch.checks import check_text, check_wall_time
from summarylib.compat.torch.core import WriterCore
from summarylib.compat.torch.dataformats import to_hwc, torch_uint8
from summarylib.compat.torch.rendering import draw_boxes, figure_pixels, is_figure, video_grid, video_summary
from summarylib.ops.audio import encoding as audio_encoding
from summarylib.ops.convert import as_real_array, snapshot
from summarylib.ops.errors import op_error
from summarylib.ops.image import encoding as image_encoding
from summarylib.ops.text import encoding as text_encoding

MIN_FPS = 1 / 655.35  # a GIF frame's delay is at most 65535 hundredths of a second
MAX_RESCALED_PIXELS = 1 << 26  # add_image_with_boxes enlarges to at most 64 Mpx
_PCM_MAX = 32767  # torch scales samples by int16's max
_PCM_SCALE = np.float32(32768)  # the audio op's scale


def boxed_image_summary(
    tag: str, pixels: np.ndarray, boxes: np.ndarray, labels: list[str] | None, rescale: float
) -> bytes:
    """The image summary of `pixels` with `boxes` drawn on them (on the writer's thread)."""
    drawn = draw_boxes(pixels, boxes, labels, rescale)
    height, width = drawn.shape[:2]
    return image_encoding.summary(tag, drawn[np.newaxis], width, height, None)


def torch_pcm_samples(op: str, tag: str, data: Any) -> np.ndarray:
    """Mono samples as `[t, 1]` float32 that the audio op writes as the 16-bit values
    torch writes: clipped to [-1, 1] (with a warning), times 32767, truncated."""
    samples = as_real_array(op, tag, "snd_tensor", data).squeeze()
    if samples.dtype.kind != "f":
        raise op_error(
            TypeError, op, tag, "snd_tensor", f"expected float samples in [-1, 1], got dtype {samples.dtype}"
        )
    if samples.ndim != 1:
        raise op_error(
            ValueError,
            op,
            tag,
            "snd_tensor",
            f"expected one mono clip (shape [t], or [1, t] and the like), got shape {list(samples.shape)}",
        )
    if samples.size and not np.abs(samples).max() <= 1:
        warnings.warn(
            f"summarylib.{op}: tag {tag!r}: samples outside [-1, 1] (or NaN) clipped",
            RuntimeWarning,
            stacklevel=3,
        )
        samples = np.nan_to_num(samples.clip(-1, 1))
    # Multiples of 1/32768 are exact in float32: the op's rounding gives these integers back.
    pcm = np.trunc(samples * samples.dtype.type(_PCM_MAX))
    return (pcm.astype(np.float32) / _PCM_SCALE)[:, np.newaxis]


def _rescale(tag: str, rescale: Any, size: tuple[int, int]) -> float:
    """`rescale` checked to give a picture of at least one pixel a side and, when it
    enlarges, at most `MAX_RESCALED_PIXELS` pixels."""
    op = "add_image_with_boxes"
    rescale = real_number(op, tag, "rescale", rescale)
    height, width = size
    if not (0 < rescale < math.inf and int(height * rescale) >= 1 and int(width * rescale) >= 1):
        raise op_error(
            ValueError,
            op,
            tag,
            "rescale",
            f"expected a positive finite number that leaves the {height}x{width} image at least one "
            f"pixel a side, got {rescale!r}",
        )
    if rescale > 1 and height * rescale * width * rescale > MAX_RESCALED_PIXELS:
        raise op_error(
            ValueError,
            op,
            tag,
            "rescale",
            f"expected at most {MAX_RESCALED_PIXELS} pixels after rescaling the {height}x{width} image, "
            f"got rescale={rescale!r}",
        )
    return rescale


class MediaMethods(WriterCore):
    """The image, video, audio and text methods of torch's writer (see the module docstring)."""

    def _write_image(self, op: str, tag: str, pixels: np.ndarray, global_step: Any, walltime: Any) -> None:
        args = image_encoding.prepare(tag, pixels, 1, None)
        self._queue(op, tag, global_step, image_encoding.summary, args, walltime)

    def add_image(
        self,
        tag: str,
        img_tensor: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        dataformats: str = "CHW",
    ) -> None:
        """Write an image: `[C, H, W]` by default; any `dataformats` (a 4-D batch is drawn
        as one grid image)."""
        tag = self._tag("add_image", tag)
        pixels = to_hwc("add_image", tag, "img_tensor", img_tensor, dataformats)
        self._write_image("add_image", tag, pixels, global_step, walltime)

    def add_images(
        self,
        tag: str,
        img_tensor: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        dataformats: str = "NCHW",
    ) -> None:
        """Write a batch of images as one grid image, 8 a row: `[N, C, H, W]` by default."""
        tag = self._tag("add_images", tag)
        pixels = to_hwc("add_images", tag, "img_tensor", img_tensor, dataformats)
        self._write_image("add_images", tag, pixels, global_step, walltime)

    def add_image_with_boxes(
        self,
        tag: str,
        img_tensor: Any,
        box_tensor: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        rescale: float = 1,
        dataformats: str = "CHW",
        labels: Any = None,
    ) -> None:
        """Write an image with `[x1, y1, x2, y2]` boxes (`box_tensor`, `[n, 4]` pixels)
        drawn in red, each with its label if `labels` has one per box (torch ignores
        labels of another length, and so does this)."""
        op = "add_image_with_boxes"
        tag = self._tag(op, tag)
        pixels = snapshot(to_hwc(op, tag, "img_tensor", img_tensor, dataformats), img_tensor)
        boxes = np.array(as_real_array(op, tag, "box_tensor", box_tensor), dtype=np.float64)
        if boxes.ndim != 2 or boxes.shape[1] != 4:
            raise op_error(
                ValueError,
                op,
                tag,
                "box_tensor",
                f"expected shape [n, 4] (x1, y1, x2, y2), got {list(boxes.shape)}",
            )
        if isinstance(labels, str):
            labels = [labels]
        if labels is not None and not hasattr(labels, "__len__"):
            raise op_error(
                TypeError,
                op,
                tag,
                "labels",
                f"expected a label a box (a list of str), got {type(labels).__name__}",
            )
        if labels is not None:
            labels = [str(label) for label in labels] if len(labels) == len(boxes) else None
        rescale = _rescale(tag, rescale, pixels.shape[:2])
        args = (tag, pixels, boxes, labels, rescale)
        self._queue(op, tag, global_step, boxed_image_summary, args, walltime)

    def add_figure(
        self,
        tag: str,
        figure: Any,
        global_step: int | None = None,
        close: bool = True,
        walltime: float | None = None,
    ) -> None:
        """Write a matplotlib figure as an image (a list of figures as one grid image);
        rendered with Agg at the call, then closed unless `close=False`."""
        tag = self._tag("add_figure", tag)
        close = check_flag("add_figure", tag, "close", close)
        figures = figure if isinstance(figure, list) else [figure]
        if not figures or not all(map(is_figure, figures)):
            raise op_error(
                TypeError,
                "add_figure",
                tag,
                "figure",
                f"expected a matplotlib Figure or a non-empty list of them, got {type(figure).__name__} "
                f"{figure!r:.80}",
            )
        if isinstance(figure, list):
            batch = np.stack([figure_pixels(each, close) for each in figure])
            pixels = to_hwc("add_figure", tag, "figure", batch, "NHWC")
        else:
            pixels = figure_pixels(figure, close)
        self._write_image("add_figure", tag, pixels, global_step, walltime)

    def add_video(
        self,
        tag: str,
        vid_tensor: Any,
        global_step: int | None = None,
        fps: float = 4,
        walltime: float | None = None,
    ) -> None:
        """Write a batch of videos, `[N, T, C, H, W]`, as one animated GIF (the batch on
        a grid) at `fps` frames per second; uint8 as it is, floats in [0, 1]."""
        op = "add_video"
        tag = self._tag(op, tag)
        videos = as_real_array(op, tag, "vid_tensor", vid_tensor)
        if videos.ndim != 5 or videos.shape[2] not in (1, 3, 4) or 0 in videos.shape:
            raise op_error(
                ValueError,
                op,
                tag,
                "vid_tensor",
                f"expected shape [N, T, C, H, W], C 1, 3 or 4, no empty axis; got {list(videos.shape)}",
            )
        fps = real_number(op, tag, "fps", fps)
        if not MIN_FPS <= fps < math.inf:
            raise op_error(
                ValueError,
                op,
                tag,
                "fps",
                f"expected a finite number of frames per second >= {MIN_FPS:.6f} (a GIF shows a frame "
                f"at most 655.35 s), got {fps!r}",
            )
        frames = snapshot(video_grid(torch_uint8(videos.transpose(0, 1, 3, 4, 2))), vid_tensor)
        self._queue(op, tag, global_step, video_summary, (tag, frames, fps), walltime)

    def add_audio(
        self,
        tag: str,
        snd_tensor: Any,
        global_step: int | None = None,
        sample_rate: int = 44100,
        walltime: float | None = None,
    ) -> None:
        """Write one mono clip of float samples in [-1, 1] as WAV (16-bit, as torch)."""
        tag = self._tag("add_audio", tag)
        samples = torch_pcm_samples("add_audio", tag, snd_tensor)
        args = audio_encoding.prepare(tag, samples, sample_rate, 1, None, None)
        self._queue("add_audio", tag, global_step, audio_encoding.summary, args, walltime)

    def add_text(
        self, tag: str, text_string: str, global_step: int | None = None, walltime: float | None = None
    ) -> None:
        """Write a Markdown string, under the tag `<tag>/text_summary` as torch names it."""
        tag = self._tag("add_text", tag)
        check_text("add_text", tag, "text_string", text_string)
        step = self._step("add_text", tag, global_step)  # errors name the tag as given
        wall_time = check_wall_time("add_text", tag, walltime)
        text_tag = f"{tag}/text_summary"
        args = text_encoding.prepare(text_tag, [text_string], None)
        self._queue("add_text", text_tag, step, text_encoding.summary, args, wall_time)
