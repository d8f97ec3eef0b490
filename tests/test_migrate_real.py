"""migrate on real public programs (tests/migrate_real/manifest.txt: TensorBoard's tutorial
notebooks and plugin demos, tensorboardX's examples, TF 1.x graph tutorials, a contrib-era
eager tutorial, reinforcement-learning trainers), in both modes, twice: no file is refused or
left unparsed, the second run changes nothing and lists the same calls for a person, and the
migrated code has no pyflakes finding the original had not.

The programs are a cached fetch, never committed (their licences vary): `python
tests/migrate_real/fetch.py` fills tests/migrate_real/cache/. CI has no network but package
registries, so there the cache is absent and these tests skip, saying so. What they found is
kept, as hand-written snippets, in tests/test_migrate_real_code.py, which always runs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("libcst")
pytest.importorskip("pyflakes")

from summarylib.migrate.cli import main
from tests.migrate_corpus.pyflakes_findings import new_findings

CACHE = Path(__file__).parent / "migrate_real" / "cache"
ROOTS = sorted(p for p in CACHE.glob("*/*") if p.is_dir())

pytestmark = pytest.mark.skipif(
    not ROOTS, reason="no real programs cached: run python tests/migrate_real/fetch.py (needs the network)"
)


def _run(source: Path, out: Path, to: str) -> tuple[int, dict[str, dict]]:
    report = out.with_suffix(".json")
    status = main(["--to", to, "--json", "--report", str(report), "--output-dir", str(out), str(source)])
    files = json.loads(report.read_text())["files"]
    return status, {Path(entry["path"]).relative_to(source).as_posix(): entry for entry in files}


@pytest.mark.slow
@pytest.mark.parametrize("to", ["compat", "v2"])
@pytest.mark.parametrize("root", ROOTS, ids=lambda p: f"{p.parent.name}@{p.name}")
def test_real_programs_migrate_twice_to_the_same_code_and_report(tmp_path: Path, root: Path, to: str) -> None:
    first_status, first = _run(root, tmp_path / "first", to)
    migrated = tmp_path / "first" / root.name
    second_status, second = _run(migrated, tmp_path / "second", to)
    assert first_status in (0, 1) and second_status == first_status
    for name, entry in first.items():
        assert not (entry["error"] or entry["untouched"]), (name, entry["error"], entry["untouched"])
        assert second[name]["changes"] == [], name
        assert len(second[name]["left"]) == len(entry["left"]), name
        after = migrated / name
        if after.exists():
            assert new_findings(root / name, after) == [], name
