"""Copy tbparse's test suite into tests/tbparse_suite/cache (gitignored: its licence keeps it
out of the repository), for tests/test_tbparse_suite.py.

    python tests/tbparse_suite/fetch.py SOURCE

SOURCE: a clone of https://github.com/j3soon/tbparse (a work tree or a bare git directory: its
HEAD's tests/ are taken) or a directory holding tbparse's tests/ folder. The cache also gets a
pytest.ini, so the suite runs as its own project, not under summarylib's pytest settings.
"""

from __future__ import annotations

import argparse
import io
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

CACHE = Path(__file__).resolve().parent / "cache"


def _git_dir(source: Path) -> Path | None:
    """The git directory of a clone (work tree or bare), or None."""
    for candidate in (source / ".git", source):
        if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    return None


def fetch(source: Path, cache: Path = CACHE) -> str:
    """Fill `cache` with the suite's tests/ from `source`; returns where it came from."""
    if cache.exists():
        shutil.rmtree(cache)
    cache.mkdir(parents=True)
    git_dir = _git_dir(source)
    if git_dir is not None:
        archive = subprocess.run(
            ["git", f"--git-dir={git_dir}", "archive", "--format=tar", "HEAD", "tests"],
            capture_output=True,
            check=True,
        ).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(cache, filter="data")
        commit = subprocess.run(
            ["git", f"--git-dir={git_dir}", "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        origin = f"{source} at {commit}"
    elif (source / "tests" / "test_summary_reader").is_dir():
        shutil.copytree(source / "tests", cache / "tests")
        origin = str(source)
    else:
        raise SystemExit(f"{source}: neither a clone of tbparse nor a directory holding its tests/")
    (cache / "pytest.ini").write_text("[pytest]\n")
    (cache / "SOURCE").write_text(origin + "\n")
    return origin


def main(argv: list[str] | None = None) -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("source", type=Path, help="a clone of tbparse, or a directory holding its tests/")
    origin = fetch(parser.parse_args(argv).source)
    print(f"tbparse's suite from {origin} is in {CACHE}", file=sys.stderr)


if __name__ == "__main__":
    main()
