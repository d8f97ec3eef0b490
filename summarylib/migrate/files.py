"""Reading a file to migrate and writing it back without harming it.

A file is read as bytes and decoded in its own encoding (a UTF-8 BOM or a PEP 263 coding
cookie, as Python itself reads it), with its line endings as they are, so that what the
migration did not change encodes back to the very same bytes; a file whose text would not
come back byte-identical is refused rather than rewritten. Only regular files are opened
(never blocking on a FIFO or a device). A file is written by writing a temporary file beside
it, syncing it to disk and renaming it over the original with the original's mode (and owner,
where allowed), so that an interrupted run leaves it either as it was or fully migrated.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path

# The suffix of the temporary files written beside the originals (not a source suffix, so
# that a temporary file a SIGKILL left behind is never migrated itself).
TEMPORARY_SUFFIX = ".summarylib-migrate.tmp"


class Refused(Exception):
    """A file that is not migrated: not a regular file, unreadable, or not in its encoding."""


@dataclass(frozen=True)
class SourceText:
    """A file's text and how to encode it back (its encoding, BOM included: `utf-8-sig`)."""

    text: str
    encoding: str


def read_text(path: Path, notebook: bool = False) -> SourceText:
    """The text of the regular file `path` (JSON, always UTF-8, when `notebook`), or raise
    Refused saying why."""
    try:
        data = _read_regular(path)
    except OSError as error:
        raise Refused(f"cannot be read: {error.strerror or error}") from None
    try:
        if notebook:
            encoding = "utf-8-sig" if data.startswith(b"\xef\xbb\xbf") else "utf-8"
        else:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError) as error:
        raise Refused(f"not readable in its encoding: {error}") from None
    if text.encode(encoding) != data:
        raise Refused(f"its {encoding} text would not be written back byte-identical")
    return SourceText(text, encoding)


def _read_regular(path: Path) -> bytes:
    """The bytes of `path`, opened without blocking and read only if it is a regular file."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    with open(fd, "rb", closefd=True) as file:
        mode = os.fstat(file.fileno()).st_mode
        if not stat.S_ISREG(mode):
            raise Refused(f"not a regular file ({_kind(mode)})")
        return file.read()


def _kind(mode: int) -> str:
    """What a non-regular file is, in words."""
    kinds = {stat.S_ISDIR: "a directory", stat.S_ISFIFO: "a FIFO", stat.S_ISSOCK: "a socket"}
    return next((name for test, name in kinds.items() if test(mode)), "a device")


def encode(source: SourceText, text: str) -> bytes:
    """`text` in the encoding `source` was read in, or raise Refused when it cannot be."""
    try:
        return text.encode(source.encoding)
    except UnicodeEncodeError as error:
        raise Refused(f"the migrated text does not fit its {source.encoding} encoding: {error}") from None


def write_atomic(path: Path, data: bytes) -> None:
    """Replace the file `path` (or create it) by `data` atomically: a temporary file in the
    same directory, written, synced, given the original's mode and owner, then renamed over
    it. On any error the temporary file is removed, the original is untouched, and the
    OSError is raised."""
    target = Path(os.path.realpath(path))
    original = os.stat(target) if target.exists() else None
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=TEMPORARY_SUFFIX, dir=target.parent)
    try:
        with open(fd, "wb", closefd=True) as file:
            file.write(data)
            file.flush()
            os.fchmod(file.fileno(), stat.S_IMODE(original.st_mode) if original else _default_mode())
            if original is not None:
                _keep_owner(file.fileno(), original)
            os.fsync(file.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    _sync_directory(target.parent)


def _default_mode() -> int:
    """The mode a new file gets from open(): 0o666 less the umask."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def _keep_owner(fd: int, original: os.stat_result) -> None:
    """Give the temporary file the original's owner and group, where this process may."""
    if (original.st_uid, original.st_gid) == (os.geteuid(), os.getegid()):
        return
    # Not root: the file becomes the user's own, as any editor's save would make it.
    with contextlib.suppress(PermissionError):
        os.fchown(fd, original.st_uid, original.st_gid)


def _sync_directory(directory: Path) -> None:
    """Sync the rename itself to disk (where the platform allows opening a directory)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
