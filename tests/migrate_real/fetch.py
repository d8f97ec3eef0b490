"""Copy the real public programs of manifest.txt into tests/migrate_real/cache/ (git ignores
it: their licences vary, so they are never committed), for tests/test_migrate_real.py.

    python tests/migrate_real/fetch.py [--mirror DIR]

Each file is read at its pinned commit from a local mirror of its repository when there is
one (DIR/owner+name/repo, a bare git directory; DIR defaults to $MIGRATE_REAL_MIRROR), else
from raw.githubusercontent.com. CI has no network but package registries: there the cache is
absent and the test skips, saying so. A file already cached is not fetched again.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "manifest.txt"
CACHE = HERE / "cache"


def entries(manifest: Path = MANIFEST) -> list[tuple[str, str, str]]:
    """(repository, commit, path) of each program the manifest names."""
    found = []
    for line in manifest.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            repo, commit, path = line.split()
            found.append((repo, commit, path))
    return found


def cached(repo: str, commit: str, path: str) -> Path:
    """Where `repo`'s `path` at `commit` lies in the cache (the repository's layout kept, so
    that the modules beside a file are beside it there too)."""
    return CACHE / repo.replace("/", "+") / commit[:10] / path


def _read(repo: str, commit: str, path: str, mirror: Path | None) -> bytes:
    git_dir = mirror / repo.replace("/", "+") / "repo" if mirror else None
    if git_dir is not None and git_dir.is_dir():
        command = ["git", f"--git-dir={git_dir}", "show", f"{commit}:{path}"]
        return subprocess.run(command, check=True, capture_output=True).stdout
    url = f"https://raw.githubusercontent.com/{repo}/{commit}/{path}"
    with urllib.request.urlopen(url, timeout=60) as response:
        return response.read()


def main(argv: list[str] | None = None) -> int:
    """Fetch what is missing from the cache; 1 when a file could not be fetched."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=os.environ.get("MIGRATE_REAL_MIRROR"))
    args = parser.parse_args(argv)
    failed = 0
    for repo, commit, path in entries():
        target = cached(repo, commit, path)
        if target.exists():
            continue
        try:
            data = _read(repo, commit, path, args.mirror)
        except (OSError, subprocess.CalledProcessError) as error:
            print(f"not fetched: {repo} {path}: {error}", file=sys.stderr)
            failed += 1
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
