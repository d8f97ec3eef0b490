"""The worker's pass over a writer's queue (the engine's half that runs on its thread).

Items are taken from the queue in chunks and popped as they are encoded; the scalar
lane's events (see scalar_stream) are encoded before the queue items that were queued
after them (each carries the lane's `mark`); runs of one batch-capable maker (scalars)
are encoded at once with numpy. See intake.py for the queue's promises.

Queue items are `(wall_time, step, args, make_event, nbytes, mark)`: the worker calls
`make_event(wall_time, step, *args)` for the serialized Event (see event_codec), or
None when the maker wrote its event to a file of its own (see series_files);
`nbytes` is the size of the arrays the item holds (0 for small items); `mark` is where
the scalar lane ended when it was queued (see scalar_stream.py: plain scalars skip this
queue, and are written before the items queued after them). A flush is the marker
`(0, 0, (fsync, done), FLUSH, 0, mark)`. The order is the one the batch makers take
(`(wall_time, step, args, ...)`), so the worker hands a run of scalars to numpy as it
dequeued them, without a Python loop over them (see ops/scalar/encoding.py batch_events).
"""

from __future__ import annotations

import itertools
import operator
import threading
from collections.abc import Callable, Iterable
from typing import Any

from summarylib.writer.event_codec import BATCH_MAKERS
from summarylib.writer.output import Output
from summarylib.writer.scalar_stream import FIELDS, ScalarStream

FLUSH = object()  # the event maker of a flush's marker
_GROUP = operator.itemgetter(3, 5)  # a queue item's event maker and lane mark
# Items the worker takes from the queue or the lane at once, at most (a run of one
# batch-capable maker is encoded at once: its numpy arrays stay this small).
MAX_RUN = 1 << 13


class Drain:
    """The worker's side of Engine: what it needs of the engine is declared here."""

    queue: Any
    lane: ScalarStream
    _dequeued: int
    arrays_encoded: Callable[[int], None]
    _complete_flush: Callable[[bool, threading.Event], None]

    def _drain(self, output: Output) -> None:
        """Encode, frame and write everything queued, in chunks of at most MAX_RUN items,
        the scalar lane's events before the queue's items that came after them.
        Consecutive items of one batch-capable maker (scalars) are encoded together with
        numpy; the rest one by one. An event that fails to encode is dropped alone (see
        Output)."""
        queue = self.queue
        popleft = queue.popleft
        while True:
            if not queue:  # an item queued meanwhile has a mark: the lane's events before it
                if not self._take_lane(output, None):
                    break
                continue
            # Popped as they are encoded: an item encoded one by one (1 MB of text) is
            # released before the next is taken, as the queue's byte bound assumes.
            items = (popleft() for _ in range(min(len(queue), MAX_RUN)))
            for (make_event, mark), run in itertools.groupby(items, _GROUP):
                while self._take_lane(output, mark):
                    pass
                if make_event is FLUSH:
                    output.write()
                    for _, _, (fsync, done), *_ in run:
                        self._complete_flush(fsync, done)
                elif make_event in BATCH_MAKERS:
                    batch = list(run)
                    self._dequeued += len(batch)
                    output.run(make_event, batch)
                else:
                    self._encode_each(output, make_event, run)
        output.write()

    def _take_lane(self, output: Output, mark: int | None) -> bool:
        """Encode up to MAX_RUN of the scalar lane's events before `mark` (None: any);
        whether there were any."""
        head = self.lane.take(mark, MAX_RUN)
        if not head:
            return False
        self._dequeued += len(head) // FIELDS
        output.lane(head)
        return True

    def _encode_each(self, output: Output, make_event: Callable[..., Any], items: Iterable[tuple]) -> None:
        """Encode queued items of one maker one by one, releasing the bytes of their arrays
        as each is encoded."""
        for wall_time, step, args, _, nbytes, _ in items:
            self._dequeued += 1
            try:
                output.event(make_event, wall_time, step, args)
            finally:
                if nbytes:  # encoded: a caller waiting for room may go on before the write
                    self.arrays_encoded(nbytes)
