"""The training side of the Live dashboard: what `watch(..., live=True)` (PyTorch) and
Keras's `Watch(..., live=True)` write, and when.

With `live=True` a watch writes no views of its own: it writes the ones a dashboard asks
for in the run's control file (summarylib.format.live_control), the run being the logdir
of the watch's writer (R). The training thread's cost is one clock read a step; every
POLL_SECONDS the control file is stat'ed (and read again only when it changed). No file,
a stale one (no page has touched it for STALE_SECONDS), or views off: nothing more. A
request: from the next step whose count is a multiple of its `log_freq`, the asked views
as grid images (no histograms: `images/parameters`, `images/gradients`,
`images/activations`, `images/parameters_variance`), into R/live through one writer of
rolling files (`retain_seconds`), opened at the first request and closed with the watch
(or when R's writer closes).

Each view is on disk as soon as it is made: the live writer wakes its thread at every
queued view (a queue bound of one item) and writes what it made at the end of that pass,
not every `flush_millis`. Its wall_time is the step's (the dashboard measures its latency
from it).

Why the stat is on the training thread, not the writer's: the writer's thread wakes every
`flush_millis` (2 s by default), too seldom for a 0.5 s poll, and queueing a task there
costs the training thread more than the stat itself (a few microseconds, twice a second).

On an object store (a run at an fsspec URL) a thread of the watch's own polls the control
object and deletes the live views' objects older than `retain_seconds` (see
watch_live_store); the live writer uploads what it made every LIVE_UPLOAD_MILLIS (each
upload an object), so a view is there that much later.

Shared by the PyTorch and Keras watches; knows no framework.
"""

from __future__ import annotations

import contextlib
import os
import time
import weakref
from collections.abc import Callable
from typing import Any

from summarylib.format.live_control import LIVE_SUBDIR, ControlPoll, LiveRequest
from summarylib.format.storage import is_url, join
from summarylib.integrations.watch_live_store import StorePoll
from summarylib.integrations.watch_views import KindViews
from summarylib.writer.summary_writer import SummaryWriter

# How often the control file is stat'ed, at most.
POLL_SECONDS = 0.5
# The live writer's queue bound: every queued view wakes its thread (see the docstring).
_WAKE_EVERY_ITEM = 1
# How often the live writer uploads what it made, on an object store.
LIVE_UPLOAD_MILLIS = 200


class LiveViews:
    """One watch's live side: the request standing for its run, the views it asks for (of
    the kinds the watch may watch, `kinds`) and the writer of R/live.

    `logged(count)` is the training thread's per-step question; `views` the KindViews to
    write at a logged step, by kind (parameters also when only their variance is asked);
    `writer()` the live writer; `close()` closes it."""

    def __init__(
        self,
        kinds: tuple[str, ...],
        variance_steps: int,
        retain_seconds: float,
        target: Callable[[], SummaryWriter | None],
    ) -> None:
        self._kinds = kinds
        self._variance_steps = variance_steps
        self._retain_seconds = retain_seconds
        self._target = target
        self._next_poll = 0.0
        self._main: SummaryWriter | None = None  # the writer whose run is polled
        self._run = ""  # its logdir (R), while polled
        self._poll: ControlPoll | StorePoll | None = None
        self._request: LiveRequest | None = None
        self._log_freq = 1
        self.views: dict[str, KindViews] = {}
        self._writer: SummaryWriter | None = None
        self._hooked: weakref.WeakSet[SummaryWriter] = weakref.WeakSet()  # writers with a _CloseWith

    # -- the training thread, every step --------------------------------------------------

    def logged(self, count: int) -> bool:
        """Whether the step numbered `count` (steps completed before it) is logged: a
        request stands (as of the last poll) and `count` is a multiple of its interval."""
        now = time.monotonic()
        if now >= self._next_poll:
            self._next_poll = now + POLL_SECONDS
            self._refresh()
        return bool(self.views) and count % self._log_freq == 0

    def _refresh(self) -> None:
        """Poll the control file of the run written now (stat'ing it; read if changed)."""
        main = self._target()
        if main is not self._main:
            self._follow(main)
        request = None
        if self._poll is not None and _is_open(self._main):
            request = self._poll.request()
        elif self._poll is not None:  # R's writer closed: the live side goes with it
            self.close()
            self._main = main
        if request != self._request:
            self._apply(request)

    def _follow(self, main: SummaryWriter | None) -> None:
        """The watch writes to another run now (its default writer changed)."""
        self.close()
        self._main = main
        logdir = getattr(main, "logdir", None)
        if main is None or not _is_open(main) or not isinstance(logdir, str):  # a rank's Noop writer
            return
        self._run = logdir
        if is_url(logdir):
            live = join(logdir, LIVE_SUBDIR)
            self._poll = StorePoll(logdir, _storage_options(main), POLL_SECONDS, live, self._retain_seconds)
        else:
            self._poll = ControlPoll(logdir, interval=0.0)  # the interval is kept here
            # R/live, empty until a request: the run is live from its first step, so the
            # dashboard lists it and TensorBoard shows the Live tab active before anyone asks.
            with contextlib.suppress(OSError):  # a run the watch cannot add to still trains
                os.makedirs(join(logdir, LIVE_SUBDIR), exist_ok=True)
        attach = getattr(main, "attach", None)
        if attach is not None and main not in self._hooked:  # once, should the default alternate
            self._hooked.add(main)
            attach(_CloseWith(main, self))

    def _apply(self, request: LiveRequest | None) -> None:
        """Views for a new request (None: views off). A kind's views asked as before are
        kept, so a variance window goes on across a change of the others."""
        self._request = request
        asked = () if request is None else request.views
        views = {}
        for kind in self._kinds:
            grid = kind in asked
            variance = kind == "parameters" and "variance" in asked
            if not (grid or variance):
                continue
            steps = self._variance_steps if variance else 0
            settings = (kind, True, steps, None, False, grid)
            kept = self.views.get(kind)
            views[kind] = kept if kept is not None and kept.settings == settings else KindViews(*settings)
        self.views = views
        if request is not None:
            self._log_freq = request.log_freq

    # -- writing ---------------------------------------------------------------------------

    @property
    def wants_activations(self) -> bool:
        """Whether the views asked now include the activations (their hooks go on)."""
        return "activations" in self.views

    def writer(self) -> SummaryWriter | None:
        """The writer of R/live, opened at the first logged view; None once R's writer
        closed."""
        main = self._main
        if self._poll is None or not _is_open(main):
            return None
        if self._writer is None:
            live = join(self._run, LIVE_SUBDIR)
            if is_url(live):  # old objects are deleted by the poll's thread (watch_live_store)
                self._writer = SummaryWriter(
                    live, _WAKE_EVERY_ITEM, LIVE_UPLOAD_MILLIS, storage_options=_storage_options(main)
                )
            else:
                self._writer = SummaryWriter(
                    live, max_queue=_WAKE_EVERY_ITEM, retain_seconds=self._retain_seconds
                )
        return self._writer

    def close(self) -> None:
        """Close the live writer (what it queued is written first) and stop polling: views
        off until a later step follows the run again; idempotent."""
        writer, self._writer = self._writer, None
        poll, self._poll = self._poll, None
        self._main = None
        if isinstance(poll, StorePoll):
            poll.close()
        if self._request is not None:
            self._apply(None)
        if writer is not None:
            writer.close()


def _is_open(writer: object) -> bool:
    """Whether `writer` is a writer not closed (any summarylib writer: `closed` if it has one)."""
    return writer is not None and not getattr(writer, "closed", False)


def _storage_options(writer: object) -> dict[str, Any] | None:
    """The storage options `writer` was made with, if it says."""
    return getattr(getattr(writer, "settings", None), "storage_options", None)


class _CloseWith:
    """Attached to R's writer: when it closes, the live writer closes too (its engine
    flushes attached files on close, on the closing thread)."""

    def __init__(self, main: SummaryWriter, live: LiveViews) -> None:
        self._main = weakref.ref(main)
        self._live = weakref.ref(live)

    def flush(self) -> None:
        main, live = self._main(), self._live()
        if live is not None and not _is_open(main) and live._main is main:
            live.close()

    def idle(self) -> None:
        """Nothing to do between writes."""
