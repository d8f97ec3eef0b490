"""torch's methods for the dashboards beyond the core kinds: graph, embedding projector,
PR curves, custom scalars and meshes, each through the op layer's encoder for its kind.

Differences from torch, on purpose:
- `add_graph` records the model with `summarylib.integrations.torch.trace_graph` (a
  forward pass under a torch function mode, no TorchScript): `use_strict_trace` has
  nothing to switch, and no `RunMetadata` ("step1" step stats) is written beside it.
- `add_pr_curve` keeps `num_thresholds` as given (torch silently caps it at 127) and
  checks its inputs (labels 0/1, predictions in [0, 1]) at the call.
- `add_pr_curve_raw` writes the number of columns of its data as the curve's
  `num_thresholds` (torch writes the argument, which may contradict the data; TensorBoard
  draws the data's columns either way).
- `add_embedding` takes uint8 label images as they are (torch multiplies them by 255 too).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from summarylib.checks import check_flag
from summarylib.compat.torch.core import WriterCore
from summarylib.compat.torch.dataformats import torch_uint8
from summarylib.compat.torch.file_writer import RUN_METADATA_TAG
from summarylib.compat.torch.tensor_fields import torch_layout
from summarylib.ops.convert import as_real_array
from summarylib.ops.custom_scalars import encoding as custom_scalars_encoding
from summarylib.ops.embedding import encoding as embedding_encoding
from summarylib.ops.embedding.op import write_files
from summarylib.ops.errors import op_error
from summarylib.ops.graph.encoding import graph_def_bytes, graph_event
from summarylib.ops.mesh import encoding as mesh_encoding
from summarylib.ops.pr_curve import encoding as pr_curve_encoding
from summarylib.ops.tensor import encoding as tensor_encoding
from summarylib.proto import event_pb2
from summarylib.writer.queue import queue_task

TORCH_NUM_THRESHOLDS = 127
_PR_ROWS = ("true_positive_counts", "false_positive_counts", "true_negative_counts", "false_negative_counts")


def _model_inputs(input_to_model: Any) -> tuple:
    """The positional arguments of the traced call, as `torch.jit.trace` unpacks them:
    a tuple or list is the arguments, anything else the one argument."""
    if input_to_model is None:
        return ()
    if isinstance(input_to_model, (tuple, list)):
        return tuple(input_to_model)
    return (input_to_model,)


def _label_images(tag: str, label_img: Any) -> np.ndarray | None:
    """torch's `[N, C, H, W]` label images as `[N, H, W, C]` uint8 (torch's scaling)."""
    if label_img is None:
        return None
    images = as_real_array("add_embedding", tag, "label_img", label_img)
    if images.ndim != 4:
        raise op_error(
            ValueError,
            "add_embedding",
            tag,
            "label_img",
            f"expected shape [N, C, H, W], got {list(images.shape)}",
        )
    return torch_uint8(images.transpose(0, 2, 3, 1))


def _tag_list(op: str, title: Any, tags: Any) -> list[str]:
    """The tags (or tag regexes) of one custom-scalars chart: a list or tuple of str."""
    if not isinstance(tags, (list, tuple)) or not all(isinstance(tag, str) for tag in tags):
        raise op_error(TypeError, op, title, "tags", f"expected a list of str, got {tags!r:.80}")
    return list(tags)


# torch's add_graph writes, after the graph, the step stats of one CPU device (an empty
# RunMetadata{step_stats{dev_stats{device: "/device:CPU:0"}}}) tagged "step1".
CPU_STEP_STATS = b"\n\x11\n\x0f\n\r/device:CPU:0"


class DashboardMethods(WriterCore):
    """Graph, embedding, PR-curve, custom-scalars and mesh methods of torch's writer."""

    _step_stats_tag = RUN_METADATA_TAG  # the tag of a graph's step stats (tensorboardX: "profiler")

    def add_graph(
        self, model: Any, input_to_model: Any = None, verbose: bool = False, use_strict_trace: bool = True
    ) -> None:
        """Run `model` once on `input_to_model` (a tensor, or a tuple or list of the
        arguments) and write its graph for the graphs dashboard; `verbose` prints it."""
        from summarylib.integrations.torch import trace_graph

        verbose = check_flag("add_graph", None, "verbose", verbose)
        check_flag("add_graph", None, "use_strict_trace", use_strict_trace)
        graph_def = trace_graph(model, *_model_inputs(input_to_model))
        if verbose:
            print(graph_def)
        data = graph_def_bytes(graph_def, "add_graph")
        self._writer.submit(graph_event, (data,), time.time(), 0, len(data))
        tagged = event_pb2.TaggedRunMetadata(tag=self._step_stats_tag, run_metadata=CPU_STEP_STATS)
        self.add_event(event_pb2.Event(tagged_run_metadata=tagged))

    def add_embedding(
        self,
        mat: Any,
        metadata: Any = None,
        label_img: Any = None,
        global_step: int | None = None,
        tag: str = "default",
        metadata_header: Any = None,
    ) -> None:
        """Write an `[N, D]` embedding for the projector (files in `<log_dir>/<step,
        5 digits>/<tag>/`, listed in `projector_config.pbtxt`), with a label per row
        (`metadata`, columns named by `metadata_header`) and `[N, C, H, W]` images."""
        tag = self._tag("add_embedding", tag)
        images = _label_images(tag, label_img)
        _, matrix, lines, sprite_images = embedding_encoding.prepare(
            tag, mat, metadata, metadata_header, images
        )
        step = self._step("add_embedding", tag, global_step)
        queue_task(self._writer, step, write_files, (self.log_dir, tag, matrix, lines, sprite_images))

    def add_pr_curve(
        self,
        tag: str,
        labels: Any,
        predictions: Any,
        global_step: int | None = None,
        num_thresholds: int = TORCH_NUM_THRESHOLDS,
        weights: Any = None,
        walltime: float | None = None,
    ) -> None:
        """Write a precision-recall curve of 0/1 `labels` and `predictions` in [0, 1]."""
        tag = self._tag("add_pr_curve", tag)
        args = pr_curve_encoding.prepare(tag, labels, predictions, num_thresholds, weights, None)
        self._queue(
            "add_pr_curve", tag, global_step, torch_layout, (pr_curve_encoding.summary, args), walltime
        )

    def add_pr_curve_raw(
        self,
        tag: str,
        true_positive_counts: Any,
        false_positive_counts: Any,
        true_negative_counts: Any,
        false_negative_counts: Any,
        precision: Any,
        recall: Any,
        global_step: int | None = None,
        num_thresholds: int = TORCH_NUM_THRESHOLDS,
        weights: Any = None,
        walltime: float | None = None,
    ) -> None:
        """Write a precision-recall curve given as its six rows, one value per threshold
        (`num_thresholds` and `weights` are accepted for torch's signature; the curve's
        thresholds are its columns)."""
        tag = self._tag("add_pr_curve_raw", tag)
        given = (true_positive_counts, false_positive_counts, true_negative_counts, false_negative_counts)
        rows = [
            as_real_array("add_pr_curve_raw", tag, name, value).reshape(-1)
            for name, value in zip(
                (*_PR_ROWS, "precision", "recall"), (*given, precision, recall), strict=True
            )
        ]
        if len({row.size for row in rows}) != 1 or rows[0].size < 1:
            raise op_error(
                ValueError,
                "add_pr_curve_raw",
                tag,
                "true_positive_counts",
                f"expected six rows of one equal, non-zero length, got lengths {[row.size for row in rows]}",
            )
        data = np.stack(rows).astype(np.float32)
        metadata = pr_curve_encoding.create_metadata(data.shape[1]).SerializeToString()
        args = (tensor_encoding.summary, (tag, data, metadata))
        self._queue("add_pr_curve_raw", tag, global_step, torch_layout, args, walltime)

    def add_custom_scalars(self, layout: Any) -> None:
        """Write the Custom Scalars dashboard's layout of this run: `{category: {chart
        title: ["Multiline", [tag regex, ...]] | ["Margin", [value, lower, upper]]}}`."""
        args = custom_scalars_encoding.prepare(layout)
        tag = custom_scalars_encoding.CONFIG_SUMMARY_TAG
        self._queue("add_custom_scalars", tag, 0, custom_scalars_encoding.summary, args, None)

    def add_custom_scalars_multilinechart(
        self, tags: list[str], category: str = "default", title: str = "untitled"
    ) -> None:
        """A layout of one chart drawing the scalars of `tags` together."""
        tags = _tag_list("add_custom_scalars_multilinechart", title, tags)
        self.add_custom_scalars({category: {title: ["Multiline", tags]}})

    def add_custom_scalars_marginchart(
        self, tags: list[str], category: str = "default", title: str = "untitled"
    ) -> None:
        """A layout of one chart drawing `tags[0]` between `tags[1]` and `tags[2]`."""
        tags = _tag_list("add_custom_scalars_marginchart", title, tags)
        if len(tags) != 3:
            raise op_error(
                ValueError,
                "add_custom_scalars_marginchart",
                title,
                "tags",
                f"expected 3 tags (value, lower, upper), got {len(tags)}",
            )
        self.add_custom_scalars({category: {title: ["Margin", tags]}})

    def add_mesh(
        self,
        tag: str,
        vertices: Any,
        colors: Any = None,
        faces: Any = None,
        config_dict: dict | None = None,
        global_step: int | None = None,
        walltime: float | None = None,
    ) -> None:
        """Write a mesh (`[B, N, 3]` vertices, `[B, F, 3]` faces, `[B, N, 3]` colors 0 to
        255) or, without faces, a point cloud for the mesh dashboard."""
        tag = self._tag("add_mesh", tag)
        parts = mesh_encoding.prepare(tag, vertices, faces, colors, config_dict, None)
        self._queue_mesh(tag, parts, config_dict is not None, global_step, walltime)

    def _queue_mesh(
        self, tag: str, parts: list, configured: bool, global_step: Any, walltime: float | None
    ) -> None:
        """Queue the prepared mesh `parts` as torch writes them: an event a component, all
        float32 (tensorboardX's writer writes its own record here)."""
        for part in parts:
            args = (mesh_encoding.summary, part, True)
            self._queue("add_mesh", tag, global_step, torch_layout, args, walltime)
