"""Reading a logdir for inspection: every run's values as columns (tag, step, wall time, size,
value field, type, file, offset), gathered batch by batch, and its other events."""

from __future__ import annotations

from typing import Any

import numpy as np

from summarylib.format.storage import StorageOptions
from summarylib.inspect.fields import KINDS
from summarylib.proto import event_pb2
from summarylib.reader import Batch, Reader
from summarylib.reading.values import value_type


class RunData:
    """The columns of one run's values, gathered batch by batch, and its other events."""

    def __init__(self, run: str, files: list[str], tag_names: list[str]) -> None:
        self.run = run
        self.files = files
        self.tag_names = tag_names  # the reader's, by tag id
        self.columns: dict[str, list[np.ndarray]] = {
            name: [] for name in ("tag", "step", "wall_time", "size", "kind", "type", "file", "offset")
        }
        self.events: list[tuple[int, int, event_pb2.Event]] = []  # (file index, offset, event)
        self.conflicts: set[tuple[str, str, str]] = set()
        self.types: dict[tuple[str, str, tuple], int] = {}

    def add(self, batch: Batch) -> None:
        """Take in the rows and events of a batch."""
        rows, index = batch.rows, self.files.index(batch.path)
        kinds, types = self._kinds_and_types(rows)
        for name, column in (
            ("tag", rows.tag),
            ("step", rows.step),
            ("wall_time", rows.wall_time),
            ("size", rows.size),
            ("kind", kinds),
            ("type", types),
            ("file", np.full(len(rows), index, np.int32)),
            ("offset", rows.offset),
        ):
            self.columns[name].append(column)
        self.events += [(index, offset, event) for offset, event in rows.events]
        self.conflicts.update(rows.conflicts)

    def _kinds_and_types(self, rows: Any) -> tuple[np.ndarray, np.ndarray]:
        """Per row, the index of its value field in `KINDS` and the id of its type."""
        shape_kinds = np.array([KINDS.index(s.kind) for s in rows.shapes] + [0], np.int8)
        shape_types = np.array([self._type_id(s.kind, s.dtype.name, ()) for s in rows.shapes] + [0], np.int32)
        kinds, types = shape_kinds[rows.shape], shape_types[rows.shape]
        for position, proto in rows.protos.items():
            kind = proto.WhichOneof("value")
            kinds[position] = KINDS.index(kind)
            types[position] = self._type_id(kind, *value_type(proto))
        return kinds, types

    def _type_id(self, kind: str, dtype: str, shape: tuple) -> int:
        return self.types.setdefault((kind, dtype, shape), len(self.types))

    def column(self, name: str) -> np.ndarray:
        parts = self.columns[name]
        return np.concatenate(parts) if parts else np.zeros(0, np.int64)


def gather(
    path: str, tag: str | None = None, storage_options: StorageOptions = None
) -> tuple[dict[str, RunData], Reader]:
    """Read every run under `path` (tolerant of damage), keeping what inspection needs."""
    reader = Reader(path, tags=[tag] if tag else None, tolerant=True, storage_options=storage_options)
    runs = {run: RunData(run, files, reader.names.tags) for run, files in reader.runs().items()}
    for batch in reader.batches(keep_events=True):
        runs[batch.run].add(batch)
        batch.commit()
    return runs, reader


def by_tag(data: RunData) -> tuple[np.ndarray, list[np.ndarray]]:
    """The tag ids of a run, and for each the positions of its rows, in order."""
    tags = data.column("tag")
    ids, inverse = np.unique(tags, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    return ids, np.split(order, np.cumsum(np.bincount(inverse))[:-1]) if len(ids) else []
