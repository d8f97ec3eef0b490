"""Inspection itself: gather the runs under a path, then put together each run's numbers,
warnings and damage into one `Report`."""

from __future__ import annotations

from summarylib.format.storage import StorageOptions, join
from summarylib.inspect.caveats import caveats
from summarylib.inspect.gathering import RunData, gather
from summarylib.inspect.report import Report, RunReport
from summarylib.inspect.run_stats import file_reports, tag_reports, tensorboard_inspect, tensorboard_tags
from summarylib.reader import Reader


def inspect(path: str, tag: str | None = None, storage_options: StorageOptions = None) -> Report:
    """A Report of the event file or logdir at `path`, for one tag or all; `storage_options`
    for the filesystem of a URL path."""
    runs, reader = gather(path, tag, storage_options)
    problems = reader.problems
    reports = []
    for data in runs.values():
        report = _run_report(path, data, reader, tag)
        report.problems = [p for p in problems if p.path in data.files]
        reports.append(report)
    return Report(path, tag, reports)


def _run_report(path: str, data: RunData, reader: Reader, tag: str | None) -> RunReport:
    tags = tag_reports(data, reader)
    report = RunReport(
        data.run,
        path if data.run == "." else join(path, data.run),
        file_reports(data, reader.storage_options),
        tags,
        tensorboard_tags(data),
        tensorboard_inspect(data, tag),
    )
    report.warnings = caveats(data, tags, reader)
    return report
