"""Tell what is on disk: `python -m summarylib.inspect --logdir DIR` (or `--event_file FILE`).

The first sections are those of `tensorboard --inspect`, with the same numbers, so people
who know it can read them. Then, per run: each tag's plugin, dtypes and shapes, count, step
and wall-time ranges and bytes on disk; each file; and what TensorBoard will make of it:
corruption and truncated or zero-filled tails (file and byte offset), steps going backwards,
`SessionLog.START` restarts that purge data, files of one run written at overlapping times,
plugin metadata TensorBoard does not understand. `--json` prints all of it for machines.

Exit status: 0 when the files are sound, 1 when any is damaged (the last line says why), 2
for a usage error (a path that does not exist, a logdir without event files, ...).
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import json
import os
import sys
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from summarylib.decoding import layout_problem, plugin_problem, value_type
from summarylib.proto import event_pb2
from summarylib.reader import Batch, Problem, Reader, find_sources, is_event_file

# `tensorboard --inspect`'s fields: value fields under their display names, then events.
VALUE_FIELDS = {
    "simple_value": "scalars",
    "histo": "histograms",
    "image": "images",
    "audio": "audio",
    "tensor": "tensor",
}
TAG_FIELDS = sorted(VALUE_FIELDS.values())
LONG_FIELDS = ("sessionlog:start", "sessionlog:stop")
TRACKED_FIELDS = sorted([*TAG_FIELDS, "graph", "sessionlog:checkpoint", *LONG_FIELDS])
SESSION_FIELDS = {
    event_pb2.SessionLog.START: "sessionlog:start",
    event_pb2.SessionLog.STOP: "sessionlog:stop",
    event_pb2.SessionLog.CHECKPOINT: "sessionlog:checkpoint",
}
SEPARATOR = "=" * 70
_KINDS = list(VALUE_FIELDS)


# What is found ---------------------------------------------------------------------------


@dataclass
class TagReport:
    """One tag of one run."""

    tag: str
    plugin: str
    types: dict[str, int]  # "float32 []" (tensors) or the legacy field name: values
    count: int
    first_step: int
    last_step: int
    min_step: int
    max_step: int
    first_wall_time: float
    last_wall_time: float
    bytes: int
    steps_backwards: int


@dataclass
class FileReport:
    """One event file of a run."""

    path: str
    bytes: int
    values: int
    first_wall_time: float | None
    last_wall_time: float | None


@dataclass
class Caveat:
    """Something TensorBoard will show differently than one might expect (a warning)."""

    kind: str  # steps_backwards, restart_purge, overlapping_files, plugin, metadata_conflict
    message: str


@dataclass
class RunReport:
    """One run: its tags, files, `tensorboard --inspect`'s numbers, warnings and damage."""

    run: str
    path: str
    files: list[FileReport]
    tags: list[TagReport]
    tensorboard_tags: dict[str, list[str]]
    tensorboard_inspect: dict[str, dict | None]
    warnings: list[Caveat] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


@dataclass
class Report:
    """Everything found under one path."""

    path: str
    tag: str | None
    runs: list[RunReport]

    @property
    def problems(self) -> list[Problem]:
        return [problem for run in self.runs for problem in run.problems]

    @property
    def status(self) -> str:
        return "corrupt" if self.problems else "ok"

    def reason(self) -> str:
        """One line: the verdict."""
        problems = self.problems
        if problems:
            more = f" (and {_count(len(problems) - 1, 'more problem')})" if len(problems) > 1 else ""
            return f"CORRUPT: {problems[0]}{more}"
        files = sum(len(run.files) for run in self.runs)
        values = sum(tag.count for run in self.runs for tag in run.tags)
        warnings = sum(len(run.warnings) for run in self.runs)
        noted = f"; {_count(warnings, 'warning')} above" if warnings else ""
        counts = f"{_count(len(self.runs), 'run')}, {_count(files, 'file')}, {_count(values, 'value')}"
        return f"OK: {counts}, no damage found{noted}"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


# Gathering ------------------------------------------------------------------------------


class _RunData:
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
        """Per row, the index of its value field in `_KINDS` and the id of its type."""
        shape_kinds = np.array([_KINDS.index(s.kind) for s in rows.shapes] + [0], np.int8)
        shape_types = np.array([self._type_id(s.kind, s.dtype.name, ()) for s in rows.shapes] + [0], np.int32)
        kinds, types = shape_kinds[rows.shape], shape_types[rows.shape]
        for position, proto in rows.protos.items():
            kind = proto.WhichOneof("value")
            kinds[position] = _KINDS.index(kind)
            types[position] = self._type_id(kind, *value_type(proto))
        return kinds, types

    def _type_id(self, kind: str, dtype: str, shape: tuple) -> int:
        return self.types.setdefault((kind, dtype, shape), len(self.types))

    def column(self, name: str) -> np.ndarray:
        parts = self.columns[name]
        return np.concatenate(parts) if parts else np.zeros(0, np.int64)


def gather(path: str, tag: str | None = None) -> tuple[dict[str, _RunData], Reader]:
    """Read every run under `path` (tolerant of damage), keeping what inspection needs."""
    reader = Reader(path, tags=[tag] if tag else None, tolerant=True)
    runs = {run: _RunData(run, files, reader.names.tags) for run, files in reader.runs().items()}
    for batch in reader.batches(keep_events=True):
        runs[batch.run].add(batch)
        batch.commit()
    return runs, reader


# Reporting -------------------------------------------------------------------------------


def inspect(path: str, tag: str | None = None) -> Report:
    """A Report of the event file or logdir at `path`, for one tag or all."""
    runs, reader = gather(path, tag)
    problems = reader.problems
    reports = []
    for data in runs.values():
        report = _run_report(path, data, reader, tag)
        report.problems = [p for p in problems if p.path in data.files]
        reports.append(report)
    return Report(path, tag, reports)


def _run_report(path: str, data: _RunData, reader: Reader, tag: str | None) -> RunReport:
    tags = _tag_reports(data, reader)
    report = RunReport(
        data.run,
        path if data.run == "." else os.path.join(path, data.run),
        _file_reports(data),
        tags,
        _tensorboard_tags(data, reader),
        _tensorboard_inspect(data, tag),
    )
    report.warnings = [
        *_backwards_warnings(data, tags),
        *_restart_warnings(data),
        *_overlap_warnings(data),
        *_plugin_warnings(data, reader),
    ]
    return report


def _by_tag(data: _RunData) -> tuple[np.ndarray, list[np.ndarray]]:
    """The tag ids of a run, and for each the positions of its rows, in order."""
    tags = data.column("tag")
    ids, inverse = np.unique(tags, return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    return ids, np.split(order, np.cumsum(np.bincount(inverse))[:-1]) if len(ids) else []


def _type_names(data: _RunData) -> list[str]:
    names = [""] * len(data.types)
    for (kind, dtype, shape), type_id in data.types.items():
        names[type_id] = f"{dtype} {list(shape)}" if kind in ("tensor", "simple_value") else kind
        if kind == "simple_value":
            names[type_id] = "simple_value"
    return names


def _tag_reports(data: _RunData, reader: Reader) -> list[TagReport]:
    steps, walls, sizes, types = (data.column(n) for n in ("step", "wall_time", "size", "type"))
    plugins = reader.plugins(data.run)
    type_names = _type_names(data)
    reports = []
    for tag_id, positions in zip(*_by_tag(data), strict=True):
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


def _file_reports(data: _RunData) -> list[FileReport]:
    files, walls = data.column("file"), data.column("wall_time")
    reports = []
    for index, path in enumerate(data.files):
        own = walls[files == index]
        event_walls = [e.wall_time for i, _, e in data.events if i == index]
        every = np.concatenate([own, event_walls]) if len(own) or event_walls else None
        reports.append(
            FileReport(
                path,
                os.path.getsize(path),
                len(own),
                float(every.min()) if every is not None else None,
                float(every.max()) if every is not None else None,
            )
        )
    return reports


def _tensorboard_tags(data: _RunData, reader: Reader) -> dict[str, list[str]]:
    """Tags per value field, as `tensorboard --inspect` lists them."""
    kinds, tags = data.column("kind"), data.column("tag")
    listed = {}
    for kind_index, kind in enumerate(_KINDS):
        ids = np.unique(tags[kinds == kind_index])
        listed[VALUE_FIELDS[kind]] = sorted(data.tag_names[i] for i in ids.tolist())
    return dict(sorted(listed.items()))


def _field_steps(data: _RunData, tag: str | None) -> dict[str, np.ndarray]:
    """The steps of each field in file order, as `tensorboard --inspect` observes them."""
    kinds, steps = data.column("kind"), data.column("step")
    fields = {VALUE_FIELDS[kind]: steps[kinds == i] for i, kind in enumerate(_KINDS)}
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


def _tensorboard_inspect(data: _RunData, tag: str | None) -> dict[str, dict | None]:
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


def _file_version(data: _RunData) -> float:
    """The run's event format version (2 for brain.Event:2), 0 when none is declared."""
    for _, _, event in sorted(data.events, key=lambda item: item[:2]):
        if event.file_version.startswith("brain.Event:"):
            try:
                return float(event.file_version.split(":")[1])
            except ValueError:
                return 0.0
    return 0.0


def _where(data: _RunData, file_index: int, offset: int) -> str:
    return f"{os.path.basename(data.files[file_index])} byte offset {offset}"


def _backwards_warnings(data: _RunData, tags: list[TagReport]) -> list[Caveat]:
    """Tags whose steps go backwards in file order."""
    if not any(report.steps_backwards for report in tags):
        return []
    steps, files, offsets = data.column("step"), data.column("file"), data.column("offset")
    consequence = (
        "TensorBoard discards earlier values with larger steps (the files declare no brain.Event:2)"
        if _file_version(data) < 2
        else "TensorBoard draws values in file order, so the line doubles back"
    )
    warnings = []
    for tag_id, positions in zip(*_by_tag(data), strict=True):
        tag_steps = steps[positions]
        backwards = np.flatnonzero(tag_steps[1:] < tag_steps[:-1])
        if backwards.size:
            at = int(positions[backwards[0] + 1])
            warnings.append(
                Caveat(
                    "steps_backwards",
                    f"tag {data.tag_names[tag_id]!r}: the step goes backwards {backwards.size} times, first "
                    f"from {int(tag_steps[backwards[0]])} to {int(steps[at])} at "
                    f"{_where(data, int(files[at]), int(offsets[at]))}; {consequence}",
                )
            )
    return warnings


def _restart_warnings(data: _RunData) -> list[Caveat]:
    """SessionLog.START events after the first of a run: TensorBoard takes them for a restart
    and discards the values logged before them with a step at or above theirs."""
    if _file_version(data) < 2:
        return []  # TensorBoard purges by out-of-order steps instead
    steps, files, offsets = data.column("step"), data.column("file"), data.column("offset")
    purged = np.zeros(len(steps), bool)
    starts = sorted(
        (index, offset, event)
        for index, offset, event in data.events
        if event.HasField("session_log") and event.session_log.status == event_pb2.SessionLog.START
    )
    warnings = []
    for index, offset, event in starts[1:]:
        before = (files < index) | ((files == index) & (offsets < offset))
        lost = before & (steps >= event.step) & ~purged
        purged |= lost
        if lost.any():
            warnings.append(
                Caveat(
                    "restart_purge",
                    f"SessionLog.START at step {event.step} ({_where(data, index, offset)}) restarts the "
                    f"run: TensorBoard discards the {int(lost.sum())} values logged before it at steps >= "
                    f"{event.step}",
                )
            )
    return warnings


def _overlap_warnings(data: _RunData) -> list[Caveat]:
    """Consecutive files of a run whose values were written at overlapping times."""
    files, walls = data.column("file"), data.column("wall_time")
    spans = [
        (walls[files == i].min(), walls[files == i].max()) if (files == i).any() else None
        for i in range(len(data.files))
    ]
    warnings = []
    for (earlier, earlier_span), (later, later_span) in itertools.pairwise(
        zip(data.files, spans, strict=True)
    ):
        if earlier_span is not None and later_span is not None and earlier_span[1] > later_span[0]:
            warnings.append(
                Caveat(
                    "overlapping_files",
                    f"{os.path.basename(earlier)} got values until {_time(earlier_span[1])}, after "
                    f"{os.path.basename(later)} began at {_time(later_span[0])}: a running TensorBoard "
                    "reads a run's files in name order and does not go back, so it can miss values",
                )
            )
    return warnings


def _plugin_warnings(data: _RunData, reader: Reader) -> list[Caveat]:
    """Tensor summaries of tags whose plugin TensorBoard lacks or cannot read them with."""
    plugins, kinds, tags, types = (
        reader.plugins(data.run),
        data.column("kind"),
        data.column("tag"),
        data.column("type"),
    )
    tensors = kinds == _KINDS.index("tensor")
    warnings = []
    names = {type_id: key for key, type_id in data.types.items()}
    pairs = set(zip(tags[tensors].tolist(), types[tensors].tolist(), strict=True))
    for tag_id, type_id in sorted(pairs, key=lambda pair: (data.tag_names[pair[0]], pair[1])):
        tag = data.tag_names[tag_id]
        plugin = plugins.get(tag, "")
        _, dtype, shape = names[type_id]
        problem = plugin_problem(plugin) or layout_problem(plugin, dtype, shape)
        if problem:
            warnings.append(Caveat("plugin", f"tag {tag!r}: {problem}"))
    for tag, kept, ignored in sorted(data.conflicts):
        warnings.append(
            Caveat(
                "metadata_conflict",
                f"tag {tag!r}: later metadata names plugin {ignored!r}, but TensorBoard keeps the "
                f"first, {kept!r}",
            )
        )
    return warnings


# Printing -------------------------------------------------------------------------------


def _time(wall_time: float | None) -> str:
    if wall_time is None:
        return "-"
    moment = datetime.datetime.fromtimestamp(wall_time, datetime.timezone.utc)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def _size(count: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if count < 1024 or unit == "GiB":
            return f"{count} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    return ""


def _print_dict(lines: list[str], values: dict, show_missing: bool = True) -> None:
    """A section as `tensorboard --inspect` prints it."""
    for key, value in sorted(values.items()):
        if not value:
            if show_missing:
                lines.append(f"{key} -")
        elif isinstance(value, list):
            lines.append(key)
            lines.extend(f"   {item}" for item in value)
        else:
            lines.append(key)
            lines.extend(f"   {name:<20} {item}" for name, item in sorted(value.items()))


def _table(lines: list[str], header: tuple[str, ...], rows: Iterable[tuple]) -> None:
    rows = [tuple(str(cell) for cell in row) for row in rows]
    widths = [max(len(cell) for cell in column) for column in zip(header, *rows, strict=True)]
    for row in [header, *rows]:
        lines.append(
            "   " + "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )


def render_text(report: Report) -> str:
    """The report as text: `tensorboard --inspect`'s sections, then summarylib's."""
    lines = ["Found event files in:", *(run.path for run in report.runs), ""]
    for run in report.runs:
        if report.tag:
            lines.append(f"Event statistics for tag {report.tag} in {run.path}:")
            _print_dict(lines, run.tensorboard_inspect, show_missing=False)
        else:
            lines.append(f"These tags are in {run.path}:")
            _print_dict(lines, run.tensorboard_tags)
            lines += [SEPARATOR, "", f"Event statistics for {run.path}:"]
            _print_dict(lines, run.tensorboard_inspect)
        lines += [SEPARATOR, ""]
        _render_run(lines, run)
    lines.append(report.reason())
    return "\n".join(lines)


def _render_run(lines: list[str], run: RunReport) -> None:
    lines.append(f"Tags in {run.path}:")
    _table(
        lines,
        ("tag", "plugin", "type", "count", "steps", "wall time (UTC)", "bytes"),
        (
            (
                tag.tag,
                tag.plugin or "-",
                ", ".join(tag.types),
                tag.count,
                f"{tag.min_step} .. {tag.max_step}",
                f"{_time(tag.first_wall_time)} .. {_time(tag.last_wall_time)}",
                _size(tag.bytes),
            )
            for tag in run.tags
        ),
    )
    lines.append(f"Files in {run.path}:")
    _table(
        lines,
        ("file", "bytes", "values", "wall time (UTC)"),
        (
            (
                os.path.basename(f.path),
                _size(f.bytes),
                f.values,
                f"{_time(f.first_wall_time)} .. {_time(f.last_wall_time)}",
            )
            for f in run.files
        ),
    )
    for warning in run.warnings:
        lines.append(f"WARNING: {warning.message}")
    for problem in run.problems:
        lines.append(f"DAMAGE: {problem}")
    lines += [SEPARATOR, ""]


def render_json(report: Report) -> str:
    """The report as JSON."""
    runs = []
    for run in report.runs:
        entry = asdict(run)
        entry["problems"] = [asdict(problem) for problem in run.problems]
        runs.append(entry)
    return json.dumps(
        {
            "path": report.path,
            "tag": report.tag,
            "status": report.status,
            "reason": report.reason(),
            "runs": runs,
        },
        indent=2,
    )


# Command line ---------------------------------------------------------------------------


def _usage_error(args: argparse.Namespace) -> str | None:
    """What is wrong with the paths given, if anything (the usual mistakes)."""
    if args.logdir is not None:
        path = args.logdir
        if not os.path.exists(path):
            return f"--logdir {path} does not exist"
        if os.path.isfile(path):
            if is_event_file(path):
                return f"{path} is an event file, not a logdir: use --event_file {path}"
            return f"--logdir {path} is a file, not a directory"
        if not find_sources(path):
            return f"no event files found within logdir {path} (files with 'tfevents' in their name)"
        return None
    path = args.event_file
    if not os.path.exists(path):
        return f"--event_file {path} does not exist"
    if os.path.isdir(path):
        return f"{path} is a directory: use --logdir {path}"
    return None


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m summarylib.inspect", description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--logdir", help="a directory of runs (event files in it or below)")
    source.add_argument("--event_file", help="one event file")
    parser.add_argument("--tag", help="only the values of this tag")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    error = _usage_error(args)
    if error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    report = inspect(args.logdir or args.event_file, args.tag)
    print(render_json(report) if args.json else render_text(report))
    if report.problems:
        if args.json:
            print(report.reason(), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
