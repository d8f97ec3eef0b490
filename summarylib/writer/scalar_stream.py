"""The scalars' lane of a writer's queue: one flat list that callers extend, no tuple per event.

The most frequent ops (`sl.scalar`, torch's `add_scalar`) queue a plain float at an int
step far more often than anything else. Through the general queue each costs the caller
a method call and two tuples, kept alive until the worker takes them (and counted by the
garbage collector all that while), and costs the worker a pass over those tuples per
field. Here a caller extends one list by `FIELDS` values, `(columns, tag, value,
wall_time, step)`: strs, floats and ints, which the collector does not track, and the
worker takes a whole run with two slices and reads each field with a strided slice. No
lock on the caller's side: `list.__iadd__` of a tuple is one atomic step under the GIL,
and the worker only ever removes the head it has read.

`columns` is the event maker's batch form (see ops.scalar.encoding.ScalarColumns). Order with the
general queue is kept: an item queued there carries `mark()`, the lane's length then, and
the worker encodes the lane up to an item's mark before the item (see Drain._drain).
"""

from __future__ import annotations

import threading

# Values per event in the lane: columns, tag, value, wall time, step.
FIELDS = 5
# What one event in the lane holds, at most: five list slots, two floats and an int (the
# tag and the columns are shared); measured in tests/test_engine_queue.py.
LANE_EVENT_BYTES = 128


class ScalarStream:
    """The lane: `events` (the flat list callers extend) and what the worker took of it."""

    def __init__(self) -> None:
        self.events: list = []
        self._taken = 0  # values the worker has removed from the head of `events`
        self._lock = threading.Lock()  # between `mark()` and `take()`, never for callers

    def __len__(self) -> int:
        """Events queued in the lane now."""
        return len(self.events) // FIELDS

    def mark(self) -> int:
        """Where the lane ends now, counted from its start: an item queued elsewhere
        after this call is written after the lane's events up to here. 0 when the lane
        is empty (nothing to write first), which costs the queued item no int object."""
        with self._lock:
            queued = len(self.events)
            return self._taken + queued if queued else 0

    def take(self, upto: int | None, most: int) -> list:
        """Remove and return the head of the lane: the values before mark `upto` (all of
        them for None), at most `most` events."""
        with self._lock:
            events = self.events
            end = len(events) if upto is None else min(len(events), upto - self._taken)
            end = min(end, most * FIELDS)
            if end <= 0:
                return []
            head = events[:end]
            del events[:end]  # callers only append: the values removed are those read
            self._taken += end
            return head

    def abandon_after_fork(self) -> None:
        """In a forked child: drop the parent's queued events. The lock is made anew: the
        parent's worker may have held it at the fork, and no thread of the child will
        release it."""
        self._lock = threading.Lock()
        self._taken += len(self.events)
        self.events.clear()


def columns_of(head: list) -> tuple[list, list, list, list, list]:
    """The fields of the events in `head`, one list each: columns, tags, values, wall
    times, steps."""
    return tuple(head[field::FIELDS] for field in range(FIELDS))  # type: ignore[return-value]
