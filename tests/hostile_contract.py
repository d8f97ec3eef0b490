"""The contract every hostile-input example asserts (tests/test_hostile_fuzz*.py): EITHER a
ValueError/TypeError in the one shape, `summarylib.<op>: tag '<tag>': argument '<arg>':
...` (no tag part for APIs without one), OR the call returns True and after the writer's
close the event is on disk, readable by TensorBoard's loaders and summarylib's reader;
either way the valid scalars logged just before and after are written and the writer
counts no error."""

from __future__ import annotations

import re
import shutil
import tempfile
import warnings
from collections.abc import Callable
from typing import Any

from tensorboard.backend.event_processing import event_file_loader

import summarylib as sl
from summarylib.reader import iter_events


def check_error(error: Exception, apis: tuple[str, ...], tag: Any) -> None:
    """The one shape: one of `apis` first, the tag (when the call has a str tag that is
    short enough to be shown whole), then an argument (its repr: in single quotes, or
    double ones when it holds a quote)."""
    message = str(error)
    api = next((api for api in apis if message.startswith(f"summarylib.{api}: ")), None)
    assert api is not None, f"{type(error).__name__} not naming {apis}: {message[:300]}"
    rest = message[len(f"summarylib.{api}: ") :]
    if api == apis[0] and isinstance(tag, str) and tag and len(tag) <= 200:
        # compat.tensorboardX names the tag it writes: tensorboardX's cleaned spelling.
        cleaned = re.sub(r"[^-/\w.]", "_", tag).lstrip("/")
        shown = next((f"tag {t!r}: " for t in (tag, cleaned) if rest.startswith(f"tag {t!r}: ")), None)
        assert shown is not None, message[:300]
        rest = rest[len(shown) :]
    elif rest.startswith("tag "):
        rest = rest[rest.index(": argument ") + 2 :]
    assert rest.startswith(("argument '", 'argument "')), message[:300]


def check_contract(
    call: Callable[[], Any],
    apis: tuple[str, ...],
    tag: Any = None,
    events: int = 1,
    may_skip: bool = False,
    inspect: Callable[[str, bool], None] | None = None,
) -> None:
    """Run `call` between two valid scalars in a fresh run and assert the contract: an
    error in the one shape, or True and `events` more events on disk (`may_skip`: or
    False and none, for a recording condition that is off). `inspect(logdir, wrote)`
    checks what else the call wrote."""
    logdir = tempfile.mkdtemp(prefix="hostile")
    try:
        writer = sl.create_file_writer(logdir)
        wrote = False
        with warnings.catch_warnings(), writer.as_default(step=1):
            warnings.simplefilter("ignore", RuntimeWarning)  # NaN left out, audio clipped
            sl.scalar("before", 1.0)
            try:
                wrote = call()
            except (TypeError, ValueError) as error:
                check_error(error, apis, tag)
            else:
                assert wrote is True or (may_skip and wrote is False), wrote
            sl.scalar("after", 2.0)
            writer.close()
        stats = writer.stats()
        assert (stats.errors, stats.events_dropped, stats.events_lost) == (0, 0, 0), stats.last_error
        # TensorBoard's loader as the dashboards use it (which adds a "__run_graph__"
        # summary after a graph), its raw loader, and summarylib's reader agree.
        migrated = list(event_file_loader.EventFileLoader(writer.path).Load())
        loaded = list(event_file_loader.LegacyEventFileLoader(writer.path).Load())
        ours = list(iter_events(writer.path))
        assert [event.SerializeToString() for event in ours] == [e.SerializeToString() for e in loaded]
        for events_read in (migrated, loaded):
            tags_read = [value.tag for event in events_read for value in event.summary.value]
            assert tags_read[0] == "before" and tags_read[-1] == "after"
            assert tags_read.count("before") == tags_read.count("after") == 1
        assert len(loaded) - 3 == (events if wrote else 0)  # less the file version and the scalars
        if inspect is not None:
            inspect(logdir, wrote)
    finally:
        shutil.rmtree(logdir, ignore_errors=True)
