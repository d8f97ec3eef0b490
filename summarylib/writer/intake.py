"""The caller's half of a writer's engine: queueing an event, and the queue's bounds.

The caller's thread only appends a small tuple to a deque, or a plain scalar's five
values to the scalar lane (see scalar_stream.py; both atomic under the GIL, so many
threads can log at once without a lock), and wakes the worker (engine.py) when there is
work enough.

Queue items are `(wall_time, step, args, make_event, nbytes, mark)` (see drain.py).

The queue is bounded in bytes: every item counts ITEM_BYTES (an event of the scalar lane
LANE_EVENT_BYTES) plus its arrays. A caller that finds it full waits for the worker;
nothing is dropped. It is bounded in age too: a caller that outpaces the worker waits
while the oldest queued item is more than a quarter flush interval old (see backlog.py),
and the worker writes what it encoded at least every half interval (see output.py). So
SIGKILL loses about the last flush interval of scalars (plus the time to encode one
batch); array items that the worker encodes more slowly than callers queue them
(histograms, images) can add what the queue holds, within its bounds.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable

from summarylib.writer.backlog import Backlog
from summarylib.writer.outcomes import error_text
from summarylib.writer.scalar_stream import FIELDS, LANE_EVENT_BYTES, ScalarStream

log = logging.getLogger("summarylib")

# Pending events that make the worker write without waiting for its timer.
DEFAULT_MAX_QUEUE = 1000
# Memory the queue may hold before callers wait for the worker.
DEFAULT_MAX_QUEUE_BYTES = 64 << 20
# What one queued item costs beyond its arrays, at most: the tuples, two floats, the step
# and the lane mark (see scalar_stream.LANE_EVENT_BYTES for an event of the scalar lane),
# measured in tests/test_engine_queue.py.
ITEM_BYTES = 288
# Array bytes pending that wake the worker at once: encoding images, audio and histograms
# (numpy and zlib, which release the GIL) then overlaps the caller's loop on a second core.
_WAKE_ARRAY_BYTES = 1 << 20


class Intake:
    """The caller's side of Engine: the queue, the scalar lane and their bounds. What it
    needs of the engine (the worker's thread and progress, the last failure) is declared
    here."""

    name: str
    _thread: threading.Thread
    _dequeued: int  # items the worker has taken
    progressed_at: float  # when the worker last encoded an event (see Output)
    _last_error: BaseException | None

    def __init__(self, max_queue: int, max_queue_bytes: int, flush_secs: float) -> None:
        self.queue: deque = deque()
        self.max_queue = max_queue
        self.max_queue_bytes = max_queue_bytes
        # Queue length at which a submit wakes the worker or may have reached the bound.
        self._check_at = max(1, min(max_queue, max_queue_bytes // ITEM_BYTES))
        self.lane = ScalarStream()
        # What the fast callers extend (see scalar_stream), and its length at which they
        # call scalars_full(): 0 while arrays are queued (each call then checks the byte
        # bound, as submit does) or a write failure waits to be logged.
        self.scalars = self.lane.events
        self._lane_cap = FIELDS * max(1, max_queue_bytes // LANE_EVENT_BYTES)
        self.scalar_limit = min(self._check_at * FIELDS, self._lane_cap)
        self._flush_secs = flush_secs
        self._backlog = Backlog(flush_secs)  # how far behind the caller the worker is
        self._slow_calls = 0  # submits that took the slow path
        self._wake = threading.Event()
        self.room_made = threading.Event()  # set when the worker frees queue room
        self._array_bytes_lock = threading.Lock()
        self._array_bytes = 0  # bytes of the arrays that queued items hold
        self._high_water = 0
        self.warn_pending = False

    def submit(
        self, make_event: Callable[..., bytes], args: tuple, wall_time: float, step: int, nbytes: int = 0
    ) -> None:
        """Queue one event, `make_event(wall_time, step, *args)`; waits only while the
        queue is at its bound."""
        self.queue.append((wall_time, step, args, make_event, nbytes, self.lane.mark()))
        if nbytes:
            with self._array_bytes_lock:
                self._array_bytes += nbytes
                self.scalar_limit = 0
        if self.pending() >= self._check_at or self._array_bytes:
            self._on_full_queue()
        if self.warn_pending:
            self._warn_once()

    def scalars_full(self) -> None:
        """What a caller that extended `scalars` to `scalar_limit` calls: wake the worker,
        wait while the queue is full, log a write failure once."""
        self._on_full_queue(sampled=False)
        if self.warn_pending:
            self._warn_once()
        with self._array_bytes_lock:  # the next check a chunk later, while the worker catches up
            self._set_scalar_limit(len(self.scalars))

    def pending(self) -> int:
        """Events queued now, in the queue and the scalar lane."""
        return len(self.queue) + len(self.scalars) // FIELDS

    def pending_bytes(self) -> int:
        """Memory the queue holds now, as the bound counts it."""
        return len(self.queue) * ITEM_BYTES + len(self.lane) * LANE_EVENT_BYTES + self._array_bytes

    def arrays_encoded(self, nbytes: int) -> None:
        """Count `nbytes` of queued arrays as encoded (the worker's side of submit)."""
        with self._array_bytes_lock:
            self._array_bytes -= nbytes
            self._set_scalar_limit()
        self.room_made.set()

    def _set_scalar_limit(self, queued: int = 0) -> None:
        """`scalar_limit` for the engine's state now, `queued` values in the lane at a
        caller's check: the next check comes `_check_at` events later, before the lane
        alone could pass the byte bound. Called holding _array_bytes_lock."""
        if self._array_bytes or self.warn_pending:
            self.scalar_limit = 0
        else:
            self.scalar_limit = min(queued + self._check_at * FIELDS, self._lane_cap)

    def _on_full_queue(self, sampled: bool = True) -> None:
        """Wake the worker when there is work enough, and wait while the queue is full;
        `sampled`: check the queue's age only every 64th call (a call per queued item)."""
        pending = self.pending_bytes()
        if pending > self._high_water:
            self._high_water = pending
        if (
            self.pending() >= self.max_queue or self._array_bytes >= _WAKE_ARRAY_BYTES
        ) and not self._wake.is_set():
            self._wake.set()
        while self.pending_bytes() > self.max_queue_bytes and self._thread.is_alive():
            self.room_made.clear()
            self._wake.set()
            self.room_made.wait(0.05)
        self._slow_calls += 1
        if self._array_bytes or not sampled or not self._slow_calls & 63:  # a scalar's: sampled
            self._wait_while_behind()

    def _wait_while_behind(self) -> None:
        """Wait while the queue's oldest item is too old (see backlog.py), unless the
        worker has encoded nothing for a flush interval (a stuck disk, a huge item: the
        byte bound holds then)."""
        backlog = self._backlog
        backlog.mark(self._dequeued + self.pending())
        while (
            backlog.too_old(self._dequeued)
            and time.monotonic() - self.progressed_at < self._flush_secs
            and self._thread.is_alive()
        ):
            self.room_made.clear()
            self._wake.set()
            self.room_made.wait(0.005)  # a short poll: the worker signals writes, not progress

    def _warn_once(self) -> None:
        with self._array_bytes_lock:
            self.warn_pending = False
            self._set_scalar_limit()
        error = self._last_error  # set with warn_pending, by the failure to warn about
        log.warning(
            "summarylib writer %s: writing events failed: %s. Logging goes on; "
            "flush() and close() will raise this error; stats() counts the failures.",
            self.name,
            error_text(error) if error is not None else "an error",
        )
