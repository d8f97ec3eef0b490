"""The range pyproject.toml declares, tried: on the lowest Python it allows, with every
runtime dependency at its lowest declared version, summarylib installs and its core suite
(`pytest -m "not slow"` with only the `test` extra) passes. A declared floor that does not
work fails here, not on a user's machine.

The lowest Python is found as pyenv installs it (this project's machines carry it); without
it the test skips, saying so."""

from __future__ import annotations

import glob
import os
import re
import subprocess
from pathlib import Path

import pytest

# pyproject is read with tomllib (3.11+); the run on the lowest Python collects this module and skips it.
tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs tomllib (Python 3.11+)")
ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow  # builds a virtual environment and runs the core suite in it


def _declared() -> tuple[str, list[str]]:
    """(the lowest Python version declared, each runtime dependency pinned to its floor)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    python = re.fullmatch(r">=(\d+\.\d+)", project["requires-python"])
    assert python, f"requires-python is not a plain floor: {project['requires-python']}"
    pins = []
    for requirement in project["dependencies"]:
        name, floor = re.match(r"([\w-]+)>=([\w.]+)", requirement).groups()
        pins.append(f"{name}=={floor}")
    return python.group(1), pins


def _interpreter(version: str) -> str | None:
    """A Python `version` interpreter: pyenv's, or one on PATH that runs."""
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    candidates = sorted(glob.glob(os.path.join(root, "versions", f"{version}.*", "bin", "python")))
    for candidate in [*candidates, f"python{version}"]:
        try:
            found = subprocess.run([candidate, "--version"], capture_output=True, text=True, timeout=30)
        except OSError:
            continue
        if found.returncode == 0 and found.stdout.startswith(f"Python {version}."):
            return candidate
    return None


def test_the_lowest_declared_versions_install_and_pass_the_core_suite(tmp_path):
    version, pins = _declared()
    python = _interpreter(version)
    if python is None:
        pytest.skip(f"no Python {version} here (requires-python's floor) to try the declared range on")
    venv = tmp_path / "lowest"
    subprocess.run([python, "-m", "venv", str(venv)], check=True, timeout=120)
    constraints = tmp_path / "lowest.txt"
    constraints.write_text("\n".join(pins) + "\n")
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--only-binary", ":all:"]
    installed = subprocess.run(
        [*pip, "-c", str(constraints), "-e", f"{ROOT}[test]"], capture_output=True, text=True, timeout=900
    )
    assert installed.returncode == 0, installed.stderr[-3000:]
    suite = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-m",
            "pytest",
            "-q",
            "-m",
            "not slow",
            "-p",
            "no:cacheprovider",
            "-x",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert suite.returncode == 0, f"on Python {version} with {pins}:\n{suite.stdout[-4000:]}"
