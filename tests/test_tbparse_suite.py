"""tbparse's own test suite, unmodified, judges summarylib.tbparse: every test of it that
passes with tbparse here passes with summarylib's `SummaryReader` in its place.

The suite is not in the repository (its licence): `python tests/tbparse_suite/fetch.py
<clone of tbparse>` copies it into tests/tbparse_suite/cache; without it, or without tbparse
itself to run it against, this module skips and says why. It runs twice in subprocesses: once
with tbparse as installed (or from SUMMARYLIB_TBPARSE_PATH, a directory holding the `tbparse`
package), once with a stand-in `tbparse` package (tests/tbparse_suite/shim) first on
sys.path, whose `SummaryReader` is summarylib's. Most of the suite imports TensorFlow, which
is not installed here: those modules fail to import under both, and count for neither.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

SUITE = Path(__file__).resolve().parent / "tbparse_suite"
CACHE = SUITE / "cache"
SHIM = SUITE / "shim"
ROOT = Path(__file__).resolve().parent.parent

# Tests that assert what summarylib.tbparse does on purpose differently, and why.
INTENDED = {
    "tests/test_summary_reader/test_no_tensorflow.py::test_log_dir": (
        "asserts that images need TensorFlow (ModuleNotFoundError without it); "
        "summarylib.tbparse reads images and audio without TensorFlow"
    ),
}

# -rA lists each passing test; a module that cannot import (TensorFlow) is an error of its own.
PYTEST_OPTIONS = ["-q", "-rA", "-p", "no:cacheprovider", "-W", "ignore", "--continue-on-collection-errors"]

pytestmark = pytest.mark.slow


def _passed(python_path: list[str]) -> set[str]:
    """The node ids of the suite's tests that pass with `python_path` first on sys.path."""
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([*python_path, str(ROOT)]))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", *PYTEST_OPTIONS, "tests"],
        cwd=CACHE,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    return set(re.findall(r"^PASSED (\S+)", result.stdout, re.MULTILINE))


def _tbparse_path() -> list[str]:
    """Where tbparse itself is imported from: SUMMARYLIB_TBPARSE_PATH, or the environment."""
    extra = os.environ.get("SUMMARYLIB_TBPARSE_PATH")
    path = [extra] if extra else []
    found = subprocess.run(
        [sys.executable, "-c", "import tbparse"],
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(path)),
        capture_output=True,
        check=False,
    )
    if found.returncode:
        pytest.skip("tbparse is not installed (the test extra), nor at SUMMARYLIB_TBPARSE_PATH")
    return path


def test_every_suite_test_that_passes_with_tbparse_passes_with_summarylib() -> None:
    if not (CACHE / "tests" / "test_summary_reader").is_dir():
        pytest.skip("tbparse's suite is not fetched: python tests/tbparse_suite/fetch.py <clone of tbparse>")
    with_tbparse = _passed(_tbparse_path())
    with_summarylib = _passed([str(SHIM)])
    assert with_tbparse, "no test of tbparse's suite passed with tbparse: the run itself failed"
    lost = with_tbparse - with_summarylib - set(INTENDED)
    assert not lost, f"pass with tbparse, not with summarylib.tbparse: {sorted(lost)}"
