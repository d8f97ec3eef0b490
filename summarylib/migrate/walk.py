"""The files a run looks at: every file under the directories named, in a stable order,
listed once before anything is written.

A walk never follows a symbolic link, to a directory or to a file: a link loop (`l1 -> .`)
would make it endless or migrate nested copies of the tree, and a link out of the tree would
rewrite files nobody named. A link named like a source file is listed as skipped (a broken
one, such as an editor's lock file `.#train.py`, as a file left untouched), so the report
says why it was not migrated. A path named on the command line is followed, since the user
named it. The output directory (`--output-dir`) is never walked, wherever it is."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

SKIPPED_DIRS = {"__pycache__", ".ipynb_checkpoints", ".git", ".venv", "venv", "node_modules"}
SOURCE_SUFFIXES = (".py", ".ipynb")


@dataclass(frozen=True)
class Found:
    """One file of the run: where its migrated copy goes (`target`, under --output-dir), and
    for a symbolic link met in a walk, why it is not opened (`skipped` for a link to a file,
    `broken` for a link to nothing)."""

    path: Path
    target: Path | None = None
    skipped: str = ""
    broken: str = ""
    link: bool = False

    @property
    def is_source(self) -> bool:
        """Whether the file is migrated (.py, .ipynb) rather than copied."""
        return self.path.suffix in SOURCE_SUFFIXES


def find_files(roots: list[Path], output: Path | None) -> list[Found]:
    """Every file under the roots (a file root is itself), with its target under `output`:
    a directory root keeps its name there, a file root goes straight into it."""
    skip = os.path.realpath(output) if output is not None else None
    found = []
    for root in roots:
        if not root.is_dir():
            found.append(Found(root, output / root.name if output is not None else None))
            continue
        for path in _walk(root, skip):
            target = None
            if output is not None:
                target = output / root.resolve().name / path.relative_to(root)
            found.append(_classify(path, target))
    return found


def _walk(directory: Path, skip: str | None) -> Iterator[Path]:
    """The files and links under `directory`, without caches, virtual environments, the
    output directory, and without entering linked directories."""
    with os.scandir(directory) as scan:
        entries = sorted(scan, key=lambda entry: entry.name)
    for entry in entries:
        path = Path(entry.path)
        if entry.is_dir(follow_symlinks=False):
            if entry.name not in SKIPPED_DIRS and os.path.realpath(path) != skip:
                yield from _walk(path, skip)
        else:
            yield path


def _classify(path: Path, target: Path | None) -> Found:
    """`path` as the run sees it: a file, or a symbolic link it does not follow."""
    if not path.is_symlink():
        return Found(path, target)
    destination = os.readlink(path)
    if not path.exists():
        return Found(path, target, broken=f"a broken symbolic link (to {destination})", link=True)
    return Found(path, target, skipped=f"a symbolic link (to {destination}), not followed", link=True)
