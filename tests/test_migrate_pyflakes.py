"""Migrated code passes pyflakes with no finding the original did not have (no import left
unused, no name left undefined) and keeps one statement a line (no `; ` left behind a removed
import), in both modes, on every program and notebook of the hand-written corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("libcst")
pytest.importorskip("pyflakes")

from summarylib.migrate.cli import main
from tests.migrate_corpus.pyflakes_findings import new_findings

CORPUS = Path(__file__).parent / "migrate_corpus"
TREES = ["programs", "projects"]


def _dangling(path: Path) -> int:
    """How many lines end in `;` (a statement the migration cut off its line leaves one)."""
    return sum(line.rstrip().endswith(";") for line in path.read_text().splitlines())


@pytest.mark.parametrize("to", ["compat", "v2"])
def test_migration_adds_no_pyflakes_finding(tmp_path: Path, to: str) -> None:
    status = main(["--to", to, "--output-dir", str(tmp_path), *(str(CORPUS / tree) for tree in TREES)])
    assert status in (0, 1)
    checked = 0
    for tree in TREES:
        for original in sorted((CORPUS / tree).rglob("*")):
            migrated = tmp_path / tree / original.relative_to(CORPUS / tree)
            if original.suffix in (".py", ".ipynb") and migrated.exists():
                assert new_findings(original, migrated) == [], migrated
                assert _dangling(migrated) <= _dangling(original), migrated
                checked += 1
    assert checked > 20
