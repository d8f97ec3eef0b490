"""Tell what is on disk: `python -m summarylib.inspect --logdir DIR` (or `--event_file FILE`).

The first sections are those of `tensorboard --inspect`, with the same numbers, so people
who know it can read them. Then, per run: each tag's plugin, dtypes and shapes, count, step
and wall-time ranges and bytes on disk; each file; and what TensorBoard will make of it:
corruption and truncated or zero-filled tails (file and byte offset), steps going backwards,
`SessionLog.START` restarts that purge data, files of one run written at overlapping times,
plugin metadata TensorBoard does not understand. `--json` prints all of it for machines.

Exit status: 0 when the files are sound, 1 when any is damaged (the last line says why), 2
for a usage error (a path that does not exist, a logdir without event files, ...).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from summarylib.format import storage
from summarylib.inspect.analysis import inspect
from summarylib.inspect.json_output import render_json
from summarylib.inspect.text_output import render_text
from summarylib.pipe_output import write_stdout
from summarylib.reader import find_sources, is_event_file


def _storage_options(text: str) -> dict[str, Any]:
    """`--storage_options`: a JSON object, fsspec's options for the URL's filesystem."""
    try:
        options = json.loads(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"expected a JSON object, got {text!r} ({error})") from None
    if not isinstance(options, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object, got {text!r}")
    return options


def _usage_error(args: argparse.Namespace) -> str | None:
    """What is wrong with the paths given, if anything (the usual mistakes)."""
    options = args.storage_options
    if args.logdir is not None:
        path = args.logdir
        found = storage.kind(path, options=options)
        if found is None:
            return f"--logdir {path} does not exist"
        if found == "file":
            if is_event_file(path):
                return f"{path} is an event file, not a logdir: use --event_file {path}"
            return f"--logdir {path} is a file, not a directory"
        if not find_sources(path, options):
            return f"no event files found within logdir {path} (files with 'tfevents' in their name)"
        return None
    path = args.event_file
    found = storage.kind(path, options=options)
    if found is None:
        return f"--event_file {path} does not exist"
    if found == "directory":
        return f"{path} is a directory: use --logdir {path}"
    return None


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m summarylib.inspect", description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--logdir", help="a directory of runs (event files in it or below)")
    source.add_argument("--event_file", help="one event file")
    parser.add_argument("--tag", help="only the values of this tag")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--storage_options",
        type=_storage_options,
        help="options for a URL's filesystem, as a JSON object (e.g. '{\"anon\": true}')",
    )
    args = parser.parse_args(argv)
    error = _usage_error(args)
    if error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    report = inspect(args.logdir or args.event_file, args.tag, args.storage_options)
    write_stdout((render_json(report) if args.json else render_text(report)) + "\n")
    if report.problems:
        if args.json:
            print(report.reason(), file=sys.stderr)
        return 1
    return 0
