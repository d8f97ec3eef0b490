"""The parent half of the watch's view worker (the child half is watch_worker): the views
of a logged step are made in another process, so their ~15-20 ms of numpy and PNG work
on a 1M-parameter model no longer shares the training loop's GIL.

- One worker a process, started at the first logged view that wants it (`python -m
  summarylib.integrations.watch_worker`, a fresh interpreter that never imports the
  user's `__main__`), shared by every watch and writer of the process.
- The training thread concatenates a kind's tensors straight into a slot, a shared float32
  buffer (memfd, passed over the socket: no name in /dev/shm to leak after SIGKILL), and
  sends one small message. A slot is reused once the worker has answered.
- The writer's queue gets the item as before (`queue_summary`, counting the slot's bytes
  toward its bound, so a training loop that outpaces the views waits exactly as it does
  with the thread path, and nothing is skipped); on the writer's thread the item waits for
  the worker's answer, the finished Summary bytes. Order by step, flush, close, the
  writer's counters: all as before.
- Stopped when the last writer it served closes (through the writer's side-file flush
  hook, which runs on close after the queue is drained), at interpreter exit, and when the
  training process dies (the socket's end). A forked child forgets the parent's worker and
  starts its own.
- If it cannot start (no memfd, the interpreter cannot be run) or dies, one warning, and
  the views are made on the writer's thread as without it, from the snapshot still in the
  slot: nothing is lost.

`SUMMARYLIB_WATCH_WORKER`: "auto" (default: the worker for kinds of at least
MIN_WORKER_VALUES values, where it pays for its start), "on" (any size), "off" (threads).
`SUMMARYLIB_WATCH_PYTHON`: the interpreter to run it with (default `sys.executable`;
embedded interpreters may need it).
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import mmap
import os
import socket
import subprocess
import sys
import threading
import weakref
from concurrent.futures import Future
from multiprocessing.connection import Connection
from multiprocessing.reduction import sendfds
from typing import Any

import numpy as np

from summarylib.writer import context

MODE_VARIABLE = "SUMMARYLIB_WATCH_WORKER"
PYTHON_VARIABLE = "SUMMARYLIB_WATCH_PYTHON"
# Below this many values a kind's views take well under a millisecond on the writer's
# thread: a process is not worth starting for them.
MIN_WORKER_VALUES = 1 << 16
# Bytes of free slots kept for reuse (more are unmapped): the writer's default queue bound,
# so a loop that keeps the queue full reuses slots instead of mapping new ones.
_MAX_FREE_BYTES = 64 << 20
_STOP_TIMEOUT = 5.0
# Python 3.11's -P: the working directory is not put first on the worker's sys.path, so a
# file of the user's named like a module cannot shadow it.
_SAFE_PATH = ("-P",) if sys.version_info >= (3, 11) else ()
_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class WorkerGone(Exception):
    """The worker stopped before answering: the view is made on the writer's thread."""


class Slot:
    """One shared float32 buffer of `owner`'s: `values` is its numpy view in this process."""

    def __init__(self, owner: Worker, slot_id: int, capacity: int) -> None:
        self.owner = owner
        self.id = slot_id
        self.fd = os.memfd_create("summarylib-watch", os.MFD_CLOEXEC)
        # The descriptor is closed once the worker has its own (or with the slot).
        self.close_fd = weakref.finalize(self, os.close, self.fd)
        os.ftruncate(self.fd, capacity * 4)
        self._memory = mmap.mmap(self.fd, capacity * 4)
        self.values = np.frombuffer(self._memory, np.float32)


class Ticket:
    """One view in flight: the slot it reads and the future of its answer."""

    __slots__ = ("future", "slot")

    def __init__(self, slot: Slot) -> None:
        self.slot = slot
        self.future: Future = Future()


class Worker:
    """The running worker process and this process's end of its socket."""

    def __init__(self, python: str) -> None:
        ours, theirs = socket.socketpair()
        self._channel = ours
        try:
            env = dict(os.environ)
            env["PYTHONPATH"] = os.pathsep.join(filter(None, (_PACKAGE_PARENT, env.get("PYTHONPATH"))))
            self.process = subprocess.Popen(
                [
                    python,
                    *(_SAFE_PATH if python == sys.executable else ()),
                    "-m",
                    "summarylib.integrations.watch_worker",
                    str(theirs.fileno()),
                ],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                env=env,
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self._connection = Connection(os.dup(ours.fileno()))
        self._send_lock = threading.Lock()
        self._slots_lock = threading.Lock()
        self._free: list[Slot] = []
        self._slot_ids = itertools.count()
        self._tickets = itertools.count()
        self._views_ids = itertools.count()
        self._pending: dict[int, Ticket] = {}
        self.ready = threading.Event()
        self.alive = True
        self.stopping = False
        self.pid = os.getpid()
        self._receiver = threading.Thread(
            target=self._receive, name=f"{context.WRITER_THREAD_PREFIX}[watch receiver]", daemon=True
        )
        self._receiver.start()

    # -- the training thread's side -----------------------------------------------------

    def slot(self, size: int) -> Slot:
        """A free slot of at least `size` values (a new one if none)."""
        with self._slots_lock:
            for index, slot in enumerate(self._free):
                if slot.values.size >= size:
                    return self._free.pop(index)
        return Slot(self, next(self._slot_ids), max(size, 1))

    def new_views(self, *settings: object) -> int:
        """Have the worker make a KindViews of these settings (its arguments); its id."""
        views_id = next(self._views_ids)
        self._send(("views", views_id, *settings))
        return views_id

    def send_layout(self, views_id: int, grid: Any) -> None:
        """The layout of the snapshots of `views_id` from now on."""
        self._send(("layout", views_id, grid))

    def request(self, views_id: int, slot: Slot, size: int) -> Ticket:
        """Ask for the Summary of `slot`'s first `size` values; a failed send fails the
        ticket (the writer's thread then makes the view)."""
        ticket = Ticket(slot)
        number = next(self._tickets)
        self._pending[number] = ticket
        try:
            if slot.close_fd.alive:  # the worker does not have it yet
                with self._send_lock:
                    self._connection.send(("slot", slot.id, slot.values.nbytes))
                    sendfds(self._channel, [slot.fd])
                slot.close_fd()
        except OSError:
            self._lose()
        self._send(("view", number, views_id, slot.id, size))
        if not self.alive:  # gone while this was sent, after its pending views were failed
            self._lose()
        return ticket

    def _send(self, message: tuple) -> None:
        """Send `message`; if the worker is gone, what waits for it fails over to threads."""
        try:
            with self._send_lock:
                self._connection.send(message)
        except OSError:
            self._lose()

    # -- the writer's thread's side ------------------------------------------------------

    def answer(self, ticket: Ticket) -> bytes:
        """The worker's Summary bytes for `ticket` (raising WorkerGone if it stopped), with
        its warnings passed on to the user; the slot is then free for reuse."""
        try:
            made, problem, warned = ticket.future.result()
        finally:
            self._free_slot(ticket.slot)
        for message, category in warned:
            context.warn_user(message, category)
        if problem is not None:
            raise RuntimeError(f"summarylib watch worker: {problem}")
        return made

    def _free_slot(self, slot: Slot) -> None:
        if not self.alive:
            return
        with self._slots_lock:
            if sum(free.values.nbytes for free in self._free) + slot.values.nbytes <= _MAX_FREE_BYTES:
                self._free.append(slot)

    # -- the receiver thread -------------------------------------------------------------

    def _receive(self) -> None:
        try:
            ready = self._connection.recv()
            if ready[0] != "ready":
                return
            self.ready.set()
            while True:
                number, made, problem, warned = self._connection.recv()
                self._pending.pop(number).future.set_result((made, problem, warned))
        except (EOFError, OSError):
            pass
        finally:
            self._lose()
            self._close()

    def _lose(self) -> None:
        """The worker is gone (stopped, died, never started): fail what waits for it."""
        self.alive = False
        for number in list(self._pending):
            ticket = self._pending.pop(number, None)
            if ticket is not None and not ticket.future.done():
                ticket.future.set_exception(WorkerGone())
        with _lock:
            _retire(self)

    def _close(self) -> None:
        """Close this end of the socket (under the send lock: no send races the close)."""
        with self._send_lock:
            self._connection.close()
            self._channel.close()

    def stop(self) -> None:
        """Ask the worker to exit and wait for it (killing it if it does not)."""
        self.stopping = True
        self.alive = False
        self._send(("stop",))
        try:
            self.process.wait(_STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        with contextlib.suppress(OSError):
            self._channel.shutdown(socket.SHUT_RDWR)
        self._receiver.join(_STOP_TIMEOUT)
        self._close()

    def abandon_after_fork(self) -> None:
        """In a forked child: close the inherited socket, leaving the parent's worker to it."""
        self.alive = False
        with contextlib.suppress(OSError):
            self._connection.close()
        with contextlib.suppress(OSError):
            self._channel.close()


_lock = threading.Lock()
_worker: Worker | None = None
_unavailable = False  # the worker could not start: threads from now on
_served: weakref.WeakSet = weakref.WeakSet()  # open writers that queued its views


def wanted(values: int) -> bool:
    """Whether views of `values` values go to the worker (see SUMMARYLIB_WATCH_WORKER):
    always with "on", never with "off"; by default ("auto") for kinds of MIN_WORKER_VALUES
    or more when a core is left for it (see `spare_core`)."""
    mode = os.environ.get(MODE_VARIABLE, "auto")
    if _unavailable or mode == "off":
        return False
    return mode == "on" or (values >= MIN_WORKER_VALUES and spare_core())


def spare_core() -> bool:
    """Whether this process may use more cores than torch's threads keep busy (all cores
    when torch is not imported: one left over then).

    The worker takes the views' CPU out of the training process's GIL, which pays where it
    has a core of its own; where training's threads already fill every core it competes
    with them as another process, costing more than the writer's thread does (measured on
    two cores, benchmarks/bench_watch.py, log_freq=100: the worker +4% a step and the
    thread +7% with one torch thread; +12% and +1% with two)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    torch = sys.modules.get("torch")
    busy = torch.get_num_threads() if torch is not None else 1
    return cores > busy


def worker_for(writer: Any) -> Worker | None:
    """The process's worker (started if need be) serving `writer`, or None to use threads:
    it could not start, or `writer` cannot tell it when it closes."""
    global _worker, _unavailable
    attach = getattr(writer, "attach", None)
    if attach is None or getattr(writer, "closed", False):
        return None
    with _lock:
        if _worker is not None and not _worker.alive:
            _retire(_worker)
        if _unavailable:
            return None
        if _worker is None:
            try:
                if not hasattr(os, "memfd_create"):
                    raise OSError("no os.memfd_create on this system")
                _worker = Worker(os.environ.get(PYTHON_VARIABLE) or sys.executable)
            except (OSError, ValueError) as error:
                _unavailable = True
                _warn_unavailable(error)
                return None
        worker = _worker
        if writer not in _served:
            _served.add(writer)
            attach(_CloseHook(writer))
    return worker


def _warn_unavailable(reason: object) -> None:
    context.warn_user(
        f"summarylib watch: the view worker process could not start ({reason}); "
        "the views are made on the writer's thread instead"
    )


def _retire(worker: Worker) -> None:
    """`worker` is gone (called under `_lock`): the next view starts another, unless it
    never started, which is warned about once and turns the worker off."""
    global _worker, _unavailable
    if _worker is worker:
        _worker = None
        if not worker.ready.is_set() and not worker.stopping and worker.pid == os.getpid():
            _unavailable = True
            _warn_unavailable(f"it exited before it was ready, exit status {worker.process.poll()}")


class _CloseHook:
    """Attached to each writer the worker serves: the writer's engine flushes it on every
    flush and on close (after draining the queue); on close the writer stops being served,
    and the worker stops when no open writer is left."""

    def __init__(self, writer: Any) -> None:
        self._writer = weakref.ref(writer)
        self._pid = os.getpid()

    def flush(self) -> None:
        writer = self._writer()
        if self._pid != os.getpid() or (writer is not None and not writer.closed):
            return
        with _lock:
            if writer is not None:
                _served.discard(writer)
            left = len(_served)
        if not left:
            shutdown()

    def idle(self) -> None:
        """Nothing to do between writes."""


def shutdown() -> None:
    """Stop the worker now (the last writer closed, or the interpreter exits)."""
    global _worker
    with _lock:
        worker, _worker = _worker, None
    if worker is not None and worker.pid == os.getpid():
        worker.stop()


def _after_fork_in_child() -> None:
    global _worker, _lock, _served
    if _worker is not None:
        _worker.abandon_after_fork()
    _worker, _lock, _served = None, threading.Lock(), weakref.WeakSet()


atexit.register(shutdown)
os.register_at_fork(after_in_child=_after_fork_in_child)
