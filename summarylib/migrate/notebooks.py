"""Migrate the code cells of a notebook as one module (an import in one cell serves the
others), then put each cell's code back. IPython magics and shell lines (`%...`, `!...`) are
masked as placeholder statements while libcst parses, and restored as they were; a cell
magic (`%%...`) keeps its cell out of the migration."""

from __future__ import annotations

import json
import re

from summarylib.migrate.engine import MigrationResult, migrate_source

CELL = "__summarylib_migrate_cell__({})"
MAGIC = "__summarylib_migrate_magic__({})"
_CELL = re.compile(r"^__summarylib_migrate_cell__\((\d+)\)$")
_MAGIC = re.compile(r"^(\s*)__summarylib_migrate_magic__\((\d+)\)$")


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


def _cell_lines(code: str, count: int) -> list[list[str]]:
    """The lines of each cell; lines before the first marker (added imports) go to cell 0."""
    cells: list[list[str]] = [[] for _ in range(count)]
    current = 0
    for line in code.splitlines():
        match = _CELL.match(line)
        if match:
            current = int(match.group(1))
        else:
            cells[current].append(line)
    return cells


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
    for entry in [*report.changes, *report.left]:
        location = int(entry.where.rpartition(":")[2])
        entry.where = report.where(_where(location, starts))
    if not result.changed:
        return MigrationResult(text, report)
    per_cell = _cell_lines(result.source, len(cells))
    # Imports added before the first marker belong to the first migrated cell.
    per_cell[code_cells[0]] = per_cell[0] + per_cell[code_cells[0]] if code_cells[0] else per_cell[0]
    for index in code_cells:
        code = _unmask(per_cell[index], magics)
        cells[index]["source"] = code.splitlines(keepends=True)
    return MigrationResult(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", report)
