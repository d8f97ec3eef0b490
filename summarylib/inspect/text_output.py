"""A `Report` as text: `tensorboard --inspect`'s sections as it prints them, then summarylib's
tables of tags and files, the warnings and damage of each run, and the verdict last."""

from __future__ import annotations

import os
from collections.abc import Iterable

from summarylib.inspect.formatting import size, utc_time
from summarylib.inspect.report import Report, RunReport

SEPARATOR = "=" * 70


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


# tensorboard --inspect's section without a tag pools the steps of every tag of a run, so a
# healthy run whose tags are logged at different steps (hparams' session end at step 0 after
# the loss's step 99) lists "out of order" steps; the note says so, the warnings say more.
POOLED_NOTE = (
    "note: outoforder_steps above pools the steps of all tags in file order, as tensorboard "
    "--inspect does (a tag logged after another tag's later steps is listed); a tag whose own "
    "steps go backwards is warned about below"
)


def _pooled_out_of_order(stats: dict) -> bool:
    return any(field and field.get("outoforder_steps") for field in stats.values())


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
            if _pooled_out_of_order(run.tensorboard_inspect):
                lines += [SEPARATOR, POOLED_NOTE]
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
                f"{utc_time(tag.first_wall_time)} .. {utc_time(tag.last_wall_time)}",
                size(tag.bytes),
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
                size(f.bytes),
                f.values,
                f"{utc_time(f.first_wall_time)} .. {utc_time(f.last_wall_time)}",
            )
            for f in run.files
        ),
    )
    for warning in run.warnings:
        lines.append(f"WARNING: {warning.message}")
    for problem in run.problems:
        lines.append(f"DAMAGE: {problem}")
    lines += [SEPARATOR, ""]
