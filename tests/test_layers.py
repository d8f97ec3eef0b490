"""The layers enforce themselves: `lint-imports` (import-linter) checks the contracts of
pyproject.toml's [tool.importlinter] (which layer may import which, docs/architecture.md),
and each contract is shown to catch the import it forbids, so none passes vacuously.

lint-imports runs as a subprocess, from the virtual environment's bin next to the
interpreter running the tests, as a developer runs it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("importlinter", reason="import-linter is not installed (the dev extra)")

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

pytestmark = pytest.mark.slow

# One import each contract forbids, written as a new module into a copy of the package:
# (the module's path in the package, what it imports).
BAD_IMPORTS = [
    ("format/_bad.py", "import summarylib.writer.engine"),  # the layers; format's own rule
    ("reading/_bad.py", "import summarylib.writer.queue"),  # the reader's rule
    ("writer/_bad.py", "import summarylib.ops.errors\nimport torch"),  # the writer's; frameworks
    ("ops/_bad.py", "import summarylib.reading.records"),  # the ops' rule
    ("ops/scalar/_bad.py", "import summarylib.ops.image.png"),  # one folder per op
    ("compat/_bad.py", "import libcst"),  # libcst is migrate's
    ("integrations/_bad.py", "import tensorflow"),  # nothing imports TensorFlow
    ("_stray.py", ""),  # a module in no layer (the layers are exhaustive)
]


def _lint_imports(cwd: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), *arguments],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _contract_count() -> int:
    return (ROOT / "pyproject.toml").read_text().count("[[tool.importlinter.contracts]]")


def test_the_package_keeps_every_contract() -> None:
    result = _lint_imports(ROOT)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert f"Contracts: {_contract_count()} kept, 0 broken." in output, output


def test_every_contract_catches_the_import_it_forbids(tmp_path: Path) -> None:
    """A copy of the package with one bad import a contract: every contract breaks."""
    shutil.copytree(
        ROOT / "summarylib", tmp_path / "summarylib", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    for path, source in BAD_IMPORTS:
        (tmp_path / "summarylib" / path).write_text(source + "\n")

    # From the copy's directory, which lint-imports puts first on sys.path.
    result = _lint_imports(tmp_path, "--no-cache")
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert f"Contracts: 0 kept, {_contract_count()} broken." in output, output
    # The copy was checked, not the installed package: its bad modules are named.
    for module in ("summarylib.format._bad", "summarylib.ops.scalar._bad", "summarylib._stray"):
        assert re.search(rf"\b{re.escape(module)}\b", output), output
