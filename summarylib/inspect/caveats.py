"""What TensorBoard will show differently than one might expect, as warnings: steps going
backwards, `SessionLog.START` restarts that purge data, files of a run written at overlapping
times, plugin metadata TensorBoard does not understand or ignores."""

from __future__ import annotations

import itertools
import os

import numpy as np

from summarylib.inspect.fields import KINDS
from summarylib.inspect.formatting import utc_time
from summarylib.inspect.gathering import RunData, by_tag
from summarylib.inspect.report import Caveat, TagReport
from summarylib.proto import event_pb2
from summarylib.reader import Reader
from summarylib.reading.plugins import layout_problem, plugin_problem


def caveats(data: RunData, tags: list[TagReport], reader: Reader) -> list[Caveat]:
    """Every warning about one run, by kind."""
    return [
        *_backwards_warnings(data, tags),
        *_restart_warnings(data),
        *_overlap_warnings(data),
        *_plugin_warnings(data, reader),
    ]


def _file_version(data: RunData) -> float:
    """The run's event format version (2 for brain.Event:2), 0 when none is declared."""
    for _, _, event in sorted(data.events, key=lambda item: item[:2]):
        if event.file_version.startswith("brain.Event:"):
            try:
                return float(event.file_version.split(":")[1])
            except ValueError:
                return 0.0
    return 0.0


def _where(data: RunData, file_index: int, offset: int) -> str:
    return f"{os.path.basename(data.files[file_index])} byte offset {offset}"


def _backwards_warnings(data: RunData, tags: list[TagReport]) -> list[Caveat]:
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
    for tag_id, positions in zip(*by_tag(data), strict=True):
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


def _restart_warnings(data: RunData) -> list[Caveat]:
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


def _overlap_warnings(data: RunData) -> list[Caveat]:
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
                    f"{os.path.basename(earlier)} got values until {utc_time(earlier_span[1])}, after "
                    f"{os.path.basename(later)} began at {utc_time(later_span[0])}: a running TensorBoard "
                    "reads a run's files in name order and does not go back, so it can miss values",
                )
            )
    return warnings


def _plugin_warnings(data: RunData, reader: Reader) -> list[Caveat]:
    """Tensor summaries of tags whose plugin TensorBoard lacks or cannot read them with."""
    plugins, kinds, tags, types = (
        reader.plugins(data.run),
        data.column("kind"),
        data.column("tag"),
        data.column("type"),
    )
    tensors = kinds == KINDS.index("tensor")
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
