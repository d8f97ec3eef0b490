"""What a run did, per file: the changes (line, before, after), the calls left for a person
(with the reason), how the file was read, or why it could not be parsed. Printed as text or
JSON."""

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

    def where(self, location: str) -> str:
        """`path:location`, as the report prints it."""
        return f"{self.path}:{location}"


def render_text(reports: list[FileReport]) -> str:
    """The report as text, one block a file that had something to say."""
    lines = []
    for report in reports:
        if not (report.changes or report.left or report.error):
            continue
        lines.append(f"== {report.path}")
        if report.error:
            lines.append(f"  not parsed, left untouched: {report.error}")
        lines.extend(f"  decided: {style}" for style in report.styles)
        for change in report.changes:
            note = f"  ({change.note})" if change.note else ""
            lines.append(f"  changed {change.where}: {change.before} -> {change.after}{note}")
        for kept in report.left:
            lines.append(f"  LEFT {kept.where}: {kept.code}: {kept.reason}")
    changed = sum(len(r.changes) for r in reports)
    left = sum(len(r.left) for r in reports)
    errors = sum(1 for r in reports if r.error)
    lines.append(
        f"{len(reports)} files, {changed} changes, {left} calls left for a person, {errors} not parsed"
    )
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
