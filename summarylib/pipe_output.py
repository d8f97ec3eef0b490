"""Standard output for the command-line tools (`inspect`, `migrate`), which people pipe into
`head`, `less` or `grep -q`: a reader that stops early is not an error."""

from __future__ import annotations

import os
import sys


def write_stdout(text: str) -> bool:
    """Write `text` to stdout and flush; False when the reader has closed the pipe, after
    which stdout is pointed at /dev/null, so the interpreter's own flush at exit does not
    fail on the closed pipe again (with a traceback)."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return False
    return True
