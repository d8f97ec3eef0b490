"""The Custom Scalars dashboard's layout: a serialized `Layout` in a string tensor.

As TensorBoard's `custom_scalar.summary.pb` (and torch's `add_custom_scalars`) write it:
tag `custom_scalars__config__`, a `DT_STRING` tensor of shape [] holding the serialized
Layout, and metadata naming the `custom_scalars` plugin with no content. The dashboard
reads the newest layout of each run and merges the runs' categories by title.

A layout is summarylib's `Layout` proto (categories of multi-line and margin charts),
TensorBoard's (converted through its bytes), or the dict torch's `add_custom_scalars`
takes: `{category: {chart title: ["Multiline", [tag regex, ...]] |
["Margin", [value tag, lower tag, upper tag]]}}`. A multi-line chart draws every scalar
series whose tag matches one of its regular expressions, from every run, on one chart.

Stricter than torch, which writes what the dashboard cannot draw: a chart kind other than
"Multiline" or "Margin" (torch draws any other as multi-line), a multi-line chart without
tags and tags that are not strings are a ValueError or TypeError at the call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from summarylib.ops.errors import check_text, op_error
from summarylib.ops.summary import summary_bytes
from summarylib.proto import custom_scalar_pb2, summary_pb2, tensor_pb2, types_pb2

PLUGIN_NAME = "custom_scalars"
CONFIG_SUMMARY_TAG = "custom_scalars__config__"
CHART_KINDS = ("Multiline", "Margin")
# Full names of the Layout messages accepted as protos: ours and TensorBoard's.
_LAYOUT_NAMES = (custom_scalar_pb2.Layout.DESCRIPTOR.full_name, "tensorboard.Layout")


def create_metadata() -> summary_pb2.SummaryMetadata:
    """The custom_scalars plugin's metadata: the plugin name, no content."""
    metadata = summary_pb2.SummaryMetadata()
    metadata.plugin_data.plugin_name = PLUGIN_NAME
    return metadata


def _error(kind: type[Exception], where: str, problem: str) -> Exception:
    return op_error(kind, "custom_scalars", CONFIG_SUMMARY_TAG, f"layout{where}", problem)


def _text(where: str, text: str) -> str:
    """A title or tag of the layout, checked to be writable as UTF-8."""
    return check_text("custom_scalars", CONFIG_SUMMARY_TAG, f"layout{where}", text)


def _tags(where: str, tags: Any) -> list[str]:
    if isinstance(tags, (str, bytes)) or not isinstance(tags, Sequence):
        raise _error(TypeError, where, f"expected a list of tags, got {type(tags).__name__} {tags!r:.80}")
    for index, tag in enumerate(tags):
        if not isinstance(tag, str):
            raise _error(
                TypeError, f"{where}[{index}]", f"expected a str tag, got {type(tag).__name__} {tag!r}"
            )
        _text(f"{where}[{index}]", tag)
    return list(tags)


def _chart(where: str, title: Any, entry: Any) -> custom_scalar_pb2.Chart:
    """One chart of the dict form: `[kind, tags]`."""
    if not isinstance(title, str):
        raise _error(TypeError, where, f"expected str chart titles, got {type(title).__name__} {title!r}")
    where = f"{where}[{_text(where, title)!r}]"
    if isinstance(entry, (str, bytes)) or not isinstance(entry, Sequence) or len(entry) != 2:
        raise _error(
            ValueError,
            where,
            f'expected ["Multiline", [tags]] or ["Margin", [value, lower, upper]], got {entry!r:.80}',
        )
    kind, tags = entry
    if kind not in CHART_KINDS:
        raise _error(ValueError, f"{where}[0]", f'expected "Multiline" or "Margin", got {kind!r}')
    tags = _tags(f"{where}[1]", tags)
    if kind == "Margin":
        if len(tags) != 3:
            raise _error(ValueError, f"{where}[1]", f"expected 3 tags (value, lower, upper), got {len(tags)}")
        series = custom_scalar_pb2.MarginChartContent.Series(value=tags[0], lower=tags[1], upper=tags[2])
        return custom_scalar_pb2.Chart(
            title=title, margin=custom_scalar_pb2.MarginChartContent(series=[series])
        )
    if not tags:
        raise _error(ValueError, f"{where}[1]", "expected at least one tag, got none")
    return custom_scalar_pb2.Chart(title=title, multiline=custom_scalar_pb2.MultilineChartContent(tag=tags))


def _from_dict(layout: Mapping) -> custom_scalar_pb2.Layout:
    result = custom_scalar_pb2.Layout()
    for title, charts in layout.items():
        if not isinstance(title, str):
            raise _error(TypeError, "", f"expected str category titles, got {type(title).__name__} {title!r}")
        _text("", title)
        if not isinstance(charts, Mapping):
            raise _error(
                TypeError,
                f"[{title!r}]",
                f"expected a dict of chart titles to charts, got {type(charts).__name__}",
            )
        category = result.category.add(title=title)
        for chart_title, entry in charts.items():
            category.chart.append(_chart(f"[{title!r}]", chart_title, entry))
    return result


def layout_bytes(layout: Any) -> bytes:
    """`layout` (a Layout proto, ours or TensorBoard's, or torch's dict form) serialized as
    our Layout; TypeError or ValueError naming the part that is wrong."""
    if isinstance(layout, Mapping):
        return _from_dict(layout).SerializeToString()
    descriptor = getattr(layout, "DESCRIPTOR", None)
    if getattr(descriptor, "full_name", None) in _LAYOUT_NAMES:  # same fields, same bytes
        return layout.SerializeToString()
    raise _error(
        TypeError,
        "",
        f"expected a summarylib Layout proto or a dict {{category: {{title: [kind, tags]}}}}, "
        f"got {type(layout).__name__}",
    )


def prepare(layout: Any) -> tuple[bytes]:
    """Validate and serialize the layout on the caller's thread (the serialized bytes are
    the snapshot); the arguments of `summary`."""
    return (layout_bytes(layout),)


def layout_tensor(serialized_layout: bytes) -> tensor_pb2.TensorProto:
    """The `DT_STRING` tensor of shape [] holding a serialized Layout."""
    return tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, tensor_shape={}, string_val=[serialized_layout])


def summary(serialized_layout: bytes) -> bytes:
    """The serialized Summary of a prepared layout (on the writer's thread)."""
    return summary_bytes(CONFIG_SUMMARY_TAG, layout_tensor(serialized_layout), create_metadata())


def encode(layout: Any) -> tuple[tensor_pb2.TensorProto, summary_pb2.SummaryMetadata]:
    """The tensor and metadata `custom_scalars(layout)` writes under `CONFIG_SUMMARY_TAG`,
    without I/O."""
    (serialized,) = prepare(layout)
    return layout_tensor(serialized), create_metadata()
