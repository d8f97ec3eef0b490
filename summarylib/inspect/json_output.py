"""A `Report` as JSON, for machines: every field of every run, its status and the verdict."""

from __future__ import annotations

import json
from dataclasses import asdict

from summarylib.inspect.report import Report


def render_json(report: Report) -> str:
    """The report as JSON."""
    runs = []
    for run in report.runs:
        entry = asdict(run)
        entry["problems"] = [asdict(problem) for problem in run.problems]
        runs.append(entry)
    return json.dumps(
        {
            "path": report.path,
            "tag": report.tag,
            "status": report.status,
            "reason": report.reason(),
            "runs": runs,
        },
        indent=2,
    )
