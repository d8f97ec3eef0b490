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
`merge_all()` returns None when a collection is empty, as TF 1.x did. `FileWriter` (in
`summarylib.compat.v1_file_writer`) writes them to an event file.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from google.protobuf.message import DecodeError

from summarylib.compat import legacy_values
from summarylib.compat.lazy_summary import LazySummary, LazySummaryError, summary_bytes
from summarylib.compat.tags import family_tag
from summarylib.compat.v1_file_writer import FileWriter, FileWriterCache
from summarylib.ops.audio import encoding as audio_encoding
from summarylib.ops.convert import as_float
from summarylib.ops.errors import check_optional_text, op_error
from summarylib.ops.histogram import encoding as histogram_encoding
from summarylib.ops.image import encoding as image_encoding
from summarylib.ops.tensor import encoding as tensor_encoding
from summarylib.ops.text import encoding as text_encoding
from summarylib.proto import summary_pb2
from summarylib.proto.event_pb2 import Event, SessionLog
from summarylib.proto.summary_pb2 import Summary, SummaryMetadata

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
    "clear_collections",
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
        tensor_encoding.metadata_bytes("tensor_summary", tag, summary_metadata) or b""
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
        lambda data: tensor_encoding.summary(*tensor_encoding.prepare("tensor_summary", tag, data, metadata)),
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
