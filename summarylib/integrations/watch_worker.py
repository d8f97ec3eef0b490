"""The child half of the watch's view worker: a process that makes the summaries of
`watch(...)` views (histograms, grid images, variance images; see watch_views) from
snapshots in shared memory, so their numpy and PNG work runs outside the training
process's GIL. The parent half, which starts it and feeds it, is watch_remote.

Run as `python -m summarylib.integrations.watch_worker FD` (never through
multiprocessing's spawn, which would import the user's `__main__` again): FD is one end
of a Unix socket pair. Messages are pickled tuples, one `multiprocessing.connection`
frame each, answered in the order they come:

- `("views", id, *settings)`: a new KindViews of these arguments;
- `("layout", id, grid)`: the GridLayout the next snapshots of views `id` have;
- `("slot", id, nbytes)`, then the slot's memory file descriptor over the socket: a
  shared float32 buffer the parent writes snapshots into;
- `("view", ticket, views id, slot id, size)`: make the views' Summary of the slot's first
  `size` values; answered `(ticket, summary bytes, None, warnings)`, or `(ticket, None,
  traceback text, [])` when making it raised;
- `("stop",)`, or the socket's end: exit.

The first thing it sends is `("ready", pid)`. Warnings about the data (non-finite values
left out of a histogram) go back with the answer, for the parent to raise at the user's
line.
"""

from __future__ import annotations

import mmap
import os
import signal
import socket
import sys
import threading
import traceback
from multiprocessing.connection import Connection
from multiprocessing.reduction import recvfds

import numpy as np

from summarylib.integrations.watch_views import KindViews
from summarylib.ops.tensor_grid import GridLayout
from summarylib.writer import context

# Named as a writer's thread, so warn_user keeps warnings in context.pending_warnings
# (to be sent back) instead of printing them here.
THREAD_NAME = f"{context.WRITER_THREAD_PREFIX}[watch worker]"


def _taken_warnings() -> list[tuple[str, type[Warning]]]:
    """The warnings left by the last summary, taken out of this process's pending list."""
    taken = []
    while context.pending_warnings:
        taken.append(context.pending_warnings.pop(0))
    return taken


def serve(connection: Connection, channel: socket.socket) -> None:
    """Answer the parent's messages until it says stop or goes away."""
    views: dict[int, KindViews] = {}
    layouts: dict[int, GridLayout] = {}
    slots: dict[int, np.ndarray] = {}
    connection.send(("ready", os.getpid()))
    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            return
        what = message[0]
        if what == "view":
            _, ticket, views_id, slot_id, size = message
            reply: tuple
            try:
                made = views[views_id].summary(layouts[views_id], None, slots[slot_id][:size])
                reply = (ticket, made, None, _taken_warnings())
            except Exception:  # one bad view costs its event, not the worker
                reply = (ticket, None, traceback.format_exc(), _taken_warnings())
            connection.send(reply)
        elif what == "layout":
            layouts[message[1]] = message[2]
        elif what == "slot":
            _, slot_id, nbytes = message
            (fd,) = recvfds(channel, 1)
            memory = mmap.mmap(fd, nbytes)
            os.close(fd)
            slots[slot_id] = np.frombuffer(memory, np.float32)
        elif what == "views":
            views[message[1]] = KindViews(*message[2:])
        elif what == "stop":
            return


def main(argv: list[str]) -> None:
    """The worker's entry point: serve the socket whose descriptor is `argv[0]`."""
    threading.current_thread().name = THREAD_NAME
    # Ctrl-C reaches the whole process group: the training process decides when this ends.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    channel = socket.socket(fileno=int(argv[0]))
    connection = Connection(os.dup(channel.fileno()))
    try:
        serve(connection, channel)
    finally:
        connection.close()
        channel.close()


if __name__ == "__main__":
    main(sys.argv[1:])
