"""The live dashboard's control file, as a watch and a dashboard share it: real files in a
run directory, the watch's poll seeing what the dashboard wrote within its interval; and
as someone else who can write the run directory may have left it: real symbolic links,
FIFOs, directories and huge files."""

from __future__ import annotations

import json
import os
import threading
import time

import pytest

from summarylib.format.live_control import (
    MAX_BYTES,
    STALE_SECONDS,
    ControlPoll,
    LiveRequest,
    control_path,
    parse_request,
    read_request,
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


def test_a_link_planted_where_the_file_is_written_is_never_followed(tmp_path):
    # The temporary name was predictable (the control file's name, the pid, .tmp): a link
    # planted there made the next write overwrite whatever it pointed at.
    run, victim = tmp_path / "run", tmp_path / "victim"
    run.mkdir()
    victim.write_text("the user's own file")
    os.symlink(victim, f"{control_path(str(run))}.{os.getpid()}.tmp")
    os.symlink(victim, control_path(str(run)) + ".tmp")
    write_request(str(run), LiveRequest(("parameters",), 1))
    assert victim.read_text() == "the user's own file"
    assert read_request(str(run)) == LiveRequest(("parameters",), 1)
    # A link at the control file's own name is replaced, not written through.
    os.remove(control_path(str(run)))
    os.symlink(victim, control_path(str(run)))
    write_request(str(run), LiveRequest(("gradients",), 2))
    assert victim.read_text() == "the user's own file"
    assert not os.path.islink(control_path(str(run)))
    touch(str(run))  # the heartbeat, too, leaves what a link points at alone
    assert oct(os.stat(control_path(str(run))).st_mode & 0o777) == oct(0o644)


def test_concurrent_writes_never_fail_and_a_reader_never_sees_half_of_one(tmp_path):
    # They shared one temporary file: a write raised FileNotFoundError when another had
    # renamed it first, and a reader could find it empty or holding two requests.
    run = str(tmp_path)
    requests = [
        LiveRequest(("parameters", "gradients", "activations")[: 1 + n % 3], 1 + n) for n in range(20)
    ]
    errors: list[BaseException] = []

    def write(request: LiveRequest) -> None:
        try:
            for _ in range(25):
                write_request(run, request)
        except BaseException as error:  # reported by the test
            errors.append(error)

    writers = [threading.Thread(target=write, args=(request,)) for request in requests]
    write_request(run, requests[0])
    for thread in writers:
        thread.start()
    seen = set()
    for _ in range(20_000):  # bounded: stops when the writers are done
        with open(control_path(run), "rb") as file:
            data = file.read()
        seen.add(parse_request(json.loads(data)))  # raises on an empty or mixed file
        if not any(thread.is_alive() for thread in writers):
            break
    for thread in writers:
        thread.join()
    assert errors == []
    assert seen <= set(requests)
    assert [name for name in os.listdir(run) if name != "summarylib_live.json"] == []


def _make_dev_zero_link(path: str) -> None:
    os.symlink("/dev/zero", path)


def _make_fifo(path: str) -> None:
    os.mkfifo(path)


def _make_directory(path: str) -> None:
    os.mkdir(path)


def _make_huge_file(path: str) -> None:
    with open(path, "wb") as file:  # a valid request, padded past MAX_BYTES: sparse, 1 GiB
        file.write(b'{"views": ["parameters"]}')
        file.truncate(1 << 30)


def _make_link_to_a_request(path: str) -> None:
    target = os.path.join(os.path.dirname(path), "elsewhere.json")
    with open(target, "w") as file:
        json.dump({"views": ["parameters"]}, file)
    os.symlink(target, path)


@pytest.mark.parametrize(
    "make", [_make_dev_zero_link, _make_fifo, _make_directory, _make_huge_file, _make_link_to_a_request]
)
def test_a_control_file_that_is_no_regular_file_of_a_request_s_size_asks_for_nothing(tmp_path, make):
    # A link to /dev/zero was read without end (MemoryError), a FIFO blocked the reader
    # until someone wrote to it (a training run hung for ever).
    make(control_path(str(tmp_path)))
    answers: list[object] = []
    reader = threading.Thread(
        target=lambda: answers.extend([read_request(str(tmp_path)), ControlPoll(str(tmp_path)).request()]),
        daemon=True,
    )
    reader.start()
    reader.join(60)  # a bound on a hang, not a measured time
    if reader.is_alive() and make is _make_fifo:
        with open(control_path(str(tmp_path)), "wb"):  # let the blocked reader go
            pass
    assert not reader.is_alive(), "reading the control file hung"
    assert answers == [None, None]


def test_a_file_of_max_bytes_is_read_and_one_byte_more_is_not(tmp_path):
    body = json.dumps({"views": ["variance"], "log_freq": 3}).encode()
    with open(control_path(str(tmp_path)), "wb") as file:
        file.write(body + b" " * (MAX_BYTES - len(body)))
    assert read_request(str(tmp_path)) == LiveRequest(("variance",), 3)
    with open(control_path(str(tmp_path)), "ab") as file:
        file.write(b" ")
    assert read_request(str(tmp_path)) is None
