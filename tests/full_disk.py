"""Real file systems that fail: a size- or inode-limited tmpfs, and one with all but a few
bytes taken (we run as root here; elsewhere the tests that need them skip)."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator

import pytest


@contextlib.contextmanager
def tmpfs(path: str, options: str) -> Iterator[str]:
    """A real tmpfs mounted at `path` with `options` (a size or inode limit) for the block;
    skips the test where mounting is not permitted (not root, no CAP_SYS_ADMIN)."""
    os.makedirs(path, exist_ok=True)
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", path], capture_output=True)
    if result.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {result.stderr.decode(errors='replace').strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", path], check=True)


@contextlib.contextmanager
def nearly_full_tmpfs(path: str, free: int) -> Iterator[str]:
    """A 4 MiB tmpfs mounted at `path` with about `free` bytes left free (a filler file
    takes the rest); skips the test where mounting is not permitted."""
    with tmpfs(path, "size=4m") as mount:
        stats = os.statvfs(mount)
        with open(os.path.join(mount, "filler"), "wb") as filler:
            filler.write(b"\0" * max(0, stats.f_bavail * stats.f_frsize - free))
        yield mount
