"""Shared fixtures: a fresh logdir per test, and no default writer leaking between tests."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from summarylib.writer import context

# Keras 3 runs on the torch backend here: TensorFlow is in no extra.
os.environ.setdefault("KERAS_BACKEND", "torch")

# Hypothesis's per-example deadline is a wall-clock assertion: on a loaded machine it fails
# tests that are correct. Tests never assert times here.
# Two profiles: "summarylib" (CI: each property a modest number of examples, so the hostile-input
# suites stay near a minute of CI time) and "long" (SUMMARYLIB_HYPOTHESIS=long: many more
# examples, for a fuzzing session by hand).
settings.register_profile("summarylib", deadline=None)
settings.register_profile("long", deadline=None, max_examples=2000)
settings.load_profile("long" if os.environ.get("SUMMARYLIB_HYPOTHESIS") == "long" else "summarylib")


@pytest.fixture(autouse=True)
def _clean_context():
    """Each test starts with no default writer, no step and recording on."""
    tokens = [
        (context.default_writer, context.default_writer.set(None)),
        (context.default_step, context.default_step.set(None)),
        (context.record_condition, context.record_condition.set(True)),
    ]
    yield
    for var, token in tokens:
        var.reset(token)
    context.pending_warnings.clear()  # a warning one test left is not raised in the next


@pytest.fixture
def logdir(tmp_path):
    """A logdir path (not yet created) under the test's temporary directory."""
    return str(tmp_path / "logs")
