"""summarylib's type hints are checked: mypy, as pyproject.toml's [tool.mypy] configures it, finds
no error in the package, and a user's type checker catches a wrong call of the public API.

mypy runs as a subprocess from the repository root, with its cache in pytest's cache
directory, so a second run checks only what changed (the first takes a minute or so).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mypy", reason="mypy is not installed (the dev extra)")

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


def _mypy(cache: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(cache), "--no-color-output", *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.fixture
def mypy_cache(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pytest's cache directory, kept between runs (a fresh one with `-p no:cacheprovider`)."""
    cache = getattr(request.config, "cache", None)
    return Path(cache.mkdir("mypy")) if cache is not None else tmp_path_factory.mktemp("mypy")


def test_the_package_type_checks_clean(mypy_cache: Path) -> None:
    result = _mypy(mypy_cache)  # `files` and every setting come from pyproject.toml
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("Success: no issues found"), result.stdout


def test_py_typed_marks_the_package_as_typed() -> None:
    # PEP 561: without the marker a user's checker treats summarylib as untyped (Any).
    assert (ROOT / "summarylib" / "py.typed").is_file()


def test_a_wrong_call_of_the_public_api_is_flagged(mypy_cache: Path, tmp_path: Path) -> None:
    snippet = tmp_path / "user_code.py"
    snippet.write_text("import summarylib as sl\n\nsl.scalar(3, 0.5)\nsl.scalar('loss', 0.5, step=1)\n")
    # Errors inside summarylib are not the user's: silent, as for any installed package.
    result = _mypy(mypy_cache, "--follow-imports=silent", str(snippet))
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    # One error, on the call that passes an int as the tag; the right call passes.
    assert [line.split(":")[1] for line in errors] == ["3"], result.stdout + result.stderr
    assert '"scalar"' in errors[0] and '"int"' in errors[0], errors


def test_a_misspelled_op_is_flagged(mypy_cache: Path, tmp_path: Path) -> None:
    snippet = tmp_path / "user_code.py"
    snippet.write_text("import summarylib as sl\n\nsl.scalr('loss', 0.5)\n")
    result = _mypy(mypy_cache, "--follow-imports=silent", str(snippet))
    assert f"{snippet}:3: error:" in result.stdout, result.stdout + result.stderr
