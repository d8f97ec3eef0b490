"""The writer's event files: names, exclusive creation, the first event, two writers of a run."""

from __future__ import annotations

import gc
import itertools
import os
import pathlib
import re
import socket
import threading
import time
import warnings

import numpy as np
import pytest

import summarylib as sl
from summarylib.format import records
from summarylib.reader import iter_events, iter_records, iter_values
from summarylib.writer import event_file, lifecycle


def event_files(logdir):
    return sorted(os.path.join(logdir, n) for n in os.listdir(logdir) if "tfevents" in n)


# Event files ---------------------------------------------------------------------------


def test_file_name_and_first_event_are_on_disk_at_once(logdir):
    before = int(time.time())
    writer = sl.create_file_writer(logdir)
    name = os.path.basename(writer.path)
    match = re.fullmatch(r"events\.out\.tfevents\.(\d{10})\.(.+)\.(\d+)\.(\d+)\.v2", name)
    assert match, name
    assert before <= int(match[1]) <= time.time()
    assert match[2] == socket.gethostname() and int(match[3]) == os.getpid()
    (first,) = list(iter_events(writer.path))  # before any flush
    assert first.file_version == "brain.Event:2"
    assert first.source_metadata.writer == "summarylib"
    assert first.wall_time == int(first.wall_time) == int(match[1])
    writer.close()


def test_suffix_pathlike_and_missing_logdir(tmp_path):
    logdir = tmp_path / "a" / "b"
    with sl.create_file_writer(logdir, filename_suffix=".eval") as writer:
        assert writer.path.endswith(".eval") and pathlib.Path(writer.path).parent == logdir


@pytest.mark.parametrize(
    ("argument", "bad", "kind"),
    [
        ("logdir", None, TypeError),
        ("logdir", b"bytes", TypeError),
        ("logdir", 3, TypeError),
        ("logdir", "", ValueError),
        ("logdir", "runs/a\0b", ValueError),
        ("logdir", "runs/trial\udcff", ValueError),
        ("filename_suffix", "/../../escaped", ValueError),
        ("filename_suffix", ".v2\ud800", ValueError),
        ("filename_suffix", 3, TypeError),
        ("name", 3, TypeError),
        ("name", "w\ud800", ValueError),
        ("storage_options", 3, TypeError),
        ("max_queue", 0, ValueError),
        ("flush_millis", -1, ValueError),
        ("max_queue_bytes", 1.5, ValueError),
        ("max_queue", True, ValueError),
        ("retain_seconds", float("nan"), ValueError),
        ("ranks", np.array([0, 1]), ValueError),
        ("ranks", "some", ValueError),
    ],
)
def test_bad_writer_arguments_are_errors_in_the_one_shape_and_create_nothing(tmp_path, argument, bad, kind):
    """What create_file_writer accepts it can create: a bad argument is an error at the call
    naming it, and nothing is created anywhere (a suffix with a separator once made a file
    outside the logdir, a lone surrogate a directory TensorBoard's loaders crash on)."""
    os.chdir(tmp_path)
    given = {"logdir": "runs/good", argument: bad}
    logdir = given.pop("logdir")
    with pytest.raises(kind, match=rf"^summarylib\.create_file_writer: argument '{argument}': expected"):
        sl.create_file_writer(logdir, **given)
    assert list(tmp_path.iterdir()) == []


def test_files_begun_in_one_second_sort_in_the_order_they_were_begun(logdir, monkeypatch):
    # TensorBoard follows the last file of a run by name: a file begun after another in
    # the same second must sort after it, also where the counter goes from 9 to 10.
    os.makedirs(logdir)
    monkeypatch.setattr(event_file, "_file_counter", itertools.count(8))
    monkeypatch.setattr(event_file.time, "time", lambda: 1_800_000_000.5)
    begun = [event_file.EventFile(logdir) for _ in range(4)]
    for file in begun:
        file.close()
    names = [os.path.basename(file.path) for file in begun]
    assert sorted(names) == names and len(set(names)) == 4


def test_a_writer_collected_while_another_thread_opens_one_closes_without_a_deadlock(tmp_path):
    # The collector runs a dropped writer's finalizer anywhere, even in a writer thread that
    # another thread is starting while it holds the registry of engines (and waits for):
    # found as a CI run that hung in Thread.start. The finalizer must not wait for the
    # registry; the registry's holder closes the dropped writer once it lets go.
    dropped = sl.create_file_writer(str(tmp_path / "dropped"), flush_millis=600_000)
    with dropped.as_default(step=0):
        sl.scalar("x", 1.0)
    engine = dropped._engine
    collected = threading.Event()

    def collect() -> None:
        nonlocal dropped
        del dropped  # its finalizer runs here, on this thread
        gc.collect()
        collected.set()

    with lifecycle._lock:  # what acquire() holds while it starts a new writer's thread
        collector = threading.Thread(target=collect)
        collector.start()
        assert collected.wait(30), "the finalizer waited for the registry its thread's starter holds"
        assert not engine.closed
    collector.join()
    sl.create_file_writer(str(tmp_path / "next")).close()  # the registry's next user
    assert engine.closed
    assert [value.step for value in iter_values(str(tmp_path / "dropped"))] == [0]  # nothing lost


def test_event_files_are_created_exclusively(logdir, monkeypatch):
    os.makedirs(logdir)
    for _ in range(5):
        # Restart the per-process counter so the second file asks for the first's name, as
        # a writer in another container with the same hostname and pid would.
        monkeypatch.setattr(event_file, "_file_counter", itertools.count())
        first = event_file.EventFile(logdir)
        monkeypatch.setattr(event_file, "_file_counter", itertools.count())
        second = event_file.EventFile(logdir)
        if os.path.basename(first.path)[:31] == os.path.basename(second.path)[:31]:
            break  # created in the same second
    assert first.path != second.path
    first.write(records.frame(b"first"))
    second.write(records.frame(b"second"))
    first.close()
    second.close()
    assert [list(iter_records(p))[1:] for p in (first.path, second.path)] == [[b"first"], [b"second"]]


def test_two_writers_of_one_logdir_share_a_file_tensorboard_shows_both(logdir):
    from tests.tensorboard_data import read_scalars

    first = sl.create_file_writer(logdir)
    second = sl.create_file_writer(logdir)
    with first.as_default(step=1):
        sl.scalar("a", 1.0)
    with second.as_default(step=2):
        sl.scalar("b", 2.0)
    first.close()  # the file stays open for the second writer
    with second.as_default(step=3):
        sl.scalar("b", 3.0)
    second.close()
    assert first.path == second.path and len(event_files(logdir)) == 1
    assert read_scalars(logdir) == {".": {"a": [(1, 1.0)], "b": [(2, 2.0), (3, 3.0)]}}


@pytest.mark.parametrize(
    ("first_suffix", "second_suffix"), [(".attrs", None), (None, ".attrs"), (".a", ".b")]
)
def test_a_second_writer_whose_suffix_is_not_used_says_so(logdir, first_suffix, second_suffix):
    """Guild's example opens SummaryWriter(".", filename_suffix=".attrs") beside
    SummaryWriter("."): the run's one file is the first one's, so the other suffix is not
    used, and the writer says so (naming the file) instead of silently mixing them."""
    first = sl.create_file_writer(logdir, filename_suffix=first_suffix)
    with pytest.warns(
        UserWarning, match=r"filename_suffix .* not used: this process already writes"
    ) as caught:
        second = sl.create_file_writer(logdir, filename_suffix=second_suffix)
    assert first.path in str(caught[0].message) and caught[0].filename == __file__
    first.close()
    second.close()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the same suffix, or the default spelled "" or None: silent
        for suffixes in ((".x", ".x"), (None, ""), ("", None)):
            writers = [
                sl.create_file_writer(os.path.join(logdir, "quiet"), filename_suffix=s) for s in suffixes
            ]
            for writer in writers:
                writer.close()
