"""What a run did, per file: the changes (line, before, after), the calls left for a person
(with the reason), how the file was read, why it could not be parsed, or why it was left
untouched (it could not be read or written) or skipped (a symbolic link, not followed).
Printed as text or JSON."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field


@dataclass
class Change:
    """One rewritten reference or import."""

    where: str
    before: str
    after: str
    note: str = ""


@dataclass
class Left:
    """One summary-related call not migrated, for a person to look at."""

    where: str
    code: str
    reason: str


@dataclass
class FileReport:
    """The report of one file."""

    path: str
    styles: list[str] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    left: list[Left] = field(default_factory=list)
    error: str = ""
    untouched: str = ""
    skipped: str = ""

    def where(self, location: str) -> str:
        """`path:location`, as the report prints it."""
        return f"{self.path}:{location}"


def _counted(count: int, noun: str) -> str:
    """`count` `noun`s, in the singular for one."""
    return f"{count} {noun}" + ("" if count == 1 else "s")


def render_text(reports: list[FileReport]) -> str:
    """The report as text, one block a file that had something to say."""
    lines = []
    for report in reports:
        if not (report.changes or report.left or report.error or report.untouched or report.skipped):
            continue
        lines.append(f"== {report.path}")
        if report.error:
            lines.append(f"  not parsed, left untouched: {report.error}")
        if report.untouched:
            lines.append(f"  left untouched: {report.untouched}")
        if report.skipped:
            lines.append(f"  skipped: {report.skipped}")
        lines.extend(f"  decided: {style}" for style in report.styles)
        for change in report.changes:
            note = f"  ({change.note})" if change.note else ""
            lines.append(f"  changed {change.where}: {change.before} -> {change.after}{note}")
        for kept in report.left:
            lines.append(f"  LEFT {kept.where}: {kept.code}: {kept.reason}")
    changed = sum(len(r.changes) for r in reports)
    left = sum(len(r.left) for r in reports)
    errors = sum(1 for r in reports if r.error)
    summary = (
        f"{_counted(len(reports), 'file')}, {_counted(changed, 'change')}, "
        f"{_counted(left, 'call')} left for a person, {errors} not parsed"
    )
    untouched = sum(1 for r in reports if r.untouched)
    skipped = sum(1 for r in reports if r.skipped)
    if untouched:
        summary += f", {untouched} left untouched (not read or not written)"
    if skipped:
        summary += f", {skipped} symbolic links skipped"
    lines.append(summary)
    return "\n".join(lines) + "\n"


def render_json(reports: list[FileReport], diffs: dict[str, str] | None = None) -> str:
    """The report as JSON: {"files": [...]} (each with its unified diff when `diffs` has it)."""
    files = []
    for report in reports:
        entry = asdict(report)
        if diffs is not None:
            entry["diff"] = diffs.get(report.path, "")
        files.append(entry)
    return json.dumps({"files": files}, indent=1) + "\n"
