"""Pieces of one large count shared between the thread that asked for it and one helper
thread: the compiled loops release the GIL, so a second core can take half the work.

The asking thread (the writer's) works through the pieces itself and the helper takes
pieces from the same sequence, so the count never waits for a helper that is not running:
where every core is busy (a training process), the asking thread takes the pieces the
helper has not started, and waits at most for the one it is in. BLAS's threads, which
wait for each other, made the writer wait milliseconds on busy cores; this does not.
"""

from __future__ import annotations

import itertools
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


def shared(pieces: Sequence[Callable[[], Result]]) -> list[Result]:
    """Each piece's result, in order, the pieces run on this thread and the helper."""
    results: list[Result | None] = [None] * len(pieces)
    claims = itertools.count()  # next() on a count is atomic under the GIL

    def work() -> None:
        while (index := next(claims)) < len(pieces):
            results[index] = pieces[index]()

    try:
        helping = _helper_pool().submit(work)
    except RuntimeError:  # the interpreter is exiting: no new threads
        helping = None
    work()
    if helping is not None:
        helping.result()
    return results  # type: ignore[return-value]
