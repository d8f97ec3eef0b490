"""A real file system that fills up: a small tmpfs with all but a few bytes taken."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from tests.test_write_faults import tmpfs


@contextlib.contextmanager
def nearly_full_tmpfs(path: str, free: int) -> Iterator[str]:
    """A 4 MiB tmpfs mounted at `path` with about `free` bytes left free (a filler file
    takes the rest); skips the test where mounting is not permitted."""
    with tmpfs(path, "size=4m") as mount:
        stats = os.statvfs(mount)
        with open(os.path.join(mount, "filler"), "wb") as filler:
            filler.write(b"\0" * max(0, stats.f_bavail * stats.f_frsize - free))
        yield mount
