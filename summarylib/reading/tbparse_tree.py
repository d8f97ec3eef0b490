"""What is at each path below a log path, for summarylib.tbparse's tree of readers: a file, a
directory and the names in it, or nothing.

tbparse walks a local directory entry by entry; a bucket has no directories to walk, and
asking about each path would be a request each. Here a local tree is asked as tbparse asks
it, and a URL's tree is listed once (a request per 1000 objects), its directories being the
prefixes of the objects' names.
"""

from __future__ import annotations

import os
import posixpath

from summarylib.format import storage
from summarylib.format.storage import StorageOptions, is_url, local_path
from summarylib.reading.discovery import is_event_file


class Tree:
    """The entries below `top`, a local path (or `file://` URL) or a URL of another
    filesystem (listed once, with `options`)."""

    def __init__(self, top: str, options: StorageOptions = None) -> None:
        self._top = top.rstrip("/")
        self._listed: dict[str, list[str]] | None = None
        self._files: set[str] = set()
        self._top_kind: str | None = None
        if is_url(top):
            self._list(self._top, options)

    def kind(self, path: str) -> str | None:
        """ "file", "directory", or None when nothing is there."""
        if self._listed is None:
            path = local_path(path)
            return "file" if os.path.isfile(path) else "directory" if os.path.isdir(path) else None
        path = path.rstrip("/")
        if path in self._files:
            return "file"
        return "directory" if path in self._listed else self._top_kind if path == self._top else None

    def names(self, directory: str) -> list[str]:
        """The names of a directory's entries (files and directories), sorted."""
        if self._listed is None:
            return sorted(os.listdir(local_path(directory)))
        return sorted(self._listed.get(directory.rstrip("/"), []))

    def event_files(self) -> list[str] | None:
        """The event files at or below the top as listed (`top` itself when it is a file, as
        `find_sources` has it); None for a local tree, which is asked, not listed."""
        if self._listed is None:
            return None
        if self._top_kind == "file":
            return [self._top]
        return sorted(file for file in self._files if is_event_file(file))

    def _list(self, top: str, options: StorageOptions) -> None:
        self._listed = {}
        for directory, names in storage.tree(top, options).items():
            directory = directory.rstrip("/")
            self._files.update(f"{directory}/{name}" for name in names)
            self._listed.setdefault(directory, []).extend(names)
            while directory != top and directory.startswith(top + "/"):  # its parents, up to top
                parent, name = posixpath.split(directory)
                entries = self._listed.setdefault(parent, [])
                if name in entries:
                    break
                entries.append(name)
                directory = parent
        # An event file's URL lists as nothing below it: ask what it is.
        self._top_kind = "directory" if self._listed else storage.kind(top, options=options)
