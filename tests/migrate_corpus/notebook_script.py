"""The code cells of a notebook as one script, IPython magics and shell lines left out, so a
corpus notebook can run as a program."""

from __future__ import annotations

import json


def notebook_script(text: str) -> str:
    """The code cells of notebook JSON `text`, in order, without `%`/`!` lines."""
    cells = json.loads(text)["cells"]
    lines = []
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        lines.extend(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
    return "\n".join(lines) + "\n"
