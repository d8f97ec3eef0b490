"""tensorboardX's `export_scalars_to_json`, by reading the `add_scalars` series back.

tensorboardX keeps every `add_scalars` value in memory (its docs warn it can exhaust
RAM) and dumps them as `{series: [[walltime, step, value], ...]}`, then forgets them.
Here the writer only remembers which series runs it wrote and how many values of each
were exported already; an export flushes the writer, reads each series run's event files
with summarylib's reader, and writes the values not exported yet, in the same layout.
The series are keyed by their run's directory (tensorboardX keys them by the directory
of its series writer, `<logdir>/<main_tag>/<name>`; the torch-shaped writer puts the
series in `<logdir>/<main_tag>_<name>`, as torch does).
"""

from __future__ import annotations

import json

from summarylib.reader import iter_values


def export_scalars(path: str, exported: dict[str, int]) -> None:
    """Write the values of the series runs in `exported` (run directory: values exported
    so far) after the first `exported[run]` to `path` as JSON, and count them exported."""
    result = {}
    for run, done in exported.items():
        try:
            values = [
                [value.wall_time, value.step, value.value]
                for value in iter_values(run, plugins="scalars")
                if value.run == "."
            ]
        except FileNotFoundError:  # nothing written to it yet
            values = []
        if values[done:]:  # tensorboardX lists the series that have values since the last export
            result[run] = values[done:]
        exported[run] = len(values)
    with open(path, "w") as file:
        json.dump(result, file)
