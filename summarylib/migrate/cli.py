"""`python -m summarylib.migrate PATH [PATH ...]`: print a unified diff and the report
(default), rewrite the files (`--in-place`), or write the migrated tree under a directory
(`--output-dir`, other files copied). Exit status: 0 when everything found was migrated, 1 when
the report lists calls left for a person, 2 on usage errors or files that do not parse."""

from __future__ import annotations

import argparse
import difflib
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

from summarylib.migrate.engine import TARGETS, MigrationResult, migrate_source
from summarylib.migrate.facts import sibling_facts
from summarylib.migrate.notebooks import migrate_notebook
from summarylib.migrate.report import FileReport, render_json, render_text
from summarylib.pipe_output import write_stdout

SKIPPED_DIRS = {"__pycache__", ".ipynb_checkpoints", ".git", ".venv", "venv", "node_modules"}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m summarylib.migrate",
        description="Migrate TF/contrib/torch/tensorboardX/Keras/Lightning summary code onto summarylib.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files (.py, .ipynb) or directories")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--in-place", action="store_true", help="rewrite the files")
    mode.add_argument("--output-dir", metavar="OUT", help="write the migrated tree under OUT")
    parser.add_argument("--to", choices=TARGETS, default="compat", help="compat (default) or v2")
    parser.add_argument("--report", metavar="FILE", help="write the report to FILE instead of stdout")
    parser.add_argument("--json", action="store_true", help="the report as JSON")
    return parser


def _is_source(path: Path) -> bool:
    return path.suffix in (".py", ".ipynb")


def _walk(root: Path) -> Iterator[Path]:
    """Every file under `root`, in a stable order, without caches and virtual environments."""
    for path in sorted(root.iterdir()):
        if path.is_dir():
            if path.name not in SKIPPED_DIRS:
                yield from _walk(path)
        else:
            yield path


def migrate_file(path: Path, to: str) -> MigrationResult:
    """Migrate one .py or .ipynb file's text (not written anywhere)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".ipynb":
        try:
            return migrate_notebook(text, str(path), to)
        except (ValueError, KeyError, TypeError) as error:
            return MigrationResult(text, FileReport(str(path), error=f"not a notebook: {error}"))
    return migrate_source(text, str(path), to, lambda: sibling_facts(path))


def _diff(path: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{path}", f"b/{path}"
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns the exit status."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exit_:
        return 0 if exit_.code == 0 else 2
    roots = [Path(p) for p in args.paths]
    missing = [str(p) for p in roots if not p.exists()]
    if missing:
        print(f"summarylib.migrate: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return 2
    output = Path(args.output_dir) if args.output_dir else None
    reports: list[FileReport] = []
    diffs: dict[str, str] = {}
    for path, target in _files_and_targets(roots, output):
        if not _is_source(path):
            if target is not None:
                shutil.copy2(path, target)
            continue
        report, diff = _migrate_to(path, target, args.to, args.in_place)
        reports.append(report)
        if diff:
            diffs[str(path)] = diff
    text = render_json(reports, diffs) if args.json else render_text(reports)
    if not (args.in_place or output is not None or args.json):
        write_stdout("".join(diffs.values()))
    if args.report:
        Path(args.report).write_text(text, encoding="utf-8")
    else:
        write_stdout(text)
    if any(r.error for r in reports):
        return 2
    return 1 if any(r.left for r in reports) else 0


def _files_and_targets(roots: list[Path], output: Path | None) -> Iterator[tuple[Path, Path | None]]:
    """Every file under the roots, with where its migrated copy goes under `output` (a
    directory root keeps its name there; its parent directories are made), or None."""
    for root in roots:
        for path in _walk(root) if root.is_dir() else iter([root]):
            target = None
            if output is not None:
                relative = path.relative_to(root) if root.is_dir() else Path()
                target = output / root.resolve().name / relative if root.is_dir() else output / path.name
                target.parent.mkdir(parents=True, exist_ok=True)
            yield path, target


def _migrate_to(path: Path, target: Path | None, to: str, in_place: bool) -> tuple[FileReport, str]:
    """Migrate one source file, written back (`in_place`) or to `target`; its report and
    its diff ("" when nothing changed)."""
    result = migrate_file(path, to)
    before = path.read_text(encoding="utf-8")
    diff = _diff(str(path), before, result.source) if result.changed else ""
    if in_place and result.changed:
        path.write_text(result.source, encoding="utf-8")
    elif target is not None:
        target.write_text(result.source, encoding="utf-8")
    return result.report, diff
