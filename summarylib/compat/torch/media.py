"""torch's media methods: images (with `dataformats`, boxes, matplotlib figures), video,
audio and text.

Images, figures and videos are written as torch and tensorboardX write them: one TF 1.x
`Summary.Image` value under the tag as given, with no metadata, holding a PNG of the one
picture torch draws (a batch as a grid, gray as RGB, torch's scaling: see `dataformats`)
or, for a video, an animated GIF (written with pillow: torch needs moviepy, and without
it writes an empty value). Audio is a `Summary.Audio` value holding a 16-bit WAV of the
samples torch writes (mono, `x * 32767` truncated) or, for compat.tensorboardX, those
tensorboardX writes (mono or stereo, as soundfile converts them). So readers of their
files (TensorBoard's `EventAccumulator.Images()` / `.Audio()`, DataFrame loaders) find
ours where they find theirs. The values are built by `summarylib.compat.legacy_values` on
the writer's thread. Text is the text op's string tensor under `<tag>/text_summary`, as
torch names it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from summarylib.checks import check_flag, real_number
from summarylib.compat.legacy_values import png_entry, wav_entry
from summarylib.compat.torch.checks import check_text, check_wall_time
from summarylib.compat.torch.core import WriterCore
from summarylib.compat.torch.dataformats import to_hwc, torch_uint8
from summarylib.compat.torch.rendering import draw_boxes, figure_pixels, is_figure, video_grid, video_summary
from summarylib.ops.audio import encoding as audio_encoding
from summarylib.ops.convert import as_real_array, snapshot
from summarylib.ops.errors import op_error
from summarylib.ops.text import encoding as text_encoding
from summarylib.writer.context import warn_user

MIN_FPS = 1 / 655.35  # a GIF frame's delay is at most 65535 hundredths of a second
MAX_RESCALED_PIXELS = 1 << 26  # add_image_with_boxes enlarges to at most 64 Mpx
_PCM_MAX = 32767  # torch scales samples by int16's max
_PCM_SCALE = np.float32(32768)  # the audio op's scale
# soundfile (libsndfile, clipping on) scales floats to 32 bits and keeps the top 16.
_SOUNDFILE_SCALE = 2.0**31
_SOUNDFILE_SHIFT = 2.0**16


def boxed_image_summary(
    tag: str, pixels: np.ndarray, boxes: np.ndarray, labels: list[str] | None, rescale: float
) -> bytes:
    """The serialized Summary of `pixels` with `boxes` drawn on them (on the writer's
    thread): its `Summary.Image` states the size before rescaling, as torch's does."""
    return png_entry(tag, draw_boxes(pixels, boxes, labels, rescale), pixels.shape[:2])


def audio_summary(tag: str, clips: np.ndarray, sample_rate: int) -> bytes:
    """The serialized Summary of the one prepared `[1, t, c]` clip (on the writer's thread)."""
    return wav_entry(tag, clips[0], sample_rate)


def float_samples(op: str, tag: str, data: Any) -> np.ndarray:
    """`snd_tensor` as an array of float samples (torch's and tensorboardX's scale, [-1, 1])."""
    samples = as_real_array(op, tag, "snd_tensor", data)
    if samples.dtype.kind != "f":
        raise op_error(
            TypeError, op, tag, "snd_tensor", f"expected float samples in [-1, 1], got dtype {samples.dtype}"
        )
    return samples


def clipped(op: str, tag: str, samples: np.ndarray) -> np.ndarray:
    """`samples`, or, when some are outside [-1, 1] or NaN, a copy clipped to [-1, 1] with
    NaN as 0 and a warning (torch and tensorboardX clip and print one)."""
    if samples.size and not np.abs(samples).max() <= 1:
        warn_user(f"summarylib.{op}: tag {tag!r}: samples outside [-1, 1] (or NaN) clipped")
        samples = np.nan_to_num(samples.clip(-1, 1))
    return samples


def as_pcm_floats(pcm: np.ndarray) -> np.ndarray:
    """Whole 16-bit sample values as the float32 samples the audio op writes as those
    values: multiples of 1/32768 are exact in float32, and the op's rounding of
    `x * 32768` gives the integers back."""
    return pcm.astype(np.float32) / _PCM_SCALE


def torch_pcm_samples(op: str, tag: str, data: Any) -> np.ndarray:
    """Mono samples as `[t, 1]` float32 that the audio op writes as the 16-bit values
    torch writes: clipped to [-1, 1] (with a warning), times 32767, truncated."""
    samples = float_samples(op, tag, data).squeeze()
    if samples.ndim != 1:
        raise op_error(
            ValueError,
            op,
            tag,
            "snd_tensor",
            f"expected one mono clip (shape [t], or [1, t] and the like), got shape {list(samples.shape)}",
        )
    samples = clipped(op, tag, samples)
    return as_pcm_floats(np.trunc(samples * samples.dtype.type(_PCM_MAX)))[:, np.newaxis]


def tensorboardx_pcm_samples(op: str, tag: str, data: Any) -> np.ndarray:
    """`[t]` or `[t, c]` samples (c: 1, or 2 for stereo) as `[t, c]` float32 that the
    audio op writes as the 16-bit values tensorboardX writes: clipped to [-1, 1] (with a
    warning), then converted as its `soundfile.write` converts them (libsndfile 1.1+
    with clipping on, as soundfile sets it): times 2**31 in the samples' own float type
    (float16 as float32: soundfile takes no float16), rounded to nearest (ties to even),
    the top 16 bits kept (floor of / 2**16), 1.0 written as 32767."""
    samples = float_samples(op, tag, data)
    if samples.ndim == 1:
        samples = samples[:, np.newaxis]
    if samples.ndim != 2 or samples.shape[1] not in (1, 2):
        raise op_error(
            ValueError,
            op,
            tag,
            "snd_tensor",
            f"expected [frames] or [frames, channels] with 1 or 2 channels (mono, stereo), got shape "
            f"{list(samples.shape)}",
        )
    samples = clipped(op, tag, samples)
    if samples.dtype.itemsize < 4:
        samples = samples.astype(np.float32)
    kind = samples.dtype.type
    pcm = np.floor(np.rint(samples * kind(_SOUNDFILE_SCALE)) / kind(_SOUNDFILE_SHIFT))
    return as_pcm_floats(np.minimum(pcm, _PCM_MAX))


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

    def _write_image(
        self, op: str, tag: str, argument: str, pixels: np.ndarray, global_step: Any, walltime: Any
    ) -> None:
        """Queue the `Summary.Image` of `[h, w, c]` uint8 `pixels`, which the caller can no
        longer change (a snapshot, or an array made here)."""
        if not pixels.shape[0] * pixels.shape[1]:
            raise op_error(
                ValueError,
                op,
                tag,
                argument,
                f"cannot write an image with no pixels (PNG cannot hold one), got {pixels.shape[0]}x"
                f"{pixels.shape[1]} pixels",
            )
        self._queue(op, tag, global_step, png_entry, (tag, pixels), walltime)

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
        pixels = snapshot(to_hwc("add_image", tag, "img_tensor", img_tensor, dataformats), img_tensor)
        self._write_image("add_image", tag, "img_tensor", pixels, global_step, walltime)

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
        pixels = snapshot(to_hwc("add_images", tag, "img_tensor", img_tensor, dataformats), img_tensor)
        self._write_image("add_images", tag, "img_tensor", pixels, global_step, walltime)

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
        self._write_image(
            "add_figure", tag, "figure", pixels, global_step, walltime
        )  # drawn here: no snapshot

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
        self._write_audio(
            "add_audio",
            tag,
            torch_pcm_samples("add_audio", tag, snd_tensor),
            sample_rate,
            global_step,
            walltime,
        )

    def _write_audio(
        self, op: str, tag: str, samples: np.ndarray, sample_rate: Any, global_step: Any, walltime: Any
    ) -> None:
        """Queue the `Summary.Audio` of a `[t, c]` clip (`sample_rate` checked here)."""
        _, clips, rate, _ = audio_encoding.prepare(tag, samples, sample_rate, 1, None, None)
        self._queue(op, tag, global_step, audio_summary, (tag, clips, rate), walltime)

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
