"""pyflakes' findings on a program or a notebook's code, without line numbers, so that the
findings before and after a migration (which adds and removes lines) can be compared."""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from pathlib import Path

from pyflakes.api import check
from pyflakes.reporter import Reporter


def notebook_code(text: str) -> str:
    """A notebook's code cells as one module: IPython magics and shell lines become `pass` at
    their indentation (so a `try:` around `%tensorflow_version` still parses), and `from
    __future__` lines, legal at the top of any cell, are dropped."""
    lines = []
    for cell in json.loads(text)["cells"]:
        if cell["cell_type"] != "code":
            continue
        for line in "".join(cell["source"]).splitlines():
            stripped = line.lstrip()
            if stripped.startswith(("%", "!")):
                lines.append(line[: len(line) - len(stripped)] + "pass")
            elif not stripped.startswith("from __future__"):
                lines.append(line)
    return "\n".join(lines) + "\n"


def findings(path: Path) -> Counter[str]:
    """pyflakes' messages on `path` (a .py file or a notebook), each once per occurrence."""
    text = path.read_text(encoding="utf-8", errors="replace")
    code = notebook_code(text) if path.suffix == ".ipynb" else text
    out = io.StringIO()
    check(code, path.name, Reporter(out, out))
    return Counter(re.sub(r"^[^:]*:\d+:(\d+:)? ?", "", line) for line in out.getvalue().splitlines())


def new_findings(before: Path, after: Path) -> list[str]:
    """The findings on `after` that `before` did not have."""
    return sorted((findings(after) - findings(before)).elements())
