"""A local directory for the segment objects an object-store writer cannot upload yet.

While the store is down or slower than the run logs, segments beyond the writer's memory
bound are written here, each as a file named like the object it will become: a complete
event file that summarylib's reader and TensorBoard read as it is, and that a person can
upload by hand (copying the directory's files into the run's prefix) if the writer never
could. The directory is made under the temporary directory (`TMPDIR`) when the first
segment is spilled; each file is deleted once its object is uploaded, and the directory
once it is empty at close.
"""

from __future__ import annotations

import contextlib
import os
import tempfile


class Spill:
    """Segments kept on local disk, by object name."""

    def __init__(self) -> None:
        self.path: str | None = None  # the directory, once something was spilled

    def put(self, name: str, data: bytes | bytearray) -> None:
        """Keep `data` as file `name`; OSError (and no partial file) when it cannot be
        written whole."""
        if self.path is None:
            self.path = tempfile.mkdtemp(prefix="summarylib-spill-")
        path = os.path.join(self.path, name)
        try:
            with open(path, "xb") as file:
                file.write(data)
        except BaseException:
            with contextlib.suppress(OSError):
                os.remove(path)
            raise

    def get(self, name: str) -> bytes:
        """The bytes kept as `name`."""
        assert self.path is not None
        with open(os.path.join(self.path, name), "rb") as file:
            return file.read()

    def remove(self, name: str) -> None:
        """Forget `name` (its object is uploaded); a file that cannot be deleted stays."""
        assert self.path is not None
        with contextlib.suppress(OSError):
            os.remove(os.path.join(self.path, name))

    def remove_if_empty(self) -> None:
        """Delete the directory when it holds nothing (every spilled segment uploaded)."""
        if self.path is not None:
            with contextlib.suppress(OSError):  # not empty: it keeps what was not uploaded
                os.rmdir(self.path)
                self.path = None
