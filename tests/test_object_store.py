"""Logdirs in object storage: segment objects on a real S3-protocol server (moto's, through
s3fs), read back by summarylib and by TensorBoard's own loader; `memory://` for the
generic fsspec path."""

from __future__ import annotations

import collections
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

pytest.importorskip("s3fs", reason="s3fs is not installed (the remote-test extra)")
pytest.importorskip("moto.server", reason="moto[server] is not installed (the remote-test extra)")

import boto3
import fsspec
import s3fs

import summarylib as sl
from summarylib.compat.torch import SummaryWriter as TorchStyleWriter
from summarylib.inspect import main as inspect_main
from summarylib.reader import Reader, ReadStatus, find_sources, iter_events, iter_values
from tests.s3_server import bucket_fixtures
from tests.tensorboard_data import read_scalars

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUCKET = "summarylib-tests"


s3, url, spill_root = bucket_fixtures(BUCKET, spill_autouse=True)


def objects(url: str) -> list[str]:
    fs, path = fsspec.core.url_to_fs(url)
    fs.invalidate_cache()
    return sorted(fs.find(path))


def steps_of(url: str, tag: str = "x") -> list[int]:
    return [value.step for value in iter_values(url) if value.tag == tag]


@pytest.mark.slow
def test_every_event_once_in_order_for_tensorboard_while_live_and_after_close(url):
    writer = sl.create_file_writer(url + "/run")
    with writer.as_default():
        for step in range(100):
            sl.scalar("x", float(step), step=step)
            if step % 25 == 24:
                writer.flush()  # a new segment object per flush
        live = read_scalars(url)
        sl.image("picture", np.zeros((4, 4, 3), np.uint8), step=100)
    assert [step for step, _ in live["run"]["x"]] == list(range(100))
    writer.close()
    assert len(objects(url)) == 5
    assert [step for step, _ in read_scalars(url)["run"]["x"]] == list(range(100))
    assert steps_of(url) == list(range(100))
    assert os.path.exists("s3:") is False


@pytest.mark.slow
def test_bytes_uploaded_stay_within_a_tenth_of_the_event_bytes(url):
    writer = sl.create_file_writer(url)
    with writer.as_default():
        for step in range(20_000):
            sl.scalar("loss", 1.0 / (step + 1), step=step)
            if step % 2_000 == 1_999:
                writer.flush()
    writer.close()
    segments = writer._engine.file
    assert segments.bytes_uploaded <= 1.1 * segments.bytes_written
    fs, _ = fsspec.core.url_to_fs(url)
    assert sum(fs.size(path) for path in objects(url)) == segments.bytes_uploaded


@pytest.mark.slow
def test_an_outage_is_reported_and_the_writer_catches_up_losing_nothing(s3, url):
    writer = sl.create_file_writer(url, storage_options={"config_kwargs": {"retries": {"max_attempts": 1}}})
    with writer.as_default():
        for step in range(10):
            sl.scalar("x", float(step), step=step)
        writer.flush()
        s3.cut()
        try:
            for step in range(10, 20):
                sl.scalar("x", float(step), step=step)
            with pytest.raises(sl.WriterError, match="upload"):
                writer.flush()
        finally:
            s3.restore()
        for step in range(20, 30):
            sl.scalar("x", float(step), step=step)
        writer.flush()
    writer.close()
    assert steps_of(url) == list(range(30))


@pytest.mark.slow
def test_sigterm_uploads_everything_and_sigkill_leaves_only_whole_objects(url, tmp_path):
    code = """
import sys, time, summarylib as sl
writer = sl.create_file_writer(sys.argv[1], flush_millis=300)
writer.set_as_default()
step = 0
while True:
    sl.scalar("x", float(step), step=step)
    step += 1
    if step == 400:
        print("ready", flush=True)
    time.sleep(0.002)
"""
    for how in (signal.SIGTERM, signal.SIGKILL):
        target = f"{url}/{how.name}"
        child = subprocess.Popen(
            [sys.executable, "-c", code, target],
            stdout=subprocess.PIPE,
            text=True,
            env=dict(os.environ, PYTHONPATH=ROOT),
        )
        assert child.stdout.readline().strip() == "ready"
        time.sleep(1.0)  # a few uploads
        child.send_signal(how)
        child.wait(30)
        steps = []
        for path in objects(target):
            status = ReadStatus()
            steps += [e.step for e in iter_events("s3://" + path, status) if e.HasField("summary")]
            assert status.problems == []  # every object whole
        assert steps == list(range(len(steps))) and len(steps) >= 400
        assert [step for step, _ in read_scalars(target)["."]["x"]] == steps


@pytest.mark.slow
def test_torch_style_writer_and_inspect_on_a_bucket(url, capsys):
    with TorchStyleWriter(url) as writer:
        for step in range(3):
            writer.add_scalar("loss", 1.0 / (step + 1), step)
            writer.add_scalars("lr", {"base": 0.1, "warm": 0.01 * step}, step)
    assert sorted(read_scalars(url)) == [".", "lr_base", "lr_warm"]
    assert inspect_main(["--logdir", url]) == 0
    assert "loss" in capsys.readouterr().out


def test_memory_urls_cover_the_generic_fsspec_path():
    writer = sl.create_file_writer("memory://logs/run")
    with writer.as_default(step=1):
        sl.scalar("x", 2.0)
        sl.text("note", "hello")
    writer.close()
    assert [(v.tag, v.step) for v in iter_values("memory://logs")] == [("x", 1), ("note", 1)]


def test_a_writers_path_on_an_object_store_is_a_url_that_reads_back():
    """URLs stay strings end to end: `writer.path` is the object's URL, as the logdir was
    given, so the file a writer names can be read with the reader as it is."""
    writer = sl.create_file_writer("memory://paths/run")
    with writer.as_default(step=3):
        sl.scalar("x", 1.0)
    writer.close()
    assert writer.path.startswith("memory://") and "/paths/run/events.out.tfevents." in writer.path
    assert [event.step for event in iter_events(writer.path) if event.HasField("summary")] == [3]


def test_a_url_without_its_filesystem_is_a_clear_error_and_no_local_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ModuleNotFoundError, match="gcsfs"):
        sl.create_file_writer("gs://bucket/run")
    with pytest.raises(ValueError, match="retain_seconds"):
        sl.create_file_writer("memory://x/run", retain_seconds=10)
    assert os.listdir(tmp_path) == []


@pytest.mark.slow
def test_the_reader_follows_a_live_run_in_a_bucket(url):
    writer = sl.create_file_writer(url)
    reader = Reader(url)
    with writer.as_default():
        seen = []
        for block in range(3):
            for step in range(block * 10, block * 10 + 10):
                sl.scalar("x", float(step), step=step)
            writer.flush()
            seen.append([value.step for value in reader.values()])
    writer.close()
    assert seen == [list(range(block * 10, block * 10 + 10)) for block in range(3)]


@pytest.mark.slow
def test_projector_files_and_lightning_versions_in_a_bucket(url, tmp_path, monkeypatch):
    from summarylib.integrations.lightning import TensorBoardLogger

    monkeypatch.chdir(tmp_path)
    writer = sl.create_file_writer(url + "/run")
    with writer.as_default(step=3):
        sl.embedding("features", np.eye(4), metadata=["a", "b", "c", "d"])
    writer.close()
    names = {path.rsplit("/", 1)[-1] for path in objects(url + "/run")}
    assert {"projector_config.pbtxt", "tensors.tsv", "metadata.tsv"} <= names
    for expected_version in (0, 1):
        logger = TensorBoardLogger(url, name="lightning")
        assert logger.version == expected_version
        logger.log_hyperparams({"lr": 0.1})
        logger.log_metrics({"loss": 1.0}, step=0)
        logger.finalize("success")
    assert any(path.endswith("lightning/version_1/hparams.yaml") for path in objects(url + "/lightning"))
    assert os.listdir(tmp_path) == []  # nothing local, no directory named "s3:"


def run_child(code: str, *args: str, signal_after_ready: signal.Signals | None = None) -> str:
    """Run `code` in a fresh interpreter; with `signal_after_ready`, send it once the
    child prints "ready". Returns what it wrote to stderr."""
    child = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, PYTHONPATH=ROOT),
    )
    if signal_after_ready is not None:
        assert child.stdout.readline().strip() == "ready"
        child.send_signal(signal_after_ready)
    _, stderr = child.communicate(timeout=60)
    return stderr


SERIES_PROGRAM = """
import sys, time
from summarylib.compat.torch import SummaryWriter
writer = SummaryWriter(sys.argv[1])
for step in range(5):
    writer.add_scalar("loss", 1.0, step)
    writer.add_scalars("lr", {"a": 0.1, "b": 0.2}, step)
if sys.argv[2] == "sigterm":
    print("ready", flush=True)
    time.sleep(60)
"""


@pytest.mark.parametrize("ending", ["exit", "sigterm"])
@pytest.mark.slow
def test_add_scalars_series_on_a_store_are_uploaded_at_exit_and_on_sigterm(tmp_path, ending):
    url = f"local://{tmp_path}/run"
    run_child(SERIES_PROGRAM, url, ending, signal_after_ready=signal.SIGTERM if ending == "sigterm" else None)
    scalars = read_scalars(str(tmp_path / "run"))
    steps = {run: [step for step, _ in values] for run, tags in scalars.items() for values in tags.values()}
    assert steps == {".": [0, 1, 2, 3, 4], "lr_a": [0, 1, 2, 3, 4], "lr_b": [0, 1, 2, 3, 4]}


FORK_PROGRAM = """
import os, sys
import summarylib as sl
from summarylib.compat.torch import SummaryWriter
writer = sl.create_file_writer(sys.argv[1] + "/v2")
torch_style = SummaryWriter(sys.argv[1] + "/torch")
with writer.as_default():
    sl.scalar("x", 0.0, step=0)
    torch_style.add_scalars("s", {"a": 0.0}, 0)
    pid = os.fork()
    step = 100 if pid == 0 else 1
    sl.scalar("x", float(step), step=step)
    torch_style.add_scalars("s", {"a": float(step)}, step)
writer.close()
torch_style.close()
if pid == 0:
    os._exit(0)
os.waitpid(pid, 0)
"""


@pytest.mark.slow
def test_a_forked_child_on_a_store_writes_its_own_objects_and_loses_nothing(tmp_path):
    stderr = run_child(FORK_PROGRAM, f"local://{tmp_path}")
    assert "Exception ignored" not in stderr and "Traceback" not in stderr, stderr
    v2 = sorted(value.step for value in iter_values(str(tmp_path / "v2")))
    assert v2 == [0, 1, 100]  # the parent's step 0 once, not uploaded again by the child
    series = sorted(value.step for value in iter_values(str(tmp_path / "torch" / "s_a")))
    assert series == [0, 1, 100]


@pytest.mark.slow
def test_embedding_files_use_the_writers_storage_options(s3, monkeypatch):
    options = {
        "key": "testing",
        "secret": "testing",
        "client_kwargs": {"endpoint_url": os.environ["AWS_ENDPOINT_URL"]},
    }
    for variable in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(variable)
    url = f"s3://{BUCKET}/options"
    writer = sl.create_file_writer(url, storage_options=options)
    with writer.as_default(step=0):
        sl.embedding("features", np.eye(3))
    writer.close()
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    assert any(path.endswith("projector_config.pbtxt") for path in objects(url))


@pytest.mark.slow
def test_a_missing_bucket_is_reported_not_created(s3, spill_root):
    writer = sl.create_file_writer("s3://no-such-bucket-here/run")
    with writer.as_default(step=0):
        sl.scalar("x", 1.0)
    with pytest.raises(sl.WriterError):
        writer.close()
    (kept,) = spill_root.iterdir()  # what the store refused stays on local disk
    assert [(value.tag, value.step) for value in iter_values(str(kept))] == [("x", 0)]
    fs, _ = fsspec.core.url_to_fs(f"s3://{BUCKET}")
    fs.invalidate_cache()
    assert not fs.exists("no-such-bucket-here")


def test_local_paths_with_colons_stay_local(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    writer = sl.create_file_writer("runs/lr=0.1::seed=1")
    writer.close()
    assert os.listdir(tmp_path / "runs") == ["lr=0.1::seed=1"]
    assert writer.path.startswith(os.path.join("runs", "lr=0.1::seed=1"))


def requests_made(monkeypatch) -> collections.Counter:
    """The S3 requests s3fs makes from now on, by operation."""
    made = collections.Counter()
    call = s3fs.core.S3FileSystem._call_s3

    async def counted(self, method, *args, **kwargs):
        made[method] += 1
        return await call(self, method, *args, **kwargs)

    monkeypatch.setattr(s3fs.core.S3FileSystem, "_call_s3", counted)
    return made


def write_segments(run: str, steps: int, every: int = 1) -> None:
    """Scalar `x` at steps 0..steps-1 into `run`, a segment object per `every` steps."""
    writer = sl.create_file_writer(run)
    with writer.as_default():
        for step in range(steps):
            sl.scalar("x", float(step), step=step)
            if step % every == every - 1:
                writer.flush()
    writer.close()


@pytest.mark.slow
def test_a_read_of_a_bucket_lists_it_twice_and_gets_each_object_once(url, monkeypatch):
    write_segments(url + "/run", 100, every=25)
    segments = objects(url)
    made = requests_made(monkeypatch)
    assert steps_of(url) == list(range(100))
    # Whether the logdir exists, then its whole tree in one listing; no HEAD per object.
    assert made == {"list_objects_v2": 2, "get_object": len(segments)}
    made.clear()
    assert steps_of(f"s3://{segments[0]}") == list(range(25))
    assert made == {"head_object": 2, "get_object": 1}


@pytest.mark.slow
def test_a_reader_of_a_logdir_sees_what_another_client_adds_to_its_runs(url):
    write_segments(url + "/source", 2)
    client = boto3.client("s3")  # not through s3fs, whose listings would be told of the copies
    reader = Reader(url + "/logdir")
    seen = []
    for source in objects(url + "/source"):
        name = source.rsplit("/", 1)[1]
        key = f"{url.removeprefix(f's3://{BUCKET}/')}/logdir/run/{name}"
        client.copy_object(Bucket=BUCKET, Key=key, CopySource=source)
        seen += [value.step for value in reader.values()]
    assert seen == [0, 1]


@pytest.mark.slow
def test_a_following_reader_fetches_each_finished_object_once(url, monkeypatch):
    """Segment objects do not change: once one is read whole and a newer one exists, later
    reads fetch only what is new (and the newest object, which may still be followed)."""
    writer = sl.create_file_writer(url + "/run")
    reader = Reader(url)
    made = requests_made(monkeypatch)
    seen = []
    with writer.as_default():
        for step in range(12):
            sl.scalar("x", float(step), step=step)
            writer.flush()  # one object per step
            if step % 4 == 3:
                made.clear()
                seen += [value.step for value in reader.values()]
                # The first read fetches four objects; each later one the previous newest
                # object again and the four new ones.
                assert made["get_object"] == (4 if step == 3 else 5)
    writer.close()
    assert seen == list(range(12))


def local_event_file(directory, steps: range) -> bytes:
    """The bytes of a local event file holding scalar `x` at `steps`."""
    writer = sl.create_file_writer(str(directory))
    with writer.as_default():
        for step in steps:
            sl.scalar("x", float(step), step=step)
    writer.close()
    return open(writer.path, "rb").read()


def test_a_following_reader_rereads_older_files_of_appendable_filesystems(tmp_path):
    """Only object stores' objects count as finished: on other filesystems an older file
    may still grow while a newer one exists, and what it gains is read."""
    fs = fsspec.filesystem("memory")
    older, newer = "memory://grow/events.out.tfevents.1.a", "memory://grow/events.out.tfevents.2.b"
    first, later = (
        local_event_file(tmp_path / "a", range(3)),
        local_event_file(tmp_path / "b", range(100, 101)),
    )
    fs.pipe_file(older, first)
    fs.pipe_file(newer, later)
    reader = Reader("memory://grow")
    assert [value.step for value in reader.values()] == [0, 1, 2, 100]
    grown = local_event_file(tmp_path / "c", range(3, 6))
    header_record = 12 + int.from_bytes(grown[:8], "little") + 4  # the file_version event
    fs.pipe_file(older, first + grown[header_record:])
    assert [value.step for value in reader.values()] == [3, 4, 5]


@pytest.mark.slow
def test_directory_marker_objects_are_not_event_files(url):
    """Consoles and some tools make an empty `name/` object for a folder; one named like an
    event file is still a folder."""
    bucket_key = url.removeprefix(f"s3://{BUCKET}/")
    boto3.client("s3").put_object(Bucket=BUCKET, Key=f"{bucket_key}/x.tfevents.d/", Body=b"")
    writer = sl.create_file_writer(url + "/x.tfevents.d")
    with writer.as_default():
        sl.scalar("x", 1.0, step=7)
    writer.close()
    assert list(find_sources(url)) == ["x.tfevents.d"]
    assert steps_of(url) == [7]


@pytest.mark.slow
def test_objects_fetched_ahead_are_dropped_when_a_read_stops_early(url):
    from summarylib.reading.fetch_ahead import FetchAhead

    write_segments(url + "/run", 8)
    paths = [f"s3://{key}" for key in objects(url)]
    ahead = FetchAhead(paths, window=4)
    first = ahead.take(paths[0])
    assert first is not None and first.result()[:8]  # the first object's bytes
    pending = list(ahead._pending.values())
    assert len(pending) == 4  # the next four, requested while the first is read
    ahead.cancel()
    for request in pending:
        assert request.cancelled() or request.done()
    assert ahead.take(paths[1]) is None  # nothing left: read when opened, as without fetching ahead
    reader = Reader(url)
    assert next(iter(reader.values())).step == 0  # stopped after one value ...
    assert [value.step for value in reader.values()] == list(range(1, 8))  # ... and the rest follows
