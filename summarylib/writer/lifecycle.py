"""Which engines exist in this process, and what happens to them at exit, SIGTERM and fork.

- One engine (one event file) per logdir and process: TensorBoard follows only the newest
  file of a run, so two writers of one logdir that wrote two files would hide the older
  file's later data. Writers of one logdir share the engine; the last one to close it
  closes the file.
- Normal exit: the writers' finalizers run at exit (weakref.finalize) and close them.
- SIGTERM: a handler, installed once by the first writer created on the main thread,
  flushes every engine, then does what the previous handler would have done (for the
  default, re-raises the signal so the process still dies of SIGTERM). It is installed
  once and never again, so a handler the user installs later is never replaced.
- multiprocessing children end with os._exit, skipping atexit: engines created in such a
  child register a multiprocessing finalizer, which runs before that exit.
- fork: the child forgets the parent's engines without writing their queued events; a
  writer inherited by the child opens its own new file when the child first logs.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import weakref
from collections.abc import Callable

from summarylib.format.storage import registry_key
from summarylib.writer.engine import DEFAULT_CLOSE_TIMEOUT, Engine

# Re-entrant: the SIGTERM handler runs on the main thread, maybe inside acquire().
_lock = threading.RLock()
_engines: dict[str, Engine] = {}
_users: dict[str, int] = {}
_writers_to_reopen_after_fork: weakref.WeakSet = weakref.WeakSet()
# Releases of collected writers that found the registry held by another thread (see
# release_when_collected), done by that thread once it lets go.
_deferred_releases: list[tuple[str, Engine, float, bool]] = []
_sigterm_previous: object = None
_sigterm_installed = False
_multiprocessing_hook_pid: int | None = None
# How long the SIGTERM handler waits for the engines before going on with the signal.
SIGTERM_FLUSH_TIMEOUT = 10.0


def _key(logdir: str) -> str:
    return registry_key(logdir)


def acquire(logdir: str, create: Callable[[], Engine]) -> Engine:
    """The engine of `logdir` in this process, created by `create()` if there is none."""
    _install_sigterm_handler()
    _install_multiprocessing_hook()
    key = _key(logdir)
    with _lock:
        engine = _engines.get(key)
        if engine is None or engine.closed:
            engine = _engines[key] = create()
            _users[key] = 0
        _users[key] += 1
    _release_deferred()
    return engine


def release(logdir: str, engine: Engine, timeout: float = DEFAULT_CLOSE_TIMEOUT, quiet: bool = False) -> None:
    """One writer of `engine` is done; the last one closes it (see Engine.close for
    `quiet`)."""
    key = _key(logdir)
    with _lock:
        if _engines.get(key) is not engine:
            return engine.close(timeout, quiet)  # one the registry forgot (after fork, or closed)
        _users[key] -= 1
        if _users[key] > 0:
            return None
        del _engines[key], _users[key]
    engine.close(timeout, quiet)
    _release_deferred()
    return None


def release_when_collected(logdir: str, engine: Engine, timeout: float, quiet: bool) -> None:
    """`release`, as a writer's finalizer calls it: the garbage collector runs finalizers
    at any point of any thread, even in a writer thread that another thread is starting
    while it holds the registry (inside `acquire`) and waits for. Blocking on the registry
    there would deadlock both; so when another thread holds it, the release waits in a list
    that thread works through once it lets go."""
    _deferred_releases.append((logdir, engine, timeout, quiet))
    _release_deferred()


def _release_deferred() -> None:
    """The deferred releases, if the registry is free (else its holder does them)."""
    while _deferred_releases and _lock.acquire(blocking=False):
        try:
            releases = _deferred_releases[:]
            del _deferred_releases[: len(releases)]
        finally:
            _lock.release()
        for release_args in releases:
            release(*release_args)


def reopen_after_fork(writer: object) -> None:
    """Have `writer.forget_engine_after_fork()` called in a forked child."""
    _writers_to_reopen_after_fork.add(writer)


def flush_all(timeout: float = SIGTERM_FLUSH_TIMEOUT) -> None:
    """Flush every open engine, giving up on one that makes no progress."""
    with _lock:
        engines = list(_engines.values())
    for engine in engines:
        engine.flush(timeout=timeout, quiet=True)  # exiting anyway: failures are warnings


def close_all() -> None:
    """Close every open engine (multiprocessing children, which skip atexit)."""
    with _lock:
        engines = list(_engines.values())
        _engines.clear()
        _users.clear()
    for engine in engines:
        engine.close(quiet=True)


def _on_sigterm(signum: int, frame: object) -> None:
    flush_all()
    previous = _sigterm_previous
    if previous is signal.SIG_IGN:
        return
    if callable(previous):
        previous(signum, frame)
        return
    signal.signal(signum, signal.SIG_DFL)  # default: die of the signal, as without us
    os.kill(os.getpid(), signum)


def _install_sigterm_handler() -> None:
    global _sigterm_installed, _sigterm_previous
    if _sigterm_installed or threading.current_thread() is not threading.main_thread():
        return
    previous = signal.getsignal(signal.SIGTERM)
    if previous is None:  # installed outside Python: leave it alone
        _sigterm_installed = True
        return
    signal.signal(signal.SIGTERM, _on_sigterm)
    _sigterm_previous, _sigterm_installed = previous, True


def _install_multiprocessing_hook() -> None:
    global _multiprocessing_hook_pid
    if _multiprocessing_hook_pid == os.getpid():
        return
    import multiprocessing
    import multiprocessing.util

    if multiprocessing.parent_process() is None:
        return
    multiprocessing.util.Finalize(None, close_all, exitpriority=100)
    _multiprocessing_hook_pid = os.getpid()


def _after_fork_in_child() -> None:
    global _lock
    _lock = threading.RLock()
    for engine in _engines.values():
        with contextlib.suppress(Exception):  # one engine must not keep the others bound
            engine.abandon_after_fork()
    _engines.clear()
    _users.clear()
    for writer in list(_writers_to_reopen_after_fork):
        writer.forget_engine_after_fork()


os.register_at_fork(after_in_child=_after_fork_in_child)
