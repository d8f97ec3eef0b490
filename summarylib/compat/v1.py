"""TF 1.x's summary API without TensorFlow: ops that return serialized `Summary` protos,
collections and `merge_all`, and `FileWriter.add_summary`.

    from summarylib.compat import v1 as summary   # was: tf.compat.v1.summary / tf.summary

The ops write TF 1.x's legacy encodings: `simple_value` for scalars, `histo` (TF's
exponential buckets) for histograms, one `Summary.Image` (PNG) per image tagged
`name/image/i` (`name/image` when max_outputs is 1), one `Summary.Audio` (WAV) per clip
tagged `name/audio/i` (`name/audio` when max_outputs is 1), and the text plugin's string
tensor. `family` makes the tag `family/family/name`, as TF 1.x's name scopes did.

Without sessions, there is no graph to run each step. Ops take two kinds of input, and
both loop shapes of TF 1.x code work:

- An op called with a value (an array, a number) encodes it at once, returns the
  serialized Summary and adds it to its collections once: the next `merge_all()` takes
  it and removes it. Ops called inside the loop each step, then `merge_all()`, write
  each step's values exactly once.
- An op called with a zero-argument callable calls nothing: it returns a `LazySummary`
  (the op, as TF 1.x's graph node was) and adds it to its collections for good. The
  callable is called, and its value encoded, each time the op is evaluated: by every
  `merge_all()` of its collection, by `merge([...])` of a list holding it, by its own
  `.eval()`, and by `FileWriter.add_summary(op)`, all on the caller's thread, as
  `sess.run` evaluated the op. Ops created before the loop on values that exist only
  inside it (`summary.scalar("loss", lambda: state["loss"])`) work as in TF 1.x. An
  exception from the callable surfaces there, as a `LazySummaryError` naming the op and
  the tag.

`merge_all()` and `merge()` evaluate at the call and return the serialized Summary;
`merge_all()` returns None when a collection is empty, as TF 1.x did.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from google.protobuf.message import DecodeError

from summarylib.compat import legacy_values
from summarylib.compat.lazy_summary import LazySummary, LazySummaryError, summary_bytes
from summarylib.compat.tags import family_tag
from summarylib.ops import audio as audio_encoding
from summarylib.ops import generic
from summarylib.ops import histogram as histogram_encoding
from summarylib.ops import image as image_encoding
from summarylib.ops import text as text_encoding
from summarylib.ops.convert import as_float
from summarylib.ops.errors import check_optional_text, op_error
from summarylib.ops.graph import graph_def_bytes, graph_event
from summarylib.proto import event_pb2, summary_pb2
from summarylib.proto.event_pb2 import Event, SessionLog
from summarylib.proto.summary_pb2 import Summary, SummaryMetadata
from summarylib.writer.context import coerce_step, input_error
from summarylib.writer.event_file import v1_file_names
from summarylib.writer.summary_writer import SummaryWriter

__all__ = [
    "Event",
    "FileWriter",
    "FileWriterCache",
    "GraphKeys",
    "LazySummary",
    "LazySummaryError",
    "SessionLog",
    "Summary",
    "SummaryMetadata",
    "audio",
    "histogram",
    "image",
    "merge",
    "merge_all",
    "scalar",
    "tensor_summary",
    "text",
]


class GraphKeys:
    """Collection names, as in `tf.compat.v1.GraphKeys`."""

    SUMMARIES = "summaries"


_collections: dict[str, list[bytes | LazySummary]] = {}
_collections_lock = threading.Lock()


def _add_to_collections(collections: Iterable[str] | None, entry: bytes | LazySummary) -> None:
    with _collections_lock:
        for key in [GraphKeys.SUMMARIES] if collections is None else collections:
            _collections.setdefault(key, []).append(entry)


def _op(
    op: str, tag: str, build: Callable[[Any], bytes], tensor: Any, collections: Iterable[str] | None
) -> bytes | LazySummary:
    """The Summary of a value, built now and filed once in its collections; or, for a
    zero-argument callable, the lazy op, filed for good and evaluated when merged."""
    entry = LazySummary(op, tag, tensor, build) if callable(tensor) else build(tensor)
    _add_to_collections(collections, entry)
    return entry


def scalar(
    name: str, tensor: Any, collections: Iterable[str] | None = None, family: str | None = None
) -> bytes | LazySummary:
    """A Summary with one `simple_value`; `tensor` is a real scalar or a callable."""
    tag = family_tag("scalar", name, family)
    return _op(
        "scalar",
        tag,
        lambda data: legacy_values.serialized(
            [legacy_values.scalar_value(tag, as_float("scalar", tag, "tensor", data))]
        ),
        tensor,
        collections,
    )


def histogram(
    name: str, values: Any, collections: Iterable[str] | None = None, family: str | None = None
) -> bytes | LazySummary:
    """A Summary with one `histo` of `values` (any shape), in TF 1.x's exponential buckets."""
    tag = family_tag("histogram", name, family)

    def build(data: Any) -> bytes:
        _, array, _, _ = histogram_encoding.prepare(tag, data, None, None)
        return legacy_values.serialized([legacy_values.histogram_value(tag, array)])

    return _op("histogram", tag, build, values, collections)


def image(
    name: str,
    tensor: Any,
    max_outputs: int = 3,
    collections: Iterable[str] | None = None,
    family: str | None = None,
) -> bytes | LazySummary:
    """A Summary with one `Summary.Image` per image of a `[k, h, w, c]` batch, at most
    `max_outputs`; float pixels are rescaled per image as TF 1.x did (see legacy_values)."""
    tag = family_tag("image", name, family)

    def build(data: Any) -> bytes:
        _, images, _, _, _ = image_encoding.prepare(tag, data, max_outputs, None)
        return legacy_values.serialized(legacy_values.image_values(tag, images, max_outputs))

    return _op("image", tag, build, tensor, collections)


def audio(
    name: str,
    tensor: Any,
    sample_rate: Any,
    max_outputs: int = 3,
    collections: Iterable[str] | None = None,
    family: str | None = None,
) -> bytes | LazySummary:
    """A Summary with one `Summary.Audio` (16-bit WAV) per clip of `[k, t, c]` (or `[k, t]`)
    float samples in [-1, 1], at most `max_outputs`."""
    tag = family_tag("audio", name, family)

    def build(data: Any) -> bytes:
        clips = legacy_values.legacy_clips("audio", tag, data)
        _, clips, rate, _ = audio_encoding.prepare(tag, clips, sample_rate, max_outputs, None, None)
        return legacy_values.serialized(legacy_values.audio_values(tag, clips, rate, max_outputs))

    return _op("audio", tag, build, tensor, collections)


def text(name: str, tensor: Any, collections: Iterable[str] | None = None) -> bytes | LazySummary:
    """A Summary with the text plugin's string tensor (rendered as Markdown)."""
    tag = family_tag("text", name, None)
    return _op(
        "text",
        tag,
        lambda data: text_encoding.summary(*text_encoding.prepare(tag, data, None)),
        tensor,
        collections,
    )


def tensor_summary(
    name: str,
    tensor: Any,
    summary_description: str | None = None,
    collections: Iterable[str] | None = None,
    summary_metadata: SummaryMetadata | bytes | None = None,
    family: str | None = None,
    display_name: str | None = None,
) -> bytes | LazySummary:
    """A Summary with `tensor` as is, with `summary_metadata` plus display name and
    description."""
    tag = family_tag("tensor_summary", name, family)
    metadata = SummaryMetadata.FromString(
        generic.metadata_bytes("tensor_summary", tag, summary_metadata) or b""
    )
    display_name = check_optional_text("tensor_summary", tag, "display_name", display_name)
    summary_description = check_optional_text(
        "tensor_summary", tag, "summary_description", summary_description
    )
    if display_name is not None:
        metadata.display_name = display_name
    if summary_description is not None:
        metadata.summary_description = summary_description
    return _op(
        "tensor_summary",
        tag,
        lambda data: generic.summary(*generic.prepare("tensor_summary", tag, data, metadata)),
        tensor,
        collections,
    )


def merge(inputs: Iterable[Any], collections: Iterable[str] | None = None) -> bytes:
    """One Summary with the values of all `inputs` (serialized Summaries, Summary protos
    and lazy ops, evaluated now); a tag that occurs twice is a ValueError, as in TF 1.x.
    With `collections`, the merge is filed there: lazily when an input is lazy."""
    items = [item for item in inputs if item is not None]
    merged = _merged(items)
    if collections is not None:
        lazy = any(isinstance(item, LazySummary) for item in items)
        _add_to_collections(collections, LazySummary("merge", "", lambda: items, _merged) if lazy else merged)
    return merged


def _merged(items: list[Any]) -> bytes:
    merged = b"".join(summary_bytes(item, "merge", "inputs") for item in items)
    try:
        tags = [value.tag for value in summary_pb2.Summary.FromString(merged).value]
    except DecodeError as error:
        raise op_error(
            ValueError,
            "merge",
            None,
            "inputs",
            f"expected serialized Summaries, got one that is not ({error})",
        ) from None
    duplicates = sorted({tag for tag in tags if tags.count(tag) > 1})
    if duplicates:
        raise op_error(
            ValueError,
            "merge",
            None,
            "inputs",
            f"expected each tag once in a merged summary, got {duplicates} twice",
        )
    return merged


def merge_all(key: str = GraphKeys.SUMMARIES) -> bytes | None:
    """The merged Summary of collection `key` now, or None when it is empty.

    Takes (removes) the entries of ops called with values, and evaluates the lazy ops
    (called with callables), which stay; see the module docstring.
    """
    with _collections_lock:
        entries = _collections.get(key, [])
        _collections[key] = [entry for entry in entries if isinstance(entry, LazySummary)]
    if not entries:
        return None
    return _merged(entries)


def clear_collections() -> None:
    """Forget every collection (TF 1.x: `tf.compat.v1.reset_default_graph()`)."""
    with _collections_lock:
        _collections.clear()


class FileWriter:
    """Writes Summary protos and events to an event file named as TF 1.x named them,
    `events.out.tfevents.{seconds}.{hostname}{suffix}` (with `.1`, `.2`, ... when that
    name is taken; never an overwrite).

    Like TF 1.x, metadata is kept only on the first value of each tag. `max_queue` and
    `flush_secs` keep TF 1.x's meaning and defaults. Writers of one logdir in one
    process share one file (see summarylib.SummaryWriter).
    """

    def __init__(
        self,
        logdir: str | os.PathLike,
        graph: Any = None,
        max_queue: int = 10,
        flush_secs: float = 120,
        filename_suffix: str | None = None,
    ) -> None:
        if not isinstance(flush_secs, (int, float)) or isinstance(flush_secs, bool) or flush_secs <= 0:
            raise input_error(
                ValueError,
                "compat.v1.FileWriter",
                None,
                "flush_secs",
                f"expected a positive number, got {flush_secs!r}",
            )
        self._options = (max_queue, max(1, round(flush_secs * 1000)), filename_suffix)
        self._writer = SummaryWriter(logdir, *self._options, file_names=v1_file_names)
        self._seen_tags: set[str] = set()
        if graph is not None:
            self.add_graph(graph)

    def get_logdir(self) -> str:
        """The directory the event file is in."""
        return self._writer.logdir

    def _add(self, event: event_pb2.Event, global_step: Any) -> None:
        event.wall_time = time.time()
        if global_step is not None:
            event.step = coerce_step(global_step, "global_step", "compat.v1.FileWriter")
        self._writer.write_event(event.SerializeToString())

    def add_summary(self, summary: Any, global_step: Any = None) -> None:
        """Write a Summary at `global_step`: a proto of any library, its bytes (what
        `merge_all()` returns), or a lazy op (evaluated now)."""
        api = "compat.v1.FileWriter.add_summary"
        try:
            parsed = summary_pb2.Summary.FromString(summary_bytes(summary, api, "summary"))
        except DecodeError as error:
            raise op_error(
                ValueError, api, None, "summary", f"expected a serialized Summary ({error})"
            ) from None
        for value in parsed.value:
            if not value.HasField("metadata"):
                continue
            if value.tag in self._seen_tags:
                value.ClearField("metadata")
            else:
                self._seen_tags.add(value.tag)
        self._add(event_pb2.Event(summary=parsed), global_step)

    def add_session_log(self, session_log: Any, global_step: Any = None) -> None:
        """Write a SessionLog (START tells TensorBoard to drop data from later steps)."""
        parsed = event_pb2.SessionLog.FromString(
            summary_bytes(session_log, "compat.v1.FileWriter.add_session_log", "session_log")
        )
        self._add(event_pb2.Event(session_log=parsed), global_step)

    def add_graph(self, graph: Any, global_step: Any = None) -> None:
        """Write a graph: a `tf.Graph` (anything with `as_graph_def()`), a GraphDef proto
        of any library, or its bytes (see summarylib.graph)."""
        data = graph_def_bytes(graph, "compat.v1.FileWriter.add_graph")
        step = (
            0
            if global_step is None
            else coerce_step(global_step, "global_step", "compat.v1.FileWriter.add_graph")
        )
        self._writer.submit(graph_event, (data,), time.time(), step, len(data))

    def add_event(self, event: Any) -> None:
        """Write an Event (a proto of any library, or its bytes) as it is."""
        self._writer.write_event(summary_bytes(event, "compat.v1.FileWriter.add_event", "event"))

    def flush(self) -> None:
        """Write everything added so far to the OS."""
        self._writer.flush()

    def close(self) -> None:
        """Flush and close the event file; `reopen()` starts a new one."""
        self._writer.close()

    def reopen(self) -> None:
        """After close(), continue in a new event file in the same logdir."""
        if self._writer.closed:
            self._writer = SummaryWriter(self._writer.logdir, *self._options, file_names=v1_file_names)
            self._seen_tags.clear()

    def __enter__(self) -> FileWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class FileWriterCache:
    """One FileWriter per logdir, as `tf.compat.v1.summary.FileWriterCache`."""

    _writers: ClassVar[dict[str, FileWriter]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    @classmethod
    def get(cls, logdir: str | os.PathLike) -> FileWriter:
        """The cached FileWriter of `logdir`, created on first use."""
        key = os.fspath(logdir)
        with cls._lock:
            if key not in cls._writers:
                cls._writers[key] = FileWriter(key)
            return cls._writers[key]

    @classmethod
    def clear(cls) -> None:
        """Close and forget every cached FileWriter."""
        with cls._lock:
            writers, cls._writers = list(cls._writers.values()), {}
        for writer in writers:
            writer.close()
