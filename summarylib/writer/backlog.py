"""How old the oldest queued event is, measured cheaply enough for the caller's slow path,
so a caller that outpaces the writer waits before its queue holds more than a fraction of
a flush interval of work.

Why: after SIGKILL what was queued but not yet written is lost. The worker writes what it
encoded at least every half flush interval (see output.py), but events still in the queue
wait for it; with a caller faster than the worker (or a worker starved of CPU) the queue
grew to its byte bound, over a second of events at `flush_millis=200`. Keeping the queue's
oldest item under a quarter interval old keeps all that can be lost within the last flush
interval, plus the time the worker takes to encode one batch.

Items are not stamped (that would cost the hot path a clock call): callers that find the
queue long (the slow path, `Engine._on_full_queue`) leave marks `(events submitted so far,
time)` at most every eighth of an interval; an unconsumed mark older than the bound means
an item queued before it is still waiting.
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

    def too_old(self, submitted: int, dequeued: int) -> bool:
        """Leave a mark if one is due; whether an item submitted more than `max_age` ago is
        still queued (`submitted` and `dequeued` count events since the start)."""
        now = time.monotonic()
        marks = self._marks
        try:
            if not marks or now - marks[-1][1] >= self.mark_every:
                marks.append((submitted, now))
            while marks[0][0] <= dequeued:  # the worker has passed it
                marks.popleft()
            return now - marks[0][1] > self.max_age
        except IndexError:  # emptied by another caller thread meanwhile
            return False
