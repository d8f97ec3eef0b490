"""The live dashboard's control file, as a watch and a dashboard share it: real files in a
run directory, the watch's poll seeing what the dashboard wrote within its interval."""

from __future__ import annotations

import json
import os
import time

import pytest

from summarylib.format.live_control import (
    STALE_SECONDS,
    ControlPoll,
    LiveRequest,
    control_path,
    parse_request,
    touch,
    write_request,
)
from tests.clock import Clock


def test_a_request_written_is_seen_by_the_next_poll_after_the_interval(tmp_path):
    clock = Clock()
    poll = ControlPoll(str(tmp_path), interval=0.5, clock=clock)
    assert poll.request() is None  # no file: nobody looking
    write_request(str(tmp_path), LiveRequest(("gradients", "parameters"), 5))
    assert poll.request() is None  # the stat waits for its interval
    clock.now = 0.5
    assert poll.request() == LiveRequest(("parameters", "gradients"), 5)  # in VIEWS order
    write_request(str(tmp_path), LiveRequest((), 5))
    clock.now = 1.0
    assert poll.request() is None  # views off
    os.remove(control_path(str(tmp_path)))
    clock.now = 1.5
    assert poll.request() is None


def test_a_file_nobody_touches_goes_stale_and_a_heartbeat_keeps_it(tmp_path):
    clock = Clock()
    write_request(str(tmp_path), LiveRequest(("activations",), 1))
    long_ago = time.time() - STALE_SECONDS - 1
    os.utime(control_path(str(tmp_path)), (long_ago, long_ago))
    poll = ControlPoll(str(tmp_path), clock=clock)
    assert poll.request() is None  # the browser went away without a word
    touch(str(tmp_path))
    clock.now = 1.0
    assert poll.request() == LiveRequest(("activations",), 1)


@pytest.mark.parametrize("content", ["", "{", "[]", '{"views": ["weights"]}', '{"views": [], "log_freq": 0}'])
def test_a_file_that_is_no_request_asks_for_nothing(tmp_path, content):
    with open(control_path(str(tmp_path)), "w") as file:
        file.write(content)
    assert ControlPoll(str(tmp_path), clock=Clock()).request() is None


def test_the_file_is_replaced_whole_and_says_its_version(tmp_path):
    write_request(str(tmp_path), LiveRequest(("parameters", "variance"), 10))
    assert os.listdir(tmp_path) == ["summarylib_live.json"]  # no temporary left
    with open(control_path(str(tmp_path))) as file:
        assert json.load(file) == {"version": 1, "views": ["parameters", "variance"], "log_freq": 10}


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ([], "JSON object"),
        ({"views": "parameters"}, "'views'"),
        ({"views": ["weights"]}, "'views'"),
        ({"views": [], "log_freq": 1.5}, "'log_freq'"),
        ({"views": [], "log_freq": True}, "'log_freq'"),
        ({"views": [], "log_freq": 10**7}, "'log_freq'"),
    ],
)
def test_a_request_that_is_wrong_says_what(data, says):
    with pytest.raises(ValueError, match=says):
        parse_request(data)
