"""What inspection finds, as plain data: a `Report` of runs, each with its tags, files,
`tensorboard --inspect`'s numbers, warnings and damage (rendered as text or JSON elsewhere)."""

from __future__ import annotations

from dataclasses import dataclass, field

from summarylib.inspect.formatting import plural
from summarylib.reader import Problem


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
            more = f" (and {plural(len(problems) - 1, 'more problem')})" if len(problems) > 1 else ""
            return f"CORRUPT: {problems[0]}{more}"
        files = sum(len(run.files) for run in self.runs)
        values = sum(tag.count for run in self.runs for tag in run.tags)
        warnings = sum(len(run.warnings) for run in self.runs)
        noted = f"; {plural(warnings, 'warning')} above" if warnings else ""
        counts = f"{plural(len(self.runs), 'run')}, {plural(files, 'file')}, {plural(values, 'value')}"
        return f"OK: {counts}, no damage found{noted}"
