"""Tell what is on disk: `python -m summarylib.inspect --logdir DIR` (or `--event_file FILE`),
or `inspect(path)` for the same as a `Report`.

What the command prints, and its exit statuses, are described in `cli`. The code is one job a
module: fields (`tensorboard --inspect`'s vocabulary), gathering (a logdir's values as
columns), run_stats (per tag, per file, per field), caveats (warnings), analysis (the
`Report` of a path), report (its data), formatting, text_output and json_output (rendering)
and cli (arguments, usage errors, exit status). Import from this package; the modules may move.

A surface, on top of the layers: it reads with the reader's side (reader, decoding,
reading, format, proto) and prints through pipe_output; it never imports the writer or the ops.
"""

from __future__ import annotations

from summarylib.inspect.analysis import inspect
from summarylib.inspect.cli import main
from summarylib.inspect.json_output import render_json
from summarylib.inspect.report import Caveat, FileReport, Report, RunReport, TagReport
from summarylib.inspect.text_output import render_text

__all__ = [
    "Caveat",
    "FileReport",
    "Report",
    "RunReport",
    "TagReport",
    "inspect",
    "main",
    "render_json",
    "render_text",
]
