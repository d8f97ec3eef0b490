"""How old the oldest queued event is, measured cheaply enough for the caller's slow path,
so a caller that outpaces the writer waits before its queue holds more than a fraction of
a flush interval of work.

Why: after SIGKILL what was queued but not yet written is lost. The worker writes what it
encoded at least every half flush interval (see output.py), but events still in the queue
wait for it; with a caller faster than the worker (or a worker starved of CPU) the queue
grew to its byte bound, over a second of events at `flush_millis=200`. Keeping the queue's
oldest item under a quarter interval old keeps what a SIGKILL loses of a scalar stream
within the last flush interval, plus the time the worker takes to encode one batch
(tests/test_durability.py). It is a bound on age, not on work: items that each take the
worker much longer than the caller (histograms of small arrays: ~10 us to queue, ~100 us
to encode) can still queue a few tenths of a second of work within a quarter interval.

Items are not stamped (that would cost the hot path a clock call): callers on the slow
path (`Intake._on_full_queue`: a long queue, or arrays pending) leave marks `(events
submitted so far, time)` at most every eighth of an interval, every 64th such call or
each one that finds arrays pending; an unconsumed mark older than the bound means an item
queued before it is still waiting.
"""

from __future__ import annotations

import time
from collections import deque


class Backlog:
    """Marks of a queue's submissions, and the age of the oldest not yet dequeued."""

    def __init__(self, flush_secs: float) -> None:
        self.max_age = flush_secs / 4
        self.mark_every = flush_secs / 8
        self._marks: deque[tuple[int, float]] = deque()  # (submitted, monotonic time), oldest first

    def mark(self, submitted: int) -> None:
        """Leave a mark of `submitted` (events submitted so far) if one is due."""
        now = time.monotonic()
        marks = self._marks
        try:
            if not marks or now - marks[-1][1] >= self.mark_every:
                marks.append((submitted, now))
        except IndexError:  # emptied by the worker's side meanwhile
            marks.append((submitted, now))

    def too_old(self, dequeued: int) -> bool:
        """Whether an item submitted more than `max_age` ago is still queued, `dequeued`
        events having left the queue so far."""
        marks = self._marks
        try:
            while marks[0][0] <= dequeued:  # the worker has passed it
                marks.popleft()
            return time.monotonic() - marks[0][1] > self.max_age
        except IndexError:  # no mark left (or emptied by another caller thread meanwhile)
            return False
