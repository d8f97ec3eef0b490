"""Hand-made event files for the reader's tests: events of any plugin written record by
record, their offsets, damage done to them in place, and every value of a file or logdir
parsed with protobuf alone (the reference the reader is checked against)."""

from __future__ import annotations

import math
import os
import struct

import numpy as np

import summarylib as sl
from summarylib.decoding import PrCurve, decode_value
from summarylib.format import records
from summarylib.proto import event_pb2, summary_pb2, tensor_pb2, types_pb2
from summarylib.reader import (
    find_runs,
    iter_events,
)

LEGACY_PLUGINS = {"simple_value": "scalars", "histo": "histograms", "image": "images", "audio": "audio"}

# Helpers -----------------------------------------------------------------------------------


def metadata(plugin: str, content: bytes = b"") -> summary_pb2.SummaryMetadata:
    meta = summary_pb2.SummaryMetadata()
    meta.plugin_data.plugin_name = plugin
    meta.plugin_data.content = content
    return meta


def scalar_tensor(value: float, dtype: int = types_pb2.DT_FLOAT) -> tensor_pb2.TensorProto:
    fmt = "<f" if dtype == types_pb2.DT_FLOAT else "<d"
    return tensor_pb2.TensorProto(dtype=dtype, tensor_shape={}, tensor_content=struct.pack(fmt, value))


def event(step: int, *values: summary_pb2.Summary.Value, wall_time: float = 1.5) -> event_pb2.Event:
    return event_pb2.Event(step=step, wall_time=wall_time, summary=summary_pb2.Summary(value=values))


def scalar_event(tag: str, step: int, value: float, wall_time: float = 1.5, plugin: str | None = "scalars"):
    summary_value = summary_pb2.Summary.Value(tag=tag, tensor=scalar_tensor(value))
    if plugin is not None:
        summary_value.metadata.CopyFrom(metadata(plugin))
    return event(step, summary_value, wall_time=wall_time)


def write_events(path: str, events, mode: str = "ab") -> None:
    """Frame events into a file by hand, as any writer would."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as file:
        file.write(b"".join(records.frame(e.SerializeToString()) for e in events))


def event_path(directory: str, name: str = "events.out.tfevents.1700000000.host.1.0") -> str:
    return os.path.join(directory, name)


def record_offsets(path: str) -> list[int]:
    """Start offsets of the complete records of a file, found without the reader."""
    with open(path, "rb") as file:
        data = file.read()
    offsets, position = [], 0
    while position + 12 <= len(data):
        (length,) = struct.unpack_from("<Q", data, position)
        if position + length + 16 > len(data):
            break
        offsets.append(position)
        position += length + 16
    return offsets


def write_scalars(logdir: str, count: int, tag: str = "loss") -> str:
    """A summarylib file with `count` scalars at steps 0..count-1, value step / 2."""
    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        for step in range(count):
            sl.scalar(tag, step / 2, step=step)
    writer.close()
    return writer.path


def reference_values(path: str) -> list[tuple]:
    """(run, tag, step, wall_time, plugin, value) of every value, parsed with protobuf, each
    tag's plugin taken from the first metadata of its run (legacy fields: their plugin)."""
    found = []
    for run, files in (find_runs(path) if os.path.isdir(path) else {".": [path]}).items():
        plugins: dict[str, str] = {}
        for file in files:
            for e in iter_events(file):
                for value in e.summary.value:
                    kind = value.WhichOneof("value")
                    claim = LEGACY_PLUGINS.get(kind)
                    if claim is None and value.HasField("metadata"):
                        claim = value.metadata.plugin_data.plugin_name
                    if claim is not None:
                        plugins.setdefault(value.tag, claim)
                    if kind is not None:
                        plugin = plugins.get(value.tag, "")
                        found.append(
                            (run, value.tag, e.step, e.wall_time, plugin, decode_value(value, plugin))
                        )
    return found


def same(a, b) -> bool:
    """Equality of decoded values: NaN equals NaN, arrays equal in dtype, shape and items."""
    if type(a) is not type(b):
        return False
    if isinstance(a, PrCurve):
        a, b = a.data, b.data
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return a == b


def same_values(got: list, expected: list) -> None:
    assert len(got) == len(expected)
    for have, want in zip(got, expected, strict=True):
        assert tuple(have[:5]) == tuple(want[:5]), (have, want)
        assert same(have[5], want[5]), (have, want)


# Damaged files -----------------------------------------------------------------------------


def damage(path: str, offset: int, data: bytes) -> None:
    with open(path, "r+b") as file:
        file.seek(offset)
        file.write(data)


def flip(path: str, offset: int) -> None:
    with open(path, "rb") as file:
        file.seek(offset)
        byte = file.read(1)
    damage(path, offset, bytes([byte[0] ^ 0x40]))
