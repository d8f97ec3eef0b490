"""`watch(..., live=True)` and Keras's `Watch(..., live=True)`: a real model trains while
a real control file (summarylib.format.live_control.write_request) asks for views, and
the rolling files in `<run>/live` are read back with summarylib's reader and
TensorBoard's data access. Times are never asserted: each switch is awaited in steps
after the poll interval has passed (a step after POLL_SECONDS polls)."""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import textwrap
import time
import uuid

import pytest

pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")

import torch
from tensorboard import context as tb_context

import summarylib as sl
from summarylib.format.live_control import CONTROL_FILE, LIVE_SUBDIR, LiveRequest, control_path, write_request
from summarylib.integrations.torch import watch
from summarylib.integrations.watch_live import POLL_SECONDS
from summarylib.reader import iter_values
from tests.tensorboard_data import provider_for, read_blob_sequences

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def mlp() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))


class Training:
    """A model training with SGD, watched live; `steps(n)` runs n more steps."""

    def __init__(self, logdir: str, log: str = "all", **options) -> None:
        self.model = mlp()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.05)
        self.writer = sl.create_file_writer(logdir)
        self.watch = watch(
            self.model, log=log, writer=self.writer, optimizer=self.optimizer, live=True, **options
        )

    def steps(self, count: int) -> None:
        for _ in range(count):
            loss = self.model(torch.randn(4, 8)).pow(2).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()

    def after_poll(self, count: int = 1) -> None:
        """Let the poll interval pass, then `count` steps (the first one polls)."""
        time.sleep(POLL_SECONDS + 0.05)
        self.steps(count)

    def close(self) -> None:
        self.watch.remove()
        self.writer.close()


@pytest.fixture
def training(logdir):
    made: list[Training] = []

    def make(**options) -> Training:
        made.append(Training(logdir, **options))
        return made[-1]

    yield make
    for run in made:
        run.close()


def live_steps(logdir: str) -> dict[str, list[int]]:
    """{tag: [step, ...]} of what `<run>/live` holds now."""
    found: dict[str, list[int]] = {}
    live = os.path.join(logdir, LIVE_SUBDIR)
    if os.path.isdir(live):
        for value in iter_values(live):
            found.setdefault(value.tag, []).append(value.step)
    return found


def wait_for(logdir: str, tags: dict[str, int]) -> dict[str, list[int]]:
    """What `<run>/live` holds once each tag of `tags` has at least that many images (the
    live writer writes each view as it is made, on its own thread: the test follows the
    files as a dashboard does)."""
    deadline = time.monotonic() + 30
    while True:
        steps = live_steps(logdir)
        if all(len(steps.get(tag, ())) >= count for tag, count in tags.items()):
            return steps
        assert time.monotonic() < deadline, f"waited 30 s for {tags}, found {steps}"
        time.sleep(0.01)


def test_nothing_is_written_while_nobody_looks(logdir, training):
    run = training()
    run.after_poll(20)  # no control file
    write_request(logdir, LiveRequest((), 1))  # views off
    run.after_poll(20)
    write_request(logdir, LiveRequest(("parameters",), 1))
    stale = time.time() - 60
    os.utime(control_path(logdir), (stale, stale))  # nobody touched it for a minute
    run.after_poll(20)
    assert os.listdir(os.path.join(logdir, LIVE_SUBDIR)) == []  # live, and nothing written
    assert live_steps(logdir) == {}


def test_a_request_is_followed_at_the_next_step_after_a_poll(logdir, training):
    run = training()
    run.steps(5)
    write_request(logdir, LiveRequest(("parameters", "gradients"), 3))
    started = time.time()
    run.after_poll(1)  # this step polls, sees the request, and the next multiple of 3 is logged
    count = run.watch.step
    run.steps(12)
    expected = [s for s in range(count, count + 12) if s % 3 == 0]
    steps = wait_for(logdir, {"images/parameters": len(expected), "images/gradients": len(expected)})
    assert set(steps) == {"images/parameters", "images/gradients"}
    assert steps["images/parameters"] == expected
    assert steps["images/gradients"] == expected
    walls = [v.wall_time for v in iter_values(os.path.join(logdir, LIVE_SUBDIR))]
    assert all(started <= wall <= time.time() for wall in walls)  # each its step's time
    # No histograms and no images in the run itself: only the live views.
    assert not any(value.plugin in ("histograms", "images") for value in iter_values(logdir, runs="."))


def test_live_images_carry_the_band_legend(logdir, training):
    run = training(log="parameters")
    write_request(logdir, LiveRequest(("parameters",), 1))
    run.after_poll(2)
    run.watch.remove()  # closes the live writer
    images = read_blob_sequences(os.path.join(logdir, LIVE_SUBDIR), "images")["."]
    assert set(images) == {"images/parameters"}
    metadata = provider_for(os.path.join(logdir, LIVE_SUBDIR)).list_blob_sequences(
        tb_context.RequestContext(), experiment_id="", plugin_name="images"
    )
    description = metadata["."]["images/parameters"].description
    for name, _ in run.model.named_parameters():
        assert f"| {name} |" in description


def test_views_switch_and_turn_off(logdir, training):
    run = training(variance_steps=2)
    write_request(logdir, LiveRequest(("activations",), 1))
    run.after_poll(3)
    assert set(wait_for(logdir, {"images/activations": 2})) == {"images/activations"}
    hooked = sum(len(m._forward_hooks) for m in run.model.modules())
    assert hooked  # activation hooks on the leaves while activations are asked
    write_request(logdir, LiveRequest(("variance",), 1))
    run.after_poll(5)
    steps = wait_for(logdir, {"images/parameters_variance": 2})  # one every 2 logged steps
    assert set(steps) == {"images/activations", "images/parameters_variance"}
    assert sum(len(m._forward_hooks) for m in run.model.modules()) < hooked
    write_request(logdir, LiveRequest((), 1))
    run.after_poll(1)
    run.watch._live.close()  # what was queued before the switch is on disk
    before = live_steps(logdir)
    run.steps(10)
    time.sleep(0.2)
    assert live_steps(logdir) == before


def test_only_the_kinds_of_log_are_served(logdir, training):
    run = training(log="gradients")
    write_request(logdir, LiveRequest(("parameters", "gradients", "activations", "variance"), 1))
    run.after_poll(3)
    assert set(wait_for(logdir, {"images/gradients": 2})) == {"images/gradients"}


def test_retain_seconds_rolls_the_live_files(logdir, training):
    run = training(retain_seconds=1)
    write_request(logdir, LiveRequest(("parameters",), 1))
    run.after_poll(2)
    first = wait_for(logdir, {"images/parameters": 1})["images/parameters"][0]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # until the first files are deleted
        run.steps(5)
        time.sleep(0.05)
        if wait_for(logdir, {"images/parameters": 1})["images/parameters"][0] != first:
            break
    files = glob.glob(os.path.join(logdir, LIVE_SUBDIR, "events.out.tfevents.*"))
    assert live_steps(logdir)["images/parameters"][0] > first
    assert len(files) <= 3  # the retained second, rolled every second, and the newest


def test_the_live_writer_closes_with_the_watch_and_with_its_run(logdir, training):
    run = training(log="parameters")
    write_request(logdir, LiveRequest(("parameters",), 1))
    run.after_poll(2)
    live = run.watch._live
    assert live is not None and live.writer() is not None and not live.writer().closed
    opened = live.writer()
    run.writer.close()
    assert opened.closed
    run.steps(3)  # the run's writer is closed: nothing more, and no error
    run.watch.remove()


def test_without_a_writer_the_run_is_the_default_writers_of_the_time(tmp_path):
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    first, second = str(tmp_path / "first"), str(tmp_path / "second")

    def steps(count: int) -> None:
        time.sleep(POLL_SECONDS + 0.05)
        for _ in range(count):
            model(torch.randn(4, 8)).pow(2).mean().backward()
            optimizer.step()

    with watch(model, log="parameters", optimizer=optimizer, live=True):
        for run in (first, second):
            with sl.create_file_writer(run) as writer, writer.as_default():
                write_request(run, LiveRequest(("parameters",), 1))
                steps(3)
    assert len(live_steps(first)["images/parameters"]) >= 2
    assert len(live_steps(second)["images/parameters"]) >= 2


def test_a_run_on_a_generic_fsspec_store_is_watched_live(logdir):
    """memory://: the control object polled on the watch's thread, the views uploaded as
    objects of `<run>/live` (moto's S3 server: tests/test_watch_live_store.py)."""
    fsspec = pytest.importorskip("fsspec", reason="fsspec is not installed (the remote-test extra)")
    url = f"memory://watch-live-{uuid.uuid4().hex}/run"
    fs, path = fsspec.core.url_to_fs(url)
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)

    def steps_until(done) -> None:
        deadline = time.monotonic() + 30
        while not done():
            assert time.monotonic() < deadline
            model(torch.randn(4, 8)).pow(2).mean().backward()
            optimizer.step()
            time.sleep(0.01)

    def live_url_steps() -> list[int]:
        fs.invalidate_cache()
        if not fs.exists(f"{path}/{LIVE_SUBDIR}"):
            return []
        return [value.step for value in iter_values(f"{url}/{LIVE_SUBDIR}")]

    with sl.create_file_writer(url) as writer:
        handle = watch(model, log="parameters", writer=writer, optimizer=optimizer, live=True)
        steps_until(lambda: handle.step >= 60)  # nobody looking: about a second, polled twice
        assert live_url_steps() == []
        body = {"version": 1, "views": ["parameters"], "log_freq": 2}
        fs.pipe_file(f"{path}/{CONTROL_FILE}", json.dumps(body).encode())  # a dashboard on the store
        steps_until(lambda: len(live_url_steps()) >= 3)
        assert all(step % 2 == 0 for step in live_url_steps())
        handle.remove()


def test_numerics_are_checked_while_nobody_looks(logdir, training):
    run = training(check_numerics=True)
    with torch.no_grad():
        run.model[0].weight[0, 0] = float("nan")
    with pytest.raises(FloatingPointError, match="non-finite"):
        run.steps(1)
    run.writer.flush()
    tags = {value.tag for value in iter_values(logdir, runs=".")}
    assert "numerics/first_nonfinite" in tags
    assert os.listdir(os.path.join(logdir, LIVE_SUBDIR)) == []  # live, and nothing written


def test_a_writer_that_writes_nowhere_is_never_watched_live():
    model = mlp()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    with watch(model, writer=sl.create_noop_writer(), optimizer=optimizer, live=True) as handle:
        time.sleep(POLL_SECONDS + 0.05)
        for _ in range(3):
            model(torch.randn(4, 8)).pow(2).mean().backward()
            optimizer.step()
    assert handle.step == 3


def test_live_arguments_are_checked(logdir):
    model = mlp()
    with pytest.raises(ValueError, match="images"):
        watch(model, images=True, live=True)
    with pytest.raises(ValueError, match="retain_seconds"):
        watch(model, live=True, retain_seconds=0)


def test_keras_watch_writes_the_asked_views(logdir):
    pytest.importorskip("keras", reason="keras is not installed (the frameworks extra)")
    import keras
    import numpy as np

    from summarylib.integrations.keras import Watch

    keras.utils.set_random_seed(0)
    model = keras.Sequential(
        [keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)]
    )
    model.compile(optimizer="sgd", loss="mse")
    data = (np.random.default_rng(0).normal(size=(24, 4)).astype("float32"), np.ones((24, 1), "float32"))
    writer = sl.create_file_writer(logdir)
    callback = Watch(log="all", writer=writer, live=True)
    model.fit(*data, batch_size=2, epochs=1, verbose=0, callbacks=[callback])  # nobody looks
    assert os.listdir(os.path.join(logdir, LIVE_SUBDIR)) == []  # live, and nothing written
    write_request(logdir, LiveRequest(("parameters", "gradients"), 2))
    time.sleep(POLL_SECONDS + 0.05)
    model.fit(*data, batch_size=2, epochs=1, verbose=0, callbacks=[callback])
    writer.close()
    steps = live_steps(logdir)
    assert set(steps) == {"images/parameters", "images/gradients"}
    assert steps["images/parameters"] == list(range(12, 24, 2))


TRAINING_SCRIPT = textwrap.dedent(
    """
    import sys, time
    import torch
    import summarylib as sl
    from summarylib.integrations.torch import watch

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    with sl.create_file_writer(sys.argv[1]) as writer:
        handle = watch(model, log="all", writer=writer, optimizer=optimizer, live=True)
        end = time.monotonic() + float(sys.argv[2])
        while time.monotonic() < end:
            loss = model(torch.randn(32, 64)).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            time.sleep(0.01)
        handle.remove()
    """
)


@pytest.mark.slow
def test_a_training_process_follows_a_request_from_outside(logdir):
    """A real training process; the test, as a dashboard would, writes the request and
    follows `<run>/live` with the reader until the asked views come."""
    process = subprocess.Popen(
        [sys.executable, "-c", TRAINING_SCRIPT, logdir, "60"], cwd=ROOT, stderr=subprocess.PIPE
    )
    try:
        while not glob.glob(os.path.join(logdir, "events.out.tfevents.*")):
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            time.sleep(0.05)
        time.sleep(1.0)
        assert live_steps(logdir) == {}  # nobody looking
        write_request(logdir, LiveRequest(("parameters", "activations"), 1))
        while set(live_steps(logdir)) != {"images/parameters", "images/activations"}:
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            time.sleep(0.05)
        write_request(logdir, LiveRequest((), 1))
        time.sleep(2 * POLL_SECONDS + 0.5)  # a poll, and a step, and what it queued is written
        stopped = live_steps(logdir)
        time.sleep(1.0)
        assert live_steps(logdir) == stopped
    finally:
        process.kill()
        process.wait()
