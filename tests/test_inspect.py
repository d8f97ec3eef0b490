"""`python -m summarylib.inspect`: tensorboard --inspect's numbers, run for real on the same
logdirs, then what it adds: tags, files, damage with offsets, warnings, JSON, exit status."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import summarylib as sl
from summarylib import inspect
from summarylib.proto import event_pb2, summary_pb2, tensor_pb2, types_pb2
from tests.event_files import event, event_path, flip, metadata, record_offsets, scalar_event, write_events

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SESSION = event_pb2.SessionLog


def run_inspect(*args: str) -> subprocess.CompletedProcess:
    """`python -m summarylib.inspect ARGS` in a fresh interpreter."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    command = [sys.executable, "-m", "summarylib.inspect", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)


def tensorboard_inspect(*args: str) -> str:
    """The output of `tensorboard --inspect ARGS`."""
    command = [sys.executable, "-m", "tensorboard.main", "--inspect", *args]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def sections(output: str) -> dict[str, dict]:
    """{section title: {field: None, [items] or {key: value}}} of inspect's sections."""
    found: dict[str, dict] = {}
    current = None
    for line in output.splitlines():
        if line.startswith(("These tags are in", "Event statistics for")):
            current = found[line] = {}
        elif line.startswith("=") or not line.strip():
            current = None
        elif current is not None and line.startswith("   "):
            field = current[next(reversed(current))]
            key, _, value = line.strip().partition(" ")
            if isinstance(field, dict) or value.strip():
                current[next(reversed(current))] = {**(field or {}), key: value.strip()}
            else:
                current[next(reversed(current))] = [*(field or []), key]
        elif current is not None:
            name, _, missing = line.partition(" ")
            current[name] = None if missing == "-" else []
    return found


def build_logdir(root: str) -> str:
    """Runs from summarylib, tensorboardX and by hand (graphs, session logs, restarts)."""
    pytest.importorskip("tensorboardX", reason="tensorboardX is not installed (the frameworks extra)")
    from tensorboardX import SummaryWriter

    logdir = os.path.join(root, "logs")
    writer = sl.create_file_writer(os.path.join(logdir, "summarylib"))
    with writer.as_default():
        for step in (0, 1, 2, 5, 3, 4):
            sl.scalar("loss", 1.0 / (step + 1), step=step)
            sl.scalar("lr", 0.1, step=step)
        sl.write("hist", np.ones((4, 3)), step=2, metadata=metadata("histograms"))
    writer.close()
    tbx = SummaryWriter(os.path.join(logdir, "tensorboardx"))
    for step in range(4):
        tbx.add_scalar("acc", step / 4, step)
    tbx.add_histogram("weights", np.arange(10.0), 2)
    tbx.add_image("image", np.zeros((3, 4, 4), np.uint8), 3)
    tbx.add_audio("audio", np.zeros(100), 1, sample_rate=8000)
    tbx.add_text("note", "hello", 1)
    tbx.close()
    write_events(
        event_path(os.path.join(logdir, "by_hand")),
        [
            event_pb2.Event(wall_time=1.0, file_version="brain.Event:2"),
            event_pb2.Event(step=0, session_log={"status": SESSION.START}),
            event_pb2.Event(step=0, graph_def=b"\x0a\x00"),
            *(scalar_event("x", step, float(step), wall_time=10.0 + step) for step in range(10)),
            event_pb2.Event(step=5, session_log={"status": SESSION.START}),
            *(scalar_event("x", step, float(step), wall_time=30.0 + step) for step in range(5, 8)),
            event_pb2.Event(step=7, session_log={"status": SESSION.CHECKPOINT}),
            event_pb2.Event(step=8, session_log={"status": SESSION.STOP}),
        ],
    )
    return logdir


@pytest.fixture(scope="module")
def logdir(tmp_path_factory) -> str:
    return build_logdir(str(tmp_path_factory.mktemp("inspect")))


# tensorboard --inspect's numbers ------------------------------------------------------------


@pytest.mark.slow
def test_default_numbers_are_those_of_tensorboard_inspect(logdir, capsys):
    expected = sections(tensorboard_inspect("--logdir", logdir))
    assert inspect.main(["--logdir", logdir]) == 0
    output = capsys.readouterr().out
    ours = sections(output)
    assert len(expected) == 6 and ours == expected
    stats = ours[f"Event statistics for {os.path.join(logdir, 'by_hand')}:"]
    assert stats["sessionlog:start"] == {"steps": "[0, 5]", "outoforder_steps": "[]"}
    assert stats["tensor"]["outoforder_steps"] == "[(9, 5)]"
    assert stats["graph"]["num_steps"] == "1"
    assert output.splitlines()[-1].startswith("OK: 3 runs, 3 files")


@pytest.mark.slow
def test_numbers_for_one_tag_of_one_event_file_are_those_of_tensorboard_inspect(logdir, capsys):
    (path,) = (os.path.join(d, f) for d, _, files in os.walk(logdir) for f in files if "summarylib" in d)
    expected = sections(tensorboard_inspect("--event_file", path, "--tag", "loss"))
    assert inspect.main(["--event_file", path, "--tag", "loss"]) == 0
    ours = sections(capsys.readouterr().out)
    assert ours == expected
    assert ours[f"Event statistics for tag loss in {path}:"]["tensor"]["outoforder_steps"] == "[(5, 3)]"


# What it adds ---------------------------------------------------------------------------------


def test_tags_files_and_tensorboard_numbers_as_json(logdir, capsys):
    assert inspect.main(["--logdir", logdir, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["status"] == "ok" and report["reason"].startswith("OK: 3 runs")
    runs = {run["run"]: run for run in report["runs"]}
    assert list(runs) == ["by_hand", "summarylib", "tensorboardx"]
    tags = {tag["tag"]: tag for tag in runs["summarylib"]["tags"]}
    assert tags["loss"]["plugin"] == "scalars" and tags["loss"]["types"] == {"float32 []": 6}
    assert (tags["loss"]["min_step"], tags["loss"]["max_step"], tags["loss"]["last_step"]) == (0, 5, 4)
    assert tags["loss"]["steps_backwards"] == 1 and tags["loss"]["bytes"] > 6 * 40
    assert tags["hist"]["types"] == {"float64 [4, 3]": 1} and tags["hist"]["plugin"] == "histograms"
    tbx = {tag["tag"]: (tag["plugin"], tag["types"]) for tag in runs["tensorboardx"]["tags"]}
    assert tbx["acc"] == ("scalars", {"simple_value": 4}) and tbx["image"] == ("images", {"image": 1})
    assert tbx["note/text_summary"] == ("text", {"string [1]": 1})
    (file,) = runs["summarylib"]["files"]
    assert file["bytes"] == os.path.getsize(file["path"]) and file["values"] == 13
    assert runs["by_hand"]["tensorboard_inspect"]["sessionlog:stop"] == {"steps": [8], "outoforder_steps": []}
    kinds = {run: [w["kind"] for w in runs[run]["warnings"]] for run in runs}
    assert kinds == {
        "by_hand": ["steps_backwards", "restart_purge"],
        "summarylib": ["steps_backwards"] * 2,
        "tensorboardx": [],
    }
    purge = runs["by_hand"]["warnings"][1]["message"]
    assert "SessionLog.START at step 5" in purge and "discards the 5 values" in purge


def test_warnings_for_overlapping_files_and_plugins_tensorboard_cannot_read(tmp_path, capsys):
    run = str(tmp_path / "run")
    write_events(
        event_path(run, "events.out.tfevents.1.a"),
        [scalar_event("x", s, 1.0, wall_time=100.0 + s) for s in range(9)],
    )
    write_events(
        event_path(run, "events.out.tfevents.2.b"),
        [scalar_event("x", s, 1.0, wall_time=95.0 + s) for s in range(9, 12)],
    )
    three = tensor_pb2.TensorProto(
        dtype=types_pb2.DT_FLOAT, tensor_shape={"dim": [{"size": 3}]}, float_val=[1, 2, 3]
    )
    values = [
        summary_pb2.Summary.Value(tag="custom", tensor=three, metadata=metadata("my_plugin")),
        summary_pb2.Summary.Value(tag="bare", tensor=three),
        summary_pb2.Summary.Value(tag="vector", tensor=three, metadata=metadata("scalars")),
        summary_pb2.Summary.Value(tag="x", tensor=three, metadata=metadata("histograms")),
    ]
    write_events(event_path(run, "events.out.tfevents.2.b"), [event(20, *values, wall_time=120.0)])
    assert inspect.main(["--logdir", str(tmp_path), "--json"]) == 0
    (report,) = json.loads(capsys.readouterr().out)["runs"]
    messages = {w["kind"]: [] for w in report["warnings"]}
    for warning in report["warnings"]:
        messages[warning["kind"]].append(warning["message"])
    assert (
        "events.out.tfevents.1.a got values until 1970-01-01 00:01:48, after events.out.tfevents.2.b"
        in (messages["overlapping_files"][0])
    )
    assert messages["plugin"] == [
        "tag 'bare': no plugin named in its metadata: TensorBoard shows it on no dashboard",
        "tag 'custom': plugin 'my_plugin' is not one TensorBoard ships: no built-in dashboard shows it",
        "tag 'vector': the scalars plugin expects a real tensor of one element, not float32 [3]",
        "tag 'x': the scalars plugin expects a real tensor of one element, not float32 [3]",
    ]
    assert messages["metadata_conflict"] == [
        "tag 'x': later metadata names plugin 'histograms', but TensorBoard keeps the first, 'scalars'"
    ]


# Damage and exit status ----------------------------------------------------------------------


@pytest.mark.slow
def test_damage_is_reported_with_file_and_offset_and_a_non_zero_exit(tmp_path):
    path = event_path(str(tmp_path))
    write_events(path, [scalar_event("x", s, 1.0) for s in range(100)])
    offsets = record_offsets(path)
    size = os.path.getsize(path)
    flip(path, offsets[40] + 20)
    with open(path, "ab") as file:
        file.write(bytes(100))
    result = run_inspect("--logdir", str(tmp_path))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    skipped = offsets[41] - offsets[40]
    corrupt = f"{path}: payload CRC mismatch, {skipped} bytes skipped at byte offset {offsets[40]}"
    assert f"DAMAGE: {corrupt}" in lines
    assert f"DAMAGE: {path}: zero-filled tail (100 bytes) at byte offset {size}" in lines
    assert lines[-1] == f"CORRUPT: {corrupt} (and 1 more problem)"
    assert any(line.split()[:5] == ["x", "scalars", "float32", "[]", "99"] for line in lines)


def test_truncated_file_exits_non_zero_and_json_says_why(tmp_path, capsys):
    path = event_path(str(tmp_path))
    write_events(path, [scalar_event("x", s, 1.0) for s in range(10)])
    last = record_offsets(path)[-1]
    os.truncate(path, os.path.getsize(path) - 3)
    assert inspect.main(["--event_file", path, "--json"]) == 1
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    (problem,) = report["runs"][0]["problems"]
    assert (problem["kind"], problem["offset"], problem["size"]) == (
        "truncated",
        last,
        os.path.getsize(path) - last,
    )
    assert report["status"] == "corrupt" and report["runs"][0]["tags"][0]["count"] == 9
    assert captured.err.startswith(f"CORRUPT: {path}: last record cut short")


@pytest.mark.parametrize(
    ("make", "flag", "message"),
    [
        (lambda root: os.path.join(root, "missing"), "--logdir", "does not exist"),
        (lambda root: root, "--logdir", "no event files found within logdir"),
        (lambda root: write_one_file(root), "--logdir", "is an event file, not a logdir: use --event_file"),
        (lambda root: root, "--event_file", "is a directory: use --logdir"),
        (lambda root: os.path.join(root, "missing"), "--event_file", "does not exist"),
    ],
)
def test_usual_mistakes_get_a_message_and_exit_status_2(tmp_path, capsys, make, flag, message):
    assert inspect.main([flag, make(str(tmp_path))]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("error: ") and message in captured.err


def write_one_file(root: str) -> str:
    path = event_path(root)
    write_events(path, [scalar_event("x", 1, 1.0)])
    return path
