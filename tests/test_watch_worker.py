"""The watch's view worker (summarylib.integrations.watch_remote and watch_worker): real
processes, real signals, read back through TensorBoard's own data access."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")

import torch
from PIL import Image

import summarylib as sl
from summarylib.integrations import watch_remote
from summarylib.integrations.torch import watch
from tests.tensorboard_data import provider_for, read_blob_sequences, read_tensors
from tests.test_watch import mlp

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKER_MODULE = "summarylib.integrations.watch_worker"
KINDS = ("parameters", "gradients", "activations")


def worker_pids(parent: int | None = None) -> list[int]:
    """The view workers whose parent is `parent` (this process), from /proc."""
    parent = os.getpid() if parent is None else parent
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                command = cmdline.read()
        except OSError:  # gone meanwhile
            continue
        if int(fields[1]) == parent and WORKER_MODULE.encode() in command and fields[0] != b"Z":
            found.append(int(entry))
    return found


def watched_run(logdir: str, steps: int = 4, **options: object) -> list[list[int]]:
    """Train the test MLP `steps` steps under `watch(log="all", log_freq=1, images=True)`;
    the worker processes seen after each step."""
    torch.manual_seed(0)
    model = mlp()
    seen = []
    with (
        sl.create_file_writer(logdir) as writer,
        watch(model, log="all", log_freq=1, images=True, writer=writer, variance_steps=2, **options),
    ):
        torch.manual_seed(1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
        for _ in range(steps):
            loss = model(torch.randn(4, 8)).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            seen.append(worker_pids())
    return seen


def views(logdir: str) -> tuple[dict, dict, dict]:
    """Every histogram's rows, every image's pixels and every image's description."""
    histograms = {
        tag: [(step, np.asarray(tensor)) for step, tensor in series]
        for tag, series in read_tensors(logdir, "histograms")["."].items()
    }
    images = {
        tag: [(step, np.asarray(Image.open(io.BytesIO(blobs[2])))) for step, blobs in series]
        for tag, series in read_blob_sequences(logdir, "images")["."].items()
    }
    from tensorboard import context as tb_context

    listed = provider_for(logdir).list_blob_sequences(
        tb_context.RequestContext(), experiment_id="", plugin_name="images"
    )
    descriptions = {tag: meta.description for tag, meta in listed["."].items()}
    return histograms, images, descriptions


@pytest.fixture
def worker_mode(monkeypatch):
    def set_mode(mode: str) -> None:
        monkeypatch.setenv(watch_remote.MODE_VARIABLE, mode)

    return set_mode


def test_one_worker_makes_the_same_views_as_the_threads_and_stops_with_the_close(tmp_path, worker_mode):
    worker_mode("off")
    assert watched_run(str(tmp_path / "threads")) == [[]] * 4
    worker_mode("on")
    seen = watched_run(str(tmp_path / "worker"))
    # One worker for every kind and step, started at the first logged step...
    assert len(seen[0]) == 1 and seen == [seen[0]] * 4
    # ... and gone once the writer is closed.
    assert worker_pids() == []
    threads, worker = views(str(tmp_path / "threads")), views(str(tmp_path / "worker"))
    histograms, images, _ = worker
    assert {tag.split("/")[0] for tag in histograms} == set(KINDS)
    assert set(images) == {f"images/{kind}" for kind in KINDS} | {"images/parameters_variance"}
    for made_here, made_there in zip(threads, worker, strict=True):
        assert made_here.keys() == made_there.keys()
        for tag in made_here:
            if isinstance(made_here[tag], str):
                assert made_here[tag] == made_there[tag], tag
                continue
            assert [s for s, _ in made_here[tag]] == [s for s, _ in made_there[tag]], tag
            for (_, here), (_, there) in zip(made_here[tag], made_there[tag], strict=True):
                np.testing.assert_array_equal(here, there, err_msg=tag)  # bucket for bucket, pixel for pixel


def test_warnings_about_the_data_reach_the_user_from_the_worker(tmp_path, worker_mode):
    worker_mode("on")
    model = torch.nn.Linear(4, 2)
    with torch.no_grad():
        model.weight[0, 0] = float("nan")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with sl.create_file_writer(str(tmp_path)) as writer, watch(model, log="parameters", writer=writer):
            model(torch.randn(3, 4)).sum().backward()
    messages = [str(w.message) for w in caught]
    assert any("left out 1 NaN" in message for message in messages), messages
    assert worker_pids() == []
    assert [step for step, _ in read_tensors(str(tmp_path), "histograms")["."]["parameters/weight"]] == [0]


@pytest.mark.parametrize("python", ["/nonexistent/python", "/bin/false"])
def test_views_are_made_on_the_writer_thread_when_the_worker_cannot_start(
    tmp_path, worker_mode, monkeypatch, python
):
    worker_mode("on")
    monkeypatch.setenv(watch_remote.PYTHON_VARIABLE, python)
    monkeypatch.setattr(watch_remote, "_unavailable", False)  # restored after: other tests start one
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        watched_run(str(tmp_path / "fallback"))
    started = [w for w in caught if "view worker process could not start" in str(w.message)]
    assert len(started) == 1, [str(w.message) for w in caught]
    worker_mode("off")
    watched_run(str(tmp_path / "threads"))
    fallback, threads = views(str(tmp_path / "fallback")), views(str(tmp_path / "threads"))
    for tag, series in threads[0].items():
        assert [s for s, _ in fallback[0][tag]] == [s for s, _ in series] == [0, 1, 2, 3]
    for tag, series in threads[1].items():
        for (_, here), (_, there) in zip(series, fallback[1][tag], strict=True):
            np.testing.assert_array_equal(here, there, err_msg=tag)


def test_a_killed_worker_costs_no_view(tmp_path, worker_mode):
    worker_mode("on")
    torch.manual_seed(0)
    model = mlp()
    first = []
    with sl.create_file_writer(str(tmp_path)) as writer, watch(model, log="all", log_freq=1, writer=writer):
        for step in range(4):
            model(torch.randn(4, 8)).pow(2).mean().backward()
            if step == 1:
                writer.flush()  # the worker has answered: it started
                (pid,) = first = worker_pids()
                os.kill(pid, signal.SIGKILL)
                os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)  # dead, not yet reaped
        writer.flush()
        again = worker_pids()
    assert first and again and again != first  # a new one started for the later steps
    assert writer.stats().events_dropped == 0
    for tag, series in read_tensors(str(tmp_path), "histograms")["."].items():
        assert [step for step, _ in series] == [0, 1, 2, 3], tag


def run_script(tmp_path, *parts: str) -> subprocess.CompletedProcess:
    """Run the script of these parts (each dedented) with the worker on."""
    script = tmp_path / "train.py"
    script.write_text("\n".join(textwrap.dedent(part) for part in parts))
    env = dict(os.environ, PYTHONPATH=ROOT, SUMMARYLIB_WATCH_WORKER="on")
    return subprocess.run(
        [sys.executable, str(script), str(tmp_path)], capture_output=True, text=True, env=env, timeout=120
    )


PRELUDE = """
import os, sys, torch
import summarylib as sl
from summarylib.integrations.torch import watch
from tests.test_watch_worker import worker_pids
torch.set_num_threads(1)

def run(logdir, steps, middle=lambda: None):
    # `steps` logged steps, middle(), `steps` more; the workers seen at the end
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
    writer = sl.create_file_writer(logdir)
    handle = watch(model, log="all", log_freq=1, images=True, writer=writer)
    for step in range(2 * steps):
        if step == steps:
            middle()
        model(torch.randn(4, 8)).sum().backward()
    seen = worker_pids()
    handle.remove()
    writer.close()
    return seen
"""


@pytest.mark.slow
def test_the_worker_never_runs_the_training_script_again(tmp_path):
    result = run_script(
        tmp_path,
        """
        import os, sys
        if os.environ.get("TRAINING_SCRIPT_RAN"):
            sys.exit("the training script ran a second time")
        os.environ["TRAINING_SCRIPT_RAN"] = "1"  # the worker inherits the environment
        """,
        PRELUDE,
        """
        seen = run(sys.argv[1], 2)
        assert len(seen) == 1 and worker_pids() == [], seen
        """,
    )
    assert result.returncode == 0 and "could not start" not in result.stderr, result.stderr
    histograms = read_tensors(str(tmp_path), "histograms")["."]
    assert [step for step, _ in histograms["parameters/0.weight"]] == [0, 1, 2, 3]


@pytest.mark.slow
def test_a_forked_child_starts_its_own_worker_and_the_parents_goes_on(tmp_path):
    result = run_script(
        tmp_path,
        PRELUDE,
        """
        def fork_in_the_middle():
            parent_worker = worker_pids()
            child = os.fork()
            if child == 0:
                ok = False
                try:
                    seen = run(os.path.join(sys.argv[1], "child"), 1)
                    ok = len(seen) == 1 and seen != parent_worker and worker_pids() == []
                finally:
                    os._exit(0 if ok else 1)
            assert os.waitpid(child, 0)[1] == 0
            assert worker_pids() == parent_worker  # the parent's worker is its own still

        seen = run(os.path.join(sys.argv[1], "parent"), 2, fork_in_the_middle)  # 2 steps after the fork
        assert len(seen) == 1 and worker_pids() == []
        """,
    )
    assert result.returncode == 0 and "could not start" not in result.stderr, result.stderr
    for run, steps in (("parent", [0, 1, 2, 3]), ("child", [0, 1])):
        histograms = read_tensors(str(tmp_path / run), "histograms")["."]
        assert [step for step, _ in histograms["gradients/2.bias"]] == steps, run


@pytest.mark.slow
def test_the_worker_imports_no_framework():
    """It starts in a fraction of a second because it needs numpy and summarylib only."""
    code = (
        f"import sys, {WORKER_MODULE}\n"
        "print(sorted(m for m in ('torch', 'keras', 'jax', 'tensorflow', 'tensorboard') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_by_default_the_worker_makes_large_views_only_where_a_core_is_left_for_it(monkeypatch):
    # Where torch's threads fill every core, the worker competes with them and costs more
    # than the writer's thread (benchmarks/bench_watch.py); with a core free it costs less.
    monkeypatch.setenv(watch_remote.MODE_VARIABLE, "auto")
    monkeypatch.setattr(watch_remote, "_unavailable", False)
    cores, threads = len(os.sched_getaffinity(0)), torch.get_num_threads()
    try:
        torch.set_num_threads(cores)
        assert not watch_remote.wanted(1 << 20)
        if cores > 1:
            torch.set_num_threads(cores - 1)
            assert watch_remote.wanted(1 << 20)
            assert not watch_remote.wanted(watch_remote.MIN_WORKER_VALUES - 1)  # not worth a process
    finally:
        torch.set_num_threads(threads)
