"""The Custom Scalars dashboard's layout, written to the default writer's run."""

from __future__ import annotations

from typing import Any

from summarylib.ops.custom_scalars import encoding
from summarylib.writer.context import get_step
from summarylib.writer.queue import queue_summary, recording_writer


def custom_scalars(layout: Any, step: Any = None) -> bool:
    """Write the layout of TensorBoard's Custom Scalars dashboard for this run.

    `layout` is a `summarylib.proto.custom_scalar_pb2.Layout` (or TensorBoard's) or the
    dict torch's `add_custom_scalars` takes:
    `{category: {chart title: ["Multiline", [tag regex, ...]] | ["Margin", [value, lower, upper]]}}`.
    A multi-line chart draws the scalars of several tags on one chart, with no extra
    writers or runs. The dashboard shows the newest layout of each run, merging the
    categories of all runs by title.

    A layout is not a time series: `step` defaults to the default step, else 0 (as torch
    writes it). Returns False when there is no default writer or recording is off.
    """
    writer = recording_writer()
    if writer is None:
        return False
    args = encoding.prepare(layout)
    if step is None:
        step = get_step()
    return queue_summary(
        writer,
        "custom_scalars",
        encoding.CONFIG_SUMMARY_TAG,
        0 if step is None else step,
        encoding.summary,
        args,
    )
