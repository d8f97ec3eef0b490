"""tensorboardX 2.6's `SummaryWriter` on summarylib: torch's writer
(`summarylib.compat.torch.SummaryWriter`) with tensorboardX's API where it differs.

What differs from the torch-shaped writer, as tensorboardX has it:
- The constructor: `logdir` first, `write_to_disk=False` (a dry run: every method checks
  its arguments and returns, nothing is written or created), `log_dir=` as an alias,
  `comet_config=` (accepted; anything but Comet disabled gives one warning: summarylib
  sends nothing to Comet), the `logdir` attribute.
- `add_hparams(hparam_dict, metric_dict, name=None, global_step=None)`: the session goes
  to the run `<logdir>/<name>`, or `<logdir>/<time.time()>` without a name, as
  tensorboardX writes it (never this writer's own run).
- `add_scalar(..., display_name="", summary_description="")`: written into the value's
  metadata, which TensorBoard shows as the chart's title and description.
- `add_images` takes a list of CHW (or, with `dataformats="HWC"`, HWC) images;
  `add_video(..., dataformats="NTCHW")` any permutation of NTCHW;
  `add_image_with_boxes(tag, img, boxes, global_step, walltime, dataformats, labels,
  rescale=1)` in tensorboardX's order.
- `use_metadata(global_step=, walltime=)`: the step and wall time of the enclosed calls
  that give none.
- Tags of scalars, histograms, images, figures and videos are cleaned as tensorboardX
  cleans them (`roc auc` -> `roc_auc`; see `SummaryWriter._tag`). The run directory of an
  `add_scalars` series is named by the cleaned main tag too, where tensorboardX keeps
  the raw one (they differ only for main tags with such characters).
- `add_audio` takes `[frames]` or `[frames, channels]` clips, mono or stereo, and writes
  the 16-bit samples tensorboardX's soundfile writes (rounded; torch truncates).
- `add_mesh` writes tensorboardX's one event of `<tag>_1`, `_2`, `_3` values (see
  `summarylib.compat.tensorboardx_mesh`); a graph's step stats are tagged "profiler".
- `export_scalars_to_json(path)`: see `summarylib.compat.tensorboardx_export`.
- `add_openvino_graph(xmlname)`: the graph tensorboardX reads from an OpenVINO IR file
  (see `summarylib.compat.openvino_graph`).

Left out: `add_onnx_graph` (it needs onnx to parse the model file) raises
NotImplementedError naming itself.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from summarylib.compat.openvino_graph import openvino_graph_def
from summarylib.compat.tensorboardx_export import export_scalars
from summarylib.compat.tensorboardx_mesh import mesh_summary
from summarylib.compat.torch.checks import check_tag, check_text
from summarylib.compat.torch.errors import tensorboardx_converts, with_replaced_writers_errors
from summarylib.compat.torch.media import tensorboardx_pcm_samples
from summarylib.compat.torch.scalars import ScalarMethods, checked_series_run
from summarylib.compat.torch.writer import SummaryWriter as TorchSummaryWriter
from summarylib.ops.convert import as_real_array
from summarylib.ops.errors import op_error
from summarylib.ops.graph.encoding import graph_event
from summarylib.proto import summary_pb2

_COMET_DISABLED = {"disabled": True}
_VIDEO_AXES = "NTCHW"
_torch_add_scalar = ScalarMethods.add_scalar
_NO_TEXT = ""  # add_scalar's defaults, told apart by identity (one `is` each per call)
# What tensorboardX replaces in the tags of the methods it cleans them in.
_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w.]")
_CLEANED_TAGS = frozenset(
    ("add_scalar", "add_scalars", "add_histogram", "add_image", "add_images", "add_figure", "add_video")
)


@with_replaced_writers_errors
class SummaryWriter(TorchSummaryWriter):
    """tensorboardX's `SummaryWriter`: change `from tensorboardX import SummaryWriter` to
    `from summarylib.compat.tensorboardX import SummaryWriter`. torch's writer where the two
    agree; tensorboardX's signatures and behaviour where they differ (see the module
    docstring)."""

    # The methods marked `type: ignore[override]` take tensorboardX's arguments, which differ
    # from torch's (order, names): the two libraries' signatures, not a slip of this class.

    _converts = staticmethod(tensorboardx_converts)  # its make_np takes lists too
    _step_stats_tag = "profiler"  # the tag of a graph's step stats

    def __init__(
        self,
        logdir: str | os.PathLike | None = None,
        comment: str | None = "",
        purge_step: int | None = None,
        max_queue: int | None = 10,
        flush_secs: float = 120,
        filename_suffix: str | None = "",
        write_to_disk: bool | None = True,
        log_dir: str | os.PathLike | None = None,
        comet_config: dict | None = _COMET_DISABLED,
        **kwargs: Any,
    ) -> None:
        ranks = kwargs.pop("ranks", None)  # summarylib's: which ranks of a job write
        if kwargs:
            raise TypeError(
                f"summarylib.SummaryWriter: unexpected keyword argument(s) {sorted(kwargs)!r} "
                "(tensorboardX passes them to its FileWriter, which takes none)"
            )
        if comet_config != _COMET_DISABLED:
            warnings.warn(
                "summarylib.SummaryWriter: argument 'comet_config': ignored (nothing is sent to Comet)",
                UserWarning,
                stacklevel=2,
            )
        self._write_to_disk = bool(write_to_disk)
        self._in_metadata_block = False  # inside use_metadata: add_scalar takes the general path
        self._exported: dict[str, int] = {}  # add_scalars series: values exported so far
        super().__init__(
            logdir if logdir is not None else log_dir,
            comment or "",
            purge_step,
            max_queue,
            flush_secs,
            filename_suffix or "",
            ranks=ranks,
        )

    @property
    def logdir(self) -> str:
        """The run's directory (tensorboardX's name for `log_dir`)."""
        return self.log_dir

    def _tag(self, op: str, tag: Any) -> str:
        r"""`tag` checked as torch's writer checks it, and cleaned as tensorboardX cleans
        the tags of its scalar, histogram, image and video summaries: every character
        outside `[-/\w.]` becomes `_` and leading slashes go (`roc auc` -> `roc_auc`,
        `/loss` -> `loss`), so a run switched from tensorboardX keeps its tag names. Only
        tags that need no cleaning join the cache the fast paths look in, so a tag that
        does is cleaned at every call, whichever method it comes through."""
        if type(tag) is str and not _INVALID_TAG_CHARACTERS.search(tag) and not tag.startswith("/"):
            return super()._tag(op, tag)
        check_tag(op, tag)
        if op not in _CLEANED_TAGS:
            return tag
        return _INVALID_TAG_CHARACTERS.sub("_", tag).lstrip("/")

    def _open(self) -> Any:
        """The run's writer; with `write_to_disk=False`, one that writes nothing, as the
        ranks of a distributed job that do not write get."""
        if not self._write_to_disk:
            self._writes = False
        return super()._open()

    def add_hparams(  # type: ignore[override]
        self,
        hparam_dict: dict[str, Any],
        metric_dict: dict[str, Any],
        name: str | None = None,
        global_step: int | None = None,
    ) -> None:
        """Write one HParams session into the run `<logdir>/<name>` (default: the time,
        `str(time.time())`), as tensorboardX does."""
        self._add_tensorboardx_hparams(hparam_dict, metric_dict, name, global_step)

    def add_scalar(  # type: ignore[override]
        self,
        tag: str,
        scalar_value: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        display_name: str | None = _NO_TEXT,
        summary_description: str | None = _NO_TEXT,
    ) -> None:
        """Write one scalar (torch's `simple_value` event); a `display_name` or
        `summary_description` goes into the value's metadata, as tensorboardX writes it."""
        if display_name is _NO_TEXT and summary_description is _NO_TEXT and not self._in_metadata_block:
            # The common path, torch's event; any other "" takes the general path, same event.
            return _torch_add_scalar(self, tag, scalar_value, global_step, walltime)
        tag = self._tag("add_scalar", tag)
        value = self._scalar("add_scalar", tag, scalar_value)
        display_name = check_text("add_scalar", tag, "display_name", display_name)
        summary_description = check_text("add_scalar", tag, "summary_description", summary_description)
        global_step = self._step("add_scalar", tag, global_step)  # errors name add_scalar, not add_summary
        walltime = self._wall_time("add_scalar", tag, walltime)
        summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, simple_value=value)])
        if display_name or summary_description:
            metadata = summary.value[0].metadata
            metadata.display_name, metadata.summary_description = display_name, summary_description
        self.add_summary(summary, global_step, walltime)

    def add_scalars(
        self,
        main_tag: str,
        tag_scalar_dict: dict[str, Any],
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """torch's `add_scalars` (each series a run beside this one), remembering the
        series' runs for `export_scalars_to_json`."""
        super().add_scalars(main_tag, tag_scalar_dict, global_step, walltime)
        if self._write_to_disk:
            for name in tag_scalar_dict:
                self._exported.setdefault(self._series_logdir(main_tag, name), 0)

    def _series_logdir(self, main_tag: str, name: Any) -> str:
        """The run of `add_scalars` series `name` of `main_tag`, as tensorboardX names it:
        `<logdir>/<main_tag>/<name>` (torch's writer joins them with '_'), checked to stay
        inside the log dir."""
        return f"{self.log_dir}/{checked_series_run(main_tag, name, '/')}"

    def export_scalars_to_json(self, path: str) -> None:
        """Write the `add_scalars` values logged since the last export to `path`, as
        tensorboardX does: `{series run directory: [[walltime, step, value], ...]}`. The
        values are read back from the series' event files, not kept in memory."""
        self.flush()
        export_scalars(path, self._exported)

    def add_images(
        self,
        tag: str,
        img_tensor: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        dataformats: str = "NCHW",
    ) -> None:
        """Write a batch of images as one grid image: an `[N, C, H, W]` array (any
        `dataformats`), or a list of `[C, H, W]` images (`dataformats` "CHW" or "HWC"; the
        default "NCHW" takes the list as its N axis, where tensorboardX writes nothing)."""
        if isinstance(img_tensor, list):
            tag = self._tag("add_images", tag)
            layout = dataformats.upper().removeprefix("N") if isinstance(dataformats, str) else None
            if layout not in ("CHW", "HWC"):
                raise op_error(
                    ValueError,
                    "add_images",
                    tag,
                    "dataformats",
                    f"expected 'CHW' or 'HWC' ('NCHW', 'NHWC') for a list of images, got {dataformats!r:.40}",
                )
            images = [as_real_array("add_images", tag, "img_tensor", image) for image in img_tensor]
            if not images or len({image.shape for image in images}) != 1:
                raise op_error(
                    ValueError,
                    "add_images",
                    tag,
                    "img_tensor",
                    f"expected a non-empty list of images of one shape, got shapes "
                    f"{[list(image.shape) for image in images][:8]}",
                )
            img_tensor, dataformats = np.stack(images), "N" + layout
        super().add_images(tag, img_tensor, global_step, walltime, dataformats)

    def add_video(
        self,
        tag: str,
        vid_tensor: Any,
        global_step: int | None = None,
        fps: float = 4,
        walltime: float | None = None,
        dataformats: str = "NTCHW",
    ) -> None:
        """Write a batch of videos as one animated GIF; `dataformats` any order of the axes
        N, T, C, H, W (tensorboardX's)."""
        tag = self._tag("add_video", tag)
        if dataformats != _VIDEO_AXES:
            if not isinstance(dataformats, str) or sorted(dataformats.upper()) != sorted(_VIDEO_AXES):
                raise op_error(
                    ValueError,
                    "add_video",
                    tag,
                    "dataformats",
                    f"expected an order of the 5 axes N, T, C, H, W such as 'NTHWC', got {dataformats!r:.40}",
                )
            videos = as_real_array("add_video", tag, "vid_tensor", vid_tensor)
            if videos.ndim != 5:
                raise op_error(
                    ValueError,
                    "add_video",
                    tag,
                    "vid_tensor",
                    f"expected 5 axes ({dataformats}), got shape {list(videos.shape)}",
                )
            vid_tensor = videos.transpose([dataformats.upper().index(axis) for axis in _VIDEO_AXES])
        super().add_video(tag, vid_tensor, global_step, fps, walltime)

    def add_image_with_boxes(  # type: ignore[override]
        self,
        tag: str,
        img_tensor: Any,
        box_tensor: Any,
        global_step: int | None = None,
        walltime: float | None = None,
        dataformats: str = "CHW",
        labels: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        """torch's `add_image_with_boxes` in tensorboardX's order: `dataformats` sixth,
        `rescale` by keyword (tensorboardX's `**kwargs`, which it passes on as `rescale`)."""
        rescale = kwargs.pop("rescale", 1)
        if kwargs:
            raise TypeError(
                f"summarylib.add_image_with_boxes: unexpected keyword argument(s) {sorted(kwargs)!r}"
            )
        super().add_image_with_boxes(
            tag, img_tensor, box_tensor, global_step, walltime, rescale, dataformats, labels
        )

    def add_audio(
        self,
        tag: str,
        snd_tensor: Any,
        global_step: int | None = None,
        sample_rate: int = 44100,
        walltime: float | None = None,
    ) -> None:
        """Write one clip of float samples in [-1, 1], `[frames]` or `[frames, channels]`
        with 1 or 2 channels (stereo), as a 16-bit WAV of the samples tensorboardX writes
        (see `summarylib.compat.torch.media.tensorboardx_pcm_samples`)."""
        tag = self._tag("add_audio", tag)
        samples = tensorboardx_pcm_samples("add_audio", tag, snd_tensor)
        self._write_audio("add_audio", tag, samples, sample_rate, global_step, walltime)

    @contextlib.contextmanager
    def use_metadata(self, *, global_step: int | None = None, walltime: float | None = None) -> Iterator[Any]:
        """Inside the block, calls that give no `global_step` (or `walltime`) get these."""
        if self._in_metadata_block:
            raise op_error(
                ValueError,
                "use_metadata",
                None,
                "global_step",
                "expected no enclosing use_metadata block, got one",
            )
        if global_step is None and walltime is None:
            raise op_error(
                ValueError,
                "use_metadata",
                None,
                "global_step",
                "expected global_step or walltime, got neither",
            )
        step = None if global_step is None else self._step("use_metadata", None, global_step)  # type: ignore[arg-type]
        wall_time = None if walltime is None else self._wall_time("use_metadata", None, walltime)
        self._in_metadata_block = True
        # The defaults shadow the class's helpers on this instance only while the block
        # runs, so calls outside it pay nothing.
        class_step, class_wall_time, class_queue = type(self)._step, self._wall_time, self._queue
        shadows = {
            "_step": lambda op, tag, given: class_step(op, tag, step if given is None else given),
            "_wall_time": lambda op, tag, given: class_wall_time(
                op, tag, wall_time if given is None else given
            ),
            "_queue": lambda op, tag, given_step, make, args, given_time: class_queue(
                op, tag, given_step, make, args, wall_time if given_time is None else given_time
            ),
        }
        vars(self).update(shadows)  # instance attributes, found before the class's methods
        try:
            yield self
        finally:
            for name in shadows:
                delattr(self, name)
            self._in_metadata_block = False

    def _queue_mesh(
        self, tag: str, parts: list, configured: bool, global_step: Any, walltime: float | None
    ) -> None:
        """Queue `add_mesh`'s prepared parts as tensorboardX writes them: one event of
        `<tag>_1`, `_2`, `_3` values (see `tensorboardx_mesh`)."""
        self._queue("add_mesh", tag, global_step, mesh_summary, (tag, parts, configured), walltime)

    def add_onnx_graph(self, onnx_model_file: Any) -> None:
        """tensorboardX's ONNX graph import: not supported."""
        raise NotImplementedError(
            "summarylib.compat.tensorboardX.SummaryWriter.add_onnx_graph is not supported: it needs onnx "
            "to parse the model file; log the PyTorch model with add_graph(model, input_to_model) instead."
        )

    def add_openvino_graph(self, xmlname: Any) -> None:
        """Write the graph of the OpenVINO IR model `xmlname` (its .xml file) for the
        graphs dashboard, as tensorboardX reads it: a node per edge (see
        `summarylib.compat.openvino_graph`). The file is read at the call."""
        data = openvino_graph_def(xmlname)
        self._writer.submit(graph_event, (data,), time.time(), 0, len(data))
