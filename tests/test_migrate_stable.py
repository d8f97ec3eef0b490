"""The report is stable: migrate run again on its own output changes nothing and reports the
same calls left for a person, with the same exit status, in both modes. A person who runs
it twice is not told that nothing is left."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("libcst")

from summarylib.migrate.cli import main

PROGRAMS = Path(__file__).parent / "migrate_corpus" / "programs"


def _run(tmp_path: Path, name: str, source: Path, to: str) -> tuple[int, dict[str, dict]]:
    """Migrate `source` under tmp_path/name; the exit status and the JSON report by file name."""
    report = tmp_path / f"{name}.json"
    status = main(
        ["--to", to, "--json", "--report", str(report), "--output-dir", str(tmp_path / name), str(source)]
    )
    files = json.loads(report.read_text())["files"]
    return status, {Path(entry["path"]).name: entry for entry in files}


@pytest.mark.parametrize("to", ["compat", "v2"])
def test_a_second_run_on_migrated_code_changes_nothing_and_reports_the_same(tmp_path: Path, to: str) -> None:
    first_status, first = _run(tmp_path, "first", PROGRAMS, to)
    second_status, second = _run(tmp_path, "second", tmp_path / "first" / "programs", to)
    assert second_status == first_status == 1
    assert {name: entry["changes"] for name, entry in second.items() if entry["changes"]} == {}
    for path in (tmp_path / "first" / "programs").iterdir():
        assert (tmp_path / "second" / "programs" / path.name).read_bytes() == path.read_bytes()
    for name, entry in first.items():
        # The first run names a moved reference (its new name), the second the call on it.
        before = sorted(left["code"] for left in entry["left"])
        after = sorted(left["code"] for left in second[name]["left"])
        assert len(after) == len(before), (name, before, after)
        assert all(a.startswith(b) for a, b in zip(after, before, strict=True)), (name, before, after)
