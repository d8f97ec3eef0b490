"""tbparse's raw view of one event file: `raw_tags` and `raw_events`, the tags and events an
`EventAccumulator` holds, as frozen dataclasses of its names and fields, without TensorBoard.

The events are `ScalarEvent(wall_time, step, value)`, `TensorEvent(wall_time, step,
tensor_proto)`, `HistogramEvent(wall_time, step, histogram_value)` with a `HistogramValue(min,
max, num, sum, sum_squares, bucket_limit, bucket)`, `ImageEvent(wall_time, step,
encoded_image_string, width, height)` and `AudioEvent(wall_time, step, encoded_audio_string,
content_type, sample_rate, length_frames)`; protos are summarylib's own classes (same fields).
Read with the reader's record layer (`iter_events`), all at once: the raw view is for looking
at one file, as in tbparse, which also reloads the file for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from summarylib.format.storage import StorageOptions
from summarylib.proto import histogram_pb2, summary_pb2, tensor_pb2
from summarylib.reading.file_scan import iter_events
from summarylib.reading.tbparse_files import KIND_OF_FIELD


@dataclass(frozen=True)
class ScalarEvent:
    wall_time: float
    step: int
    value: float


@dataclass(frozen=True)
class TensorEvent:
    wall_time: float
    step: int
    tensor_proto: tensor_pb2.TensorProto


@dataclass(frozen=True)
class HistogramValue:
    min: float
    max: float
    num: float
    sum: float
    sum_squares: float
    bucket_limit: list[float]
    bucket: list[float]


@dataclass(frozen=True)
class HistogramEvent:
    wall_time: float
    step: int
    histogram_value: HistogramValue


@dataclass(frozen=True)
class ImageEvent:
    wall_time: float
    step: int
    encoded_image_string: bytes
    width: int
    height: int


@dataclass(frozen=True)
class AudioEvent:
    wall_time: float
    step: int
    encoded_audio_string: bytes
    content_type: str
    sample_rate: float
    length_frames: int


@dataclass
class Accumulated:
    """An accumulator's contents: events by kind and tag (tags in order of first value),
    plugin contents by plugin and tag (each tag's first metadata naming a plugin), and the
    graph events' presence."""

    events: dict[str, dict[str, list[Any]]] = field(
        default_factory=lambda: {k: {} for k in KIND_OF_FIELD.values()}
    )
    contents: dict[str, dict[str, bytes]] = field(default_factory=dict)
    graph: bool = False
    meta_graph: bool = False
    run_metadata: list[str] = field(default_factory=list)

    def tags(self) -> dict[str, Any]:
        """`EventAccumulator.Tags()`, with tbparse's hparams and text."""
        events = self.events
        return {
            "images": list(events["images"]),
            "audio": list(events["audio"]),
            "histograms": list(events["histograms"]),
            "scalars": list(events["scalars"]),
            "distributions": list(events["histograms"]),
            "tensors": list(events["tensors"]),
            "graph": self.graph,
            "meta_graph": self.meta_graph,
            "run_metadata": list(self.run_metadata),
            "hparams": list(self.contents.get("hparams", {})),
            "text": list(self.contents.get("text", {})),
        }


def accumulate(path: str, storage_options: StorageOptions = None) -> Accumulated:
    """The raw view of the event file at `path` (damaged records skipped); `storage_options`
    for a URL's filesystem."""
    found = Accumulated()
    claimed: set[str] = set()
    for event in iter_events(path, tolerant=True, storage_options=storage_options):
        if event.HasField("graph_def"):
            found.graph = True
        elif event.HasField("meta_graph_def"):
            found.meta_graph = True
        elif event.HasField("tagged_run_metadata"):
            found.run_metadata.append(event.tagged_run_metadata.tag)
        elif event.HasField("summary"):
            for value in event.summary.value:
                _add(found, claimed, event.wall_time, event.step, value)
    return found


def _add(
    found: Accumulated, claimed: set[str], wall_time: float, step: int, value: summary_pb2.Summary.Value
) -> None:
    plugin = value.metadata.plugin_data.plugin_name if value.HasField("metadata") else ""
    if value.HasField("metadata") and value.tag not in claimed:
        claimed.add(value.tag)
        if plugin:
            found.contents.setdefault(plugin, {})[value.tag] = value.metadata.plugin_data.content
    kind = KIND_OF_FIELD.get(value.WhichOneof("value") or "")
    if kind is None:
        return
    found.events[kind].setdefault(value.tag, []).append(_event(kind, wall_time, step, value))


def _event(kind: str, wall_time: float, step: int, value: summary_pb2.Summary.Value) -> Any:
    if kind == "scalars":
        return ScalarEvent(wall_time, step, value.simple_value)
    if kind == "tensors":
        return TensorEvent(wall_time, step, value.tensor)
    if kind == "histograms":
        return HistogramEvent(wall_time, step, _histogram_value(value.histo))
    if kind == "images":
        image = value.image
        return ImageEvent(wall_time, step, image.encoded_image_string, image.width, image.height)
    audio = value.audio
    return AudioEvent(
        wall_time,
        step,
        audio.encoded_audio_string,
        audio.content_type,
        audio.sample_rate,
        audio.length_frames,
    )


def _histogram_value(histo: histogram_pb2.HistogramProto) -> HistogramValue:
    return HistogramValue(
        histo.min,
        histo.max,
        histo.num,
        histo.sum,
        histo.sum_squares,
        list(histo.bucket_limit),
        list(histo.bucket),
    )
