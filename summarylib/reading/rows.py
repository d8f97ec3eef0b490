"""What decoding records produces and remembers: `Rows` (one row per summary value), the
interned `Names` they refer to, a run's `RunState`, and the `Filters` applied on the way.

Plain containers shared by row assembly, the `Reader` and `inspect`, apart from the code that
fills them.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from summarylib.proto import event_pb2, summary_pb2
from summarylib.reading.scalar_shapes import ScalarShape


class Names:
    """Interned tag and plugin names: rows hold small integer ids."""

    def __init__(self) -> None:
        self.tags: list[str] = []
        self.plugins: list[str] = [""]
        self._tag_ids: dict[str, int] = {}
        self._plugin_ids: dict[str, int] = {"": 0}

    def tag_id(self, tag: str) -> int:
        """The id of `tag`, new ones numbered in order of appearance."""
        found = self._tag_ids.get(tag)
        if found is None:
            found = self._tag_ids[tag] = len(self.tags)
            self.tags.append(tag)
        return found

    def plugin_id(self, plugin: str) -> int:
        """The id of `plugin` ("" is 0)."""
        found = self._plugin_ids.get(plugin)
        if found is None:
            found = self._plugin_ids[plugin] = len(self.plugins)
            self.plugins.append(plugin)
        return found


@dataclass
class RunState:
    """What reading a run remembers across its files: the plugin of each tag, from the first
    metadata seen for it (TF 1.x and tensorboardX write metadata only on a tag's first value)."""

    plugins: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Filters:
    """Which values to keep; None keeps all. Applied before values are decoded."""

    tags: Collection[str] | None = None
    plugins: Collection[str] | None = None


@dataclass
class Rows:
    """The summary values of a stretch of records, one row per value, in file order.

    Values of scalar events read at the byte level have their value in `number` and their
    layout in `shapes[shape]`; the others (`shape` -1) have their `Summary.Value` in `protos`,
    by row position, and once decoded their value in `decoded`.
    """

    record: np.ndarray  # int64: index of the value's record in its Records
    offset: np.ndarray  # int64: file offset of the value's record
    size: np.ndarray  # int64: bytes on disk attributed to the value
    tag: np.ndarray  # int32: id in Names.tags
    plugin: np.ndarray  # int32: id in Names.plugins
    step: np.ndarray  # int64
    wall_time: np.ndarray  # float64
    number: np.ndarray  # float64
    shape: np.ndarray  # int32: index into `shapes`, or -1
    shapes: list[ScalarShape]
    protos: dict[int, summary_pb2.Summary.Value]
    events: list[tuple[int, event_pb2.Event]] = field(default_factory=list)  # non-summary events
    conflicts: list[tuple[str, str, str]] = field(default_factory=list)  # (tag, kept, ignored plugin)
    bad: list[tuple[int, str]] = field(default_factory=list)  # (offset, why) of records that are no Event
    decoded: dict[int, Any] = field(default_factory=dict)
    # (offset, value) of values with metadata and no data (kept with `events`)
    bare: list[tuple[int, summary_pb2.Summary.Value]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.record)

    def take(self, keep: np.ndarray) -> Rows:
        """The rows at the positions (or boolean mask) `keep`, in that order."""
        if keep.dtype == bool and keep.all():
            return self
        positions = np.flatnonzero(keep) if keep.dtype == bool else keep
        new_positions = None
        if self.protos:
            new_positions = np.full(len(self), -1, np.int64)
            new_positions[positions] = np.arange(len(positions))
        columns = {
            name: getattr(self, name)[positions]
            for name in ("record", "offset", "size", "tag", "plugin", "step", "wall_time", "number", "shape")
        }
        return Rows(
            **columns,
            shapes=self.shapes,
            protos=_moved(self.protos, new_positions),
            events=self.events,
            conflicts=self.conflicts,
            bad=self.bad,
            decoded=_moved(self.decoded, new_positions),
            bare=self.bare,
        )


def _moved(by_position: dict[int, Any], new_positions: np.ndarray | None) -> dict[int, Any]:
    """Items by row position, at their new positions (-1: left out). `new_positions` is None
    when the rows have no protos (then nothing is decoded either: no item moves)."""
    if not by_position or new_positions is None:
        return {}
    moved = new_positions[list(by_position)].tolist()
    return {new: item for new, item in zip(moved, by_position.values(), strict=True) if new >= 0}
