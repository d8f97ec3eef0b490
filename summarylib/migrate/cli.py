"""`python -m summarylib.migrate PATH [PATH ...]`: print a unified diff and the report
(default), rewrite the files (`--in-place`), or write the migrated tree under a directory
(`--output-dir`, other files copied). Exit status: 0 when everything found was migrated, 1 when
the report lists calls left for a person, 2 on usage errors or files that do not parse."""

from __future__ import annotations

import argparse
import difflib
import errno
import shutil
import sys
from pathlib import Path

from summarylib.migrate.engine import TARGETS, MigrationResult, migrate_source
from summarylib.migrate.facts import sibling_facts
from summarylib.migrate.files import Refused, encode, read_text, write_atomic
from summarylib.migrate.notebooks import migrate_notebook
from summarylib.migrate.report import FileReport, render_json, render_text
from summarylib.migrate.walk import Found, find_files
from summarylib.pipe_output import write_stdout


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


def migrate_file(path: Path, to: str) -> MigrationResult:
    """Migrate one .py or .ipynb file's text (not written anywhere); raises Refused."""
    return _migrate_text(path, read_text(path, notebook=path.suffix == ".ipynb").text, to)


def _migrate_text(path: Path, text: str, to: str) -> MigrationResult:
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
    for found in find_files(roots, output):
        if not found.is_source:
            _copy(found, reports)
            continue
        report, diff = _migrate_one(found, args.to, args.in_place)
        reports.append(report)
        if diff:
            diffs[str(found.path)] = diff
    if not reports:
        where = ", ".join(args.paths)
        print(f"summarylib.migrate: nothing to migrate: no .py or .ipynb file in {where}", file=sys.stderr)
    text = render_json(reports, diffs) if args.json else render_text(reports)
    if not (args.in_place or output is not None or args.json):
        write_stdout("".join(diffs.values()))
    if args.report:
        Path(args.report).write_text(text, encoding="utf-8")
    else:
        write_stdout(text)
    # A file not migrated (2) outweighs calls left for a person (1): both are in the report.
    if any(r.error or r.untouched for r in reports):
        return 2
    return 1 if any(r.left for r in reports) else 0


def _copy(found: Found, reports: list[FileReport]) -> None:
    """Copy a file that is not source (or a link, as a link) under --output-dir; a failure is
    reported as that file's."""
    if found.target is None:
        return
    try:
        found.target.parent.mkdir(parents=True, exist_ok=True)
        if found.link and found.target.is_symlink():
            found.target.unlink()  # an earlier run's copy of the link
        shutil.copy2(found.path, found.target, follow_symlinks=False)
    except OSError as error:
        reports.append(FileReport(str(found.path), untouched=f"not copied: {_why(error)}"))


def _migrate_one(found: Found, to: str, in_place: bool) -> tuple[FileReport, str]:
    """Migrate one source file, written back (`in_place`) or to its target; its report and
    its diff ("" when nothing changed or nothing was written). A file that cannot be read,
    migrated or written is reported and left byte-identical; the run goes on."""
    path = found.path
    if found.link:
        _copy(found, [])
        return FileReport(str(path), untouched=found.broken, skipped=found.skipped), ""
    try:
        source = read_text(path, notebook=path.suffix == ".ipynb")
    except Refused as error:
        _copy(found, [])  # under --output-dir, as it is (a FIFO or a device is refused there too)
        return FileReport(str(path), untouched=str(error)), ""
    try:
        result = _migrate_text(path, source.text, to)
    except Exception as error:
        # A crash on one file's odd code (a libcst bug) must not end the run: that file is
        # left as it was, and the report says so.
        return FileReport(str(path), untouched=f"migrate failed on it ({type(error).__name__}: {error})"), ""
    written = found.target if found.target is not None else path if in_place and result.changed else None
    if written is not None:
        try:
            written.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(written, encode(source, result.source))
        except Refused as error:
            return _unwritten(result.report, str(error)), ""
        except OSError as error:
            return _unwritten(result.report, f"not written: {_why(error)}"), ""
    diff = _diff(str(path), source.text, result.source) if result.changed else ""
    return result.report, diff


def _unwritten(report: FileReport, why: str) -> FileReport:
    """The report of a file whose migration could not be written: its changes did not
    happen; the calls left for a person still are."""
    report.changes.clear()
    report.untouched = why
    return report


def _why(error: OSError) -> str:
    """An OSError in words, with its errno name (EFBIG, EPERM, ...)."""
    name = errno.errorcode.get(error.errno or 0, "")
    return f"{error.strerror or error} ({name})" if name else str(error)
