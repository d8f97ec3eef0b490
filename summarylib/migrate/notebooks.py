"""Migrate the code cells of a notebook as one module (an import in one cell serves the
others), then put each cell's code back. IPython magics and shell lines (`%...`, `!...`) are
masked as placeholder statements while libcst parses, and restored as they were; a cell
magic (`%%...`) keeps its cell out of the migration. Added
imports go, one a line, into the first code cell that is not a Colab form (`#@title`), after
its `from __future__` imports. The notebook's text is changed only in the changed cells'
sources (notebook_text.py), and checked to read back as the migrated notebook before it is
returned."""

from __future__ import annotations

import json
import re

from summarylib.migrate.engine import MigrationResult, migrate_source
from summarylib.migrate.notebook_text import splice
from summarylib.migrate.report import Change, FileReport, Left

CELL = "__summarylib_migrate_cell__({})"
MAGIC = "__summarylib_migrate_magic__({})"
_CELL = re.compile(r"^__summarylib_migrate_cell__\((\d+)\)$")
_MAGIC = re.compile(r"^(\s*)__summarylib_migrate_magic__\((\d+)\)$")
_FORM = re.compile(r"^\s*#\s*@title")
_FUTURE = re.compile(r"^from\s+__future__\s+import\b")


def _mask(source: str, magics: list[str]) -> str:
    lines = []
    for line in source.splitlines():
        stripped = line.lstrip()
        if stripped.startswith(("%", "!")):
            lines.append(line[: len(line) - len(stripped)] + MAGIC.format(len(magics)))
            magics.append(stripped)
        else:
            lines.append(line)
    return "\n".join(lines)


def _unmask(lines: list[str], magics: list[str]) -> str:
    out = []
    for line in lines:
        match = _MAGIC.match(line)
        out.append(match.group(1) + magics[int(match.group(2))] if match else line)
    return "\n".join(out)


def _cell_lines(code: str, count: int) -> tuple[list[str], list[list[str]]]:
    """The lines before the first marker (added imports, blank lines dropped), and each cell's."""
    added: list[str] = []
    cells: list[list[str]] = [[] for _ in range(count)]
    current: list[str] = added
    for line in code.splitlines():
        match = _CELL.match(line)
        if match:
            current = cells[int(match.group(1))]
        else:
            current.append(line)
    return [line for line in added if line.strip()], cells


def _insert_imports(lines: list[str], imports: list[str]) -> list[str]:
    """`lines` with `imports` after its leading comments, blank lines and `from __future__`."""
    at = 0
    for position, line in enumerate(lines):
        if _FUTURE.match(line):
            at = position + 1
        elif line.strip() and not line.lstrip().startswith("#"):
            break
    return [*lines[:at], *imports, *lines[at:]]


def _is_form(source: str) -> bool:
    """Whether a cell is a Colab form (its first line `#@title ...`): code must not go into it."""
    return bool(_FORM.match(source.lstrip("\n")))


def _where(line: int, starts: list[tuple[int, int]]) -> str:
    """`cell N, line M` for a line of the joined module (cells numbered from 1)."""
    index, start = max((s for s in starts if s[1] <= line), default=(0, 1), key=lambda s: s[1])
    return f"cell {index + 1} line {line - start}"


def migrate_notebook(text: str, path: str, to: str = "compat") -> MigrationResult:
    """Migrate notebook JSON `text`; the result's source is the notebook JSON (the input
    itself when nothing changed)."""
    notebook = json.loads(text)
    cells = notebook.get("cells", [])
    code_cells = [
        i
        for i, c in enumerate(cells)
        if c.get("cell_type") == "code" and not "".join(c["source"]).startswith("%%")
    ]
    magics: list[str] = []
    parts, starts, line = [], [], 1
    for index in code_cells:
        body = _mask("".join(cells[index]["source"]), magics)
        parts.append(CELL.format(index) + "\n" + body)
        starts.append((index, line))
        line += 1 + len(body.splitlines())
    result = migrate_source("\n".join(parts) + "\n", path, to)
    report = result.report
    entries: list[Change | Left] = [*report.changes, *report.left]
    for entry in entries:
        location = int(entry.where.rpartition(":")[2])
        entry.where = report.where(_where(location, starts))
    if not result.changed:
        return MigrationResult(text, report)
    added, per_cell = _cell_lines(result.source, len(cells))
    sources = {index: "".join(cells[index]["source"]) for index in code_cells}
    changed: dict[int, str] = {}
    home = next((i for i in code_cells if not _is_form(sources[i])), code_cells[0])
    per_cell[home] = _insert_imports(per_cell[home], added)
    for index in code_cells:
        code = _unmask(per_cell[index], magics)
        if code == sources[index].rstrip("\n") and sources[index].endswith("\n"):
            code = sources[index]
        elif sources[index].endswith("\n"):
            code += "\n"
        if code != sources[index]:
            changed[index] = code
    return _spliced(text, notebook, changed, sources, report)


def _spliced(
    text: str, notebook: dict, changed: dict[int, str], sources: dict[int, str], report: FileReport
) -> MigrationResult:
    """The notebook `text` with the `changed` cells' sources, checked to read back as the
    notebook with those sources; else the text unchanged, the file reported untouched."""
    new = splice(text, changed, sources)
    for index, code in changed.items():
        cell = notebook["cells"][index]
        cell["source"] = code.splitlines(keepends=True) if isinstance(cell["source"], list) else code
    if json.loads(new) != notebook:
        report.changes.clear()
        report.untouched = "its JSON could not be rewritten in the changed cells alone"
        return MigrationResult(text, report)
    return MigrationResult(new, report)
