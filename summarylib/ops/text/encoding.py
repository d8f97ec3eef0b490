"""The text op's encoding: a string tensor for TensorBoard's text plugin.

As TensorFlow 2's `tf.summary.text` writes it: a `DT_STRING` tensor of the data's shape
(`[]` for one string) with each string UTF-8 encoded (bytes are written as they are),
and metadata naming the `text` plugin whose content, a TextPluginData of version 0,
serializes to no bytes. TensorBoard renders each string as Markdown and a 2-D array as a
table.

Where summarylib accepts more than TF: an empty list is an empty string tensor of shape
`[0]` (TF reads it as float32 and rejects it). Python strings keep trailing NUL
characters, which a numpy string array would drop.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from summarylib.ops.convert import as_array
from summarylib.ops.errors import check_description, op_error
from summarylib.ops.summary import summary_bytes
from summarylib.proto import plugin_data_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2

PLUGIN_NAME = "text"


def create_metadata(description: str | None = None) -> summary_pb2.SummaryMetadata:
    """The text plugin's metadata, with TextPluginData{version: 0} as its content."""
    metadata = summary_pb2.SummaryMetadata(summary_description=description or "")
    metadata.plugin_data.plugin_name = PLUGIN_NAME
    metadata.plugin_data.content = plugin_data_pb2.TextPluginData(version=0).SerializeToString()
    return metadata


def prepare(
    tag: str, data: Any, description: str | None
) -> tuple[str, tuple[int, ...], list[bytes], str | None]:
    """Validate on the caller's thread and encode each string as UTF-8 there: that costs
    about what copying the strings would, is the snapshot, and rejects strings that
    cannot be encoded (lone surrogates) at the call.

    Returns `(tag, shape, strings, description)` for `summary`.
    """
    check_description("text", tag, description)
    array = _string_array(tag, data)
    return tag, array.shape, [_utf8(tag, element) for element in array.reshape(-1).tolist()], description


def _string_array(tag: str, data: Any) -> np.ndarray:
    """`data` as a numpy array of strings (str, bytes, or an object array of them)."""
    if isinstance(data, (str, bytes, list, tuple)):
        try:  # an object array keeps Python strings exactly, trailing NULs included
            array = np.array(data, dtype=object)
        except ValueError as error:  # nested sequences numpy cannot lay out
            raise op_error(ValueError, "text", tag, "data", f"cannot make an array of it: {error}") from None
    else:
        array = as_array("text", tag, "data", data)
    if array.dtype.kind not in "USO":
        raise op_error(
            TypeError, "text", tag, "data", f"expected str, bytes or strings, got dtype {array.dtype}"
        )
    return array


def _utf8(tag: str, element: object) -> bytes:
    """One element as UTF-8 bytes; bytes are kept as they are, like TF does."""
    if isinstance(element, bytes):
        return element
    if not isinstance(element, str):
        raise op_error(
            TypeError,
            "text",
            tag,
            "data",
            f"expected str, bytes or strings, got an element of type {type(element).__name__}: "
            f"{element!r:.80}",
        )
    try:
        return element.encode("utf-8")
    except UnicodeEncodeError as error:
        raise op_error(ValueError, "text", tag, "data", f"a string is not valid Unicode ({error})") from None


def summary(tag: str, shape: tuple[int, ...], strings: list[bytes], description: str | None) -> bytes:
    """The serialized Summary of prepared strings (on the writer's thread)."""
    return summary_bytes(tag, text_tensor(shape, strings), create_metadata(description))


def encode(
    tag: str, data: Any, description: str | None = None
) -> tuple[tensor_pb2.TensorProto, summary_pb2.SummaryMetadata]:
    """The tensor and metadata `tf.summary.text(tag, data, ...)` would write, without I/O."""
    _, shape, strings, description = prepare(tag, data, description)
    return text_tensor(shape, strings), create_metadata(description)


def text_tensor(shape: tuple[int, ...], strings: list[bytes]) -> tensor_pb2.TensorProto:
    """The `DT_STRING` tensor of `shape` holding `strings` in row-major order."""
    return tensor_pb2.TensorProto(
        dtype=types_pb2.DT_STRING,
        tensor_shape=tensor_shape_pb2.TensorShapeProto(
            dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=n) for n in shape]
        ),
        string_val=strings,
    )
