"""`watch(..., live=True)` on a run in an S3 bucket (moto's server, as
tests/test_object_store.py uses it): the control object polled by the watch's thread, the
views uploaded as objects of `<run>/live`, switched off, and the old ones deleted after
`retain_seconds`."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import pytest

pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")
pytest.importorskip("moto.server", reason="moto[server] is not installed (the remote-test extra)")

import fsspec
import torch

import summarylib as sl
from summarylib.format.live_control import CONTROL_FILE, LIVE_SUBDIR
from summarylib.integrations.torch import watch
from summarylib.reader import iter_values
from tests.s3_server import bucket_fixtures

BUCKET = "summarylib-watch-live"

s3, url, spill_root = bucket_fixtures(BUCKET, spill_autouse=True)


class Run:
    """A model training under a live watch whose writer writes to `url`, and the side of
    a dashboard on the store: the control object written with fsspec."""

    def __init__(self, url: str, retain_seconds: float) -> None:
        torch.manual_seed(0)
        self.url = url
        self.fs, self.path = fsspec.core.url_to_fs(url)
        self.model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 2))
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.05)
        self.writer = sl.create_file_writer(url)
        self.watch = watch(
            self.model,
            log="parameters",
            writer=self.writer,
            optimizer=self.optimizer,
            live=True,
            retain_seconds=retain_seconds,
        )

    def ask(self, views: list[str], log_freq: int = 1) -> None:
        body = {"version": 1, "views": views, "log_freq": log_freq}
        self.fs.pipe_file(f"{self.path}/{CONTROL_FILE}", json.dumps(body).encode())

    def train_until(self, done: Callable[[], bool], seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while not done():
            assert time.monotonic() < deadline, "waited too long"
            for _ in range(5):
                self.model(torch.randn(4, 8)).pow(2).mean().backward()
                self.optimizer.step()
                self.optimizer.zero_grad()
            time.sleep(0.05)

    def live_steps(self) -> list[int]:
        """The steps in the live directory now. The writer's retain_seconds may delete an
        object between the reader's listing and its read (the reader raises, by design, for
        a listed file that is gone): read again."""
        for _ in range(5):
            self.fs.invalidate_cache()
            if not self.fs.exists(f"{self.path}/{LIVE_SUBDIR}"):
                return []
            try:
                return [value.step for value in iter_values(f"{self.url}/{LIVE_SUBDIR}")]
            except FileNotFoundError:
                continue
        raise AssertionError("the live directory changed under every one of 5 reads")

    def close(self) -> None:
        self.watch.remove()
        self.writer.close()


@pytest.mark.slow
def test_a_run_in_a_bucket_is_watched_live_and_switched_off(url):
    run = Run(url, retain_seconds=600)
    try:
        started = run.watch.step
        run.train_until(lambda: run.watch.step >= started + 100)  # nobody looking
        assert run.live_steps() == []
        run.ask(["parameters"], log_freq=3)
        run.train_until(lambda: len(run.live_steps()) >= 3)
        assert all(step % 3 == 0 for step in run.live_steps())
        run.ask([])
        switched = time.monotonic()
        run.train_until(lambda: time.monotonic() > switched + 1.5)  # the thread's poll, then a step's
        time.sleep(1.0)  # the last upload of what was logged before
        seen = run.live_steps()
        run.train_until(lambda: run.watch.step >= started + 300)
        assert run.live_steps() == seen
    finally:
        run.close()


@pytest.mark.slow
def test_objects_older_than_retain_seconds_are_deleted(url):
    run = Run(url, retain_seconds=2)
    try:
        run.ask(["parameters"])
        run.train_until(lambda: len(run.live_steps()) >= 1)
        first = run.live_steps()[0]

        def rolled() -> bool:
            run.ask(["parameters"])  # the dashboard's heartbeat on a store: a rewrite
            steps = run.live_steps()
            return bool(steps) and steps[0] > first

        run.train_until(rolled)
    finally:
        run.close()
