"""Pieces of one large count shared between the thread that asked for it and one helper
thread: the compiled loops release the GIL, so a second core can take half the work.

The asking thread (the writer's) works through the pieces itself and the helper takes
pieces from the same sequence; the asking thread then waits only for the pieces the helper
has started. So the count never waits for a helper that is not running: where every core
is busy (a training process), or the helper is busy with another writer's count, the
asking thread takes every piece the helper has not begun, and waits at most for the one
it is in. (BLAS's threads, which wait for each other, made the writer wait milliseconds
on busy cores.) A forked child starts its own helper: the parent's thread is not in it.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

Result = TypeVar("Result")

_helper: ThreadPoolExecutor | None = None
_helper_lock = threading.Lock()


def _helper_pool() -> ThreadPoolExecutor:
    """The one helper thread, started on first use."""
    global _helper
    with _helper_lock:
        if _helper is None:
            _helper = ThreadPoolExecutor(max_workers=1, thread_name_prefix="summarylib-counts")
        return _helper


def _forget_helper() -> None:
    """In a forked child: the parent's helper thread does not exist here."""
    global _helper, _helper_lock
    _helper, _helper_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_helper)


class _Failed:
    """A piece's exception, raised on the asking thread."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


def shared(pieces: Sequence[Callable[[], Result]]) -> list[Result]:
    """Each piece's result, in order, the pieces run on this thread and the helper; the
    first piece that raised raises here."""
    results: list[Result | _Failed | None] = [None] * len(pieces)
    finished = [threading.Event() for _ in pieces]
    claims = itertools.count()  # next() on a count is atomic under the GIL

    def work() -> None:
        while (index := next(claims)) < len(pieces):
            try:
                results[index] = pieces[index]()
            except BaseException as error:  # handed to the asking thread
                results[index] = _Failed(error)
            finally:
                finished[index].set()

    if len(pieces) > 1:
        with contextlib.suppress(RuntimeError):  # the interpreter is exiting: no new threads
            _helper_pool().submit(work)
    work()
    for done in finished:  # only pieces the helper began are not done yet
        done.wait()
    for result in results:
        if isinstance(result, _Failed):
            raise result.error
    return results  # type: ignore[return-value]
