"""Every reading entry point (`load_table`, `iter_values`, `Reader`, `iter_events`,
`iter_records`, `find_sources`, `inspect` and its command line) reaches a bucket through the
`storage_options` it is given, as the writer does: a run on moto's S3 server is read with the
environment pointed at a port where nothing listens, so only the options can find it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("s3fs", reason="s3fs is not installed (the remote-test extra)")
pytest.importorskip("moto.server", reason="moto[server] is not installed (the remote-test extra)")

import summarylib as sl
from summarylib.inspect import inspect
from summarylib.reader import Reader, find_sources, iter_events, iter_records, iter_values, load_table
from tests.s3_server import _forget_filesystems, bucket_fixtures

s3, url, spill_root = bucket_fixtures("storage-options")

STEPS = list(range(5))
NOWHERE = "http://127.0.0.1:9"  # the discard port: nothing listens there


@pytest.fixture
def options(s3, url, monkeypatch) -> dict[str, str]:
    """A run of scalar "x" at STEPS written to `url`, then the environment pointed away from
    the server; returns the options that reach it."""
    writer = sl.create_file_writer(url)
    with writer.as_default():
        for step in STEPS:
            sl.scalar("x", step / 2, step=step)
    writer.close()
    reaching = {"endpoint_url": os.environ["AWS_ENDPOINT_URL"], "key": "testing", "secret": "testing"}
    for name in ("AWS_ENDPOINT_URL", "S3_ENDPOINT"):
        monkeypatch.setenv(name, NOWHERE)
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(name)
    _forget_filesystems()  # s3fs keeps the filesystems it made, endpoint and all
    return reaching


@pytest.mark.slow
def test_load_table_iter_values_and_reader_read_through_storage_options(url, options):
    table = load_table(url, storage_options=options, as_dataframe=False)
    assert table["step"].tolist() == STEPS
    assert table["value"].tolist() == [step / 2 for step in STEPS]
    assert [(v.tag, v.step, v.value) for v in iter_values(url, storage_options=options)] == [
        ("x", step, step / 2) for step in STEPS
    ]
    reader = Reader(url, storage_options=options)
    assert [v.step for v in reader.values()] == STEPS


@pytest.mark.slow
def test_one_file_readers_and_find_sources_read_through_storage_options(url, options):
    (files,) = find_sources(url, options).values()
    events = [e for path in files for e in iter_events(path, storage_options=options)]
    steps = [e.step for e in events if e.HasField("summary")]
    assert steps == STEPS
    records = [r for path in files for r in iter_records(path, storage_options=options)]
    assert len(records) == len(events)


@pytest.mark.slow
def test_inspect_and_its_command_line_read_through_storage_options(url, options):
    report = inspect(url, storage_options=options)
    (run,) = report.runs
    assert [(t.tag, t.count) for t in run.tags] == [("x", len(STEPS))]
    assert all(file.bytes > 0 for file in run.files)
    command = [sys.executable, "-m", "summarylib.inspect", "--logdir", url, "--json"]
    done = subprocess.run(
        [*command, "--storage_options", json.dumps(options)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    (run,) = json.loads(done.stdout)["runs"]
    assert [(t["tag"], t["count"]) for t in run["tags"]] == [("x", len(STEPS))]


@pytest.mark.slow
def test_the_command_line_names_a_storage_options_value_that_is_not_a_json_object(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "summarylib.inspect", "--logdir", str(tmp_path), "--storage_options", "[1]"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "--storage_options" in done.stderr and "expected a JSON object" in done.stderr
