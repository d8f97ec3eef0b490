"""A run's numbers: per tag and per file (summarylib's tables), and per value field and event
kind (`tensorboard --inspect`'s sections, computed as it computes them)."""

from __future__ import annotations

import numpy as np

from summarylib.format import storage
from summarylib.inspect.fields import KINDS, LONG_FIELDS, SESSION_FIELDS, VALUE_FIELDS
from summarylib.inspect.gathering import RunData, by_tag
from summarylib.inspect.report import FileReport, TagReport
from summarylib.reader import Reader


def _type_names(data: RunData) -> list[str]:
    names = [""] * len(data.types)
    for (kind, dtype, shape), type_id in data.types.items():
        names[type_id] = f"{dtype} {list(shape)}" if kind in ("tensor", "simple_value") else kind
        if kind == "simple_value":
            names[type_id] = "simple_value"
    return names


def tag_reports(data: RunData, reader: Reader) -> list[TagReport]:
    """One report per tag of the run, sorted by tag."""
    steps, walls, sizes, types = (data.column(n) for n in ("step", "wall_time", "size", "type"))
    plugins = reader.plugins(data.run)
    type_names = _type_names(data)
    reports = []
    for tag_id, positions in zip(*by_tag(data), strict=True):
        tag = data.tag_names[tag_id]
        tag_steps = steps[positions]
        counts = np.bincount(types[positions])
        reports.append(
            TagReport(
                tag,
                plugins.get(tag, ""),
                {type_names[i]: int(n) for i, n in enumerate(counts) if n},
                len(positions),
                int(tag_steps[0]),
                int(tag_steps[-1]),
                int(tag_steps.min()),
                int(tag_steps.max()),
                float(walls[positions].min()),
                float(walls[positions].max()),
                int(sizes[positions].sum()),
                int(np.count_nonzero(tag_steps[1:] < tag_steps[:-1])),
            )
        )
    return sorted(reports, key=lambda report: report.tag)


def file_reports(data: RunData, storage_options: storage.StorageOptions = None) -> list[FileReport]:
    """One report per event file of the run, in the run's file order."""
    files, walls = data.column("file"), data.column("wall_time")
    reports = []
    for index, path in enumerate(data.files):
        own = walls[files == index]
        event_walls = [e.wall_time for i, _, e in data.events if i == index]
        every = np.concatenate([own, event_walls]) if len(own) or event_walls else None
        reports.append(
            FileReport(
                path,
                storage.size(path, storage_options),
                len(own),
                float(every.min()) if every is not None else None,
                float(every.max()) if every is not None else None,
            )
        )
    return reports


def tensorboard_tags(data: RunData) -> dict[str, list[str]]:
    """Tags per value field, as `tensorboard --inspect` lists them."""
    kinds, tags = data.column("kind"), data.column("tag")
    listed = {}
    for kind_index, kind in enumerate(KINDS):
        ids = np.unique(tags[kinds == kind_index])
        listed[VALUE_FIELDS[kind]] = sorted(data.tag_names[i] for i in ids.tolist())
    return dict(sorted(listed.items()))


def _field_steps(data: RunData, tag: str | None) -> dict[str, np.ndarray]:
    """The steps of each field in file order, as `tensorboard --inspect` observes them."""
    kinds, steps = data.column("kind"), data.column("step")
    fields = {VALUE_FIELDS[kind]: steps[kinds == i] for i, kind in enumerate(KINDS)}
    if tag is None:
        events = sorted(data.events, key=lambda item: item[:2])
        fields["graph"] = np.array([e.step for _, _, e in events if e.HasField("graph_def")], np.int64)
        for status, name in SESSION_FIELDS.items():
            fields[name] = np.array(
                [
                    e.step
                    for _, _, e in events
                    if e.HasField("session_log") and e.session_log.status == status
                ],
                np.int64,
            )
    return fields


def _out_of_order(steps: np.ndarray) -> list[tuple[int, int]]:
    backwards = np.flatnonzero(steps[1:] < steps[:-1])
    return [(int(steps[i]), int(steps[i + 1])) for i in backwards.tolist()]


def tensorboard_inspect(data: RunData, tag: str | None) -> dict[str, dict | None]:
    """`tensorboard --inspect`'s statistics of each field (None where it has no values)."""
    stats: dict[str, dict | None] = {}
    for name, steps in sorted(_field_steps(data, tag).items()):
        if not len(steps):
            stats[name] = None
        elif name in LONG_FIELDS:
            stats[name] = {"steps": steps.tolist(), "outoforder_steps": _out_of_order(steps)}
        else:
            stats[name] = {
                "first_step": int(steps[0]),
                "last_step": int(steps[-1]),
                "max_step": int(steps.max()),
                "min_step": int(steps.min()),
                "num_steps": len(np.unique(steps)),
                "outoforder_steps": _out_of_order(steps),
            }
    return stats
