"""The default writer, step and recording condition of the running thread or task.

Held in context variables, so each thread starts with none (as in TensorFlow 2) and each
asyncio task sees the values of the context it was created in. Ops read these on every
call, so the lookups stay cheap: a disabled op costs two ContextVar reads.
"""

from __future__ import annotations

import contextlib
import operator
import os
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from types import FrameType
from typing import Any, Protocol

import numpy as np

from summarylib.checks import input_error
from summarylib.format.wire import INT64_MAX, INT64_MIN

Condition = bool | Callable[[], Any]


class DefaultWriter(Protocol):
    """What the ops need of the default writer: a way to queue an event. The writer
    module implements it; this module needs nothing else of it, so the two do not
    import each other."""

    # The engine whose scalar lane plain scalars join (see writer/scalar_stream), or None
    # while the writer is not open: they are then submitted as any event.
    scalar_engine: Any

    def submit(  # make_event: an event maker (bytes), or a task for the writer's thread (None)
        self, make_event: Callable[..., Any], args: tuple, wall_time: float, step: int, nbytes: int = 0
    ) -> None: ...

    def flush(self) -> None: ...


class StepCounter:
    """A default step that a framework's hook moves on, read by each op when it runs, as
    TensorFlow reads a `tf.Variable` default step: a hook that runs at every batch sets
    `value` (an attribute set), where setting `default_step` itself would copy the
    context each time."""

    __slots__ = ("value",)

    def __init__(self, value: int = 0) -> None:
        self.value = value


default_writer: ContextVar[DefaultWriter | None] = ContextVar("summarylib_writer", default=None)
default_step: ContextVar[int | StepCounter | None] = ContextVar("summarylib_step", default=None)
record_condition: ContextVar[Condition] = ContextVar("summarylib_record_if", default=True)


def coerce_step(step: Any, argument: str = "step", api: str = "set_step", tag: str | None = None) -> int:
    """`step` as a Python int in the int64 range, read now.

    Accepts Python ints, numpy integers, integral floats (numpy's too, long double
    included), and 0-d integer arrays, tensors and variables of any framework, through
    `__index__`, else a 0-d `.item()`, else `.numpy()`, else `__array__` (TF and Keras
    variables such as `optimizer.iterations` have no `__index__`). Rejects bools, which
    are almost always a bug, non-integral floats, values outside int64 and tensors of
    more than one value, with a TypeError or ValueError naming `api`, `tag` and
    `argument` (a failure inside the object's own methods is its `__cause__`). A variable
    is read at the call: changing it later changes nothing already logged.
    """
    value = _step_value(step, argument, api, tag, unwrap=True)
    if not INT64_MIN <= value <= INT64_MAX:
        raise input_error(
            ValueError, api, tag, argument, f"expected an integer that fits in int64, got {value}"
        )
    return value


def _step_value(step: Any, argument: str, api: str, tag: str | None, unwrap: bool) -> int:
    """The integer `step` holds (unchecked range); `unwrap`: whether a framework scalar
    may be unwrapped (once: its value must then be a number)."""
    if type(step) is int:
        return step
    if isinstance(step, bool) or type(step).__name__ in ("bool_", "bool") or _has_bool_dtype(step):
        raise input_error(TypeError, api, tag, argument, f"expected an integer, got the bool {step!r:.80}")
    if isinstance(step, (float, np.floating)):
        if not step.is_integer():
            raise input_error(
                ValueError, api, tag, argument, f"expected an integer, got the non-integral float {step!r}"
            )
        return int(step)
    try:
        return operator.index(step)
    except TypeError:
        pass
    scalar = _framework_scalar(step, argument, api, tag) if unwrap else None
    if scalar is None:
        shape = getattr(step, "shape", None)
        shown = f" of shape {list(shape)}" if shape else f" {step!r:.80}"
        raise input_error(
            TypeError, api, tag, argument, f"expected an integer, got {type(step).__name__}{shown}"
        )
    return _step_value(scalar, argument, api, tag, unwrap=False)


def _has_bool_dtype(step: Any) -> bool:
    """Whether `step` is an array, tensor or variable of booleans (torch's bool tensors
    have `__index__`)."""
    return "bool" in str(getattr(step, "dtype", ""))


def _framework_scalar(step: Any, argument: str, api: str, tag: str | None) -> Any:
    """The one value of a 0-d tensor or variable as a numpy or Python scalar, through
    the object's own methods; None when it has none or holds more than one value."""
    if getattr(step, "ndim", 0) not in (0, None):
        return None
    try:
        item = getattr(step, "item", None)
        if callable(item):
            return item()
        read = getattr(step, "numpy", None)
        if callable(read):
            array = np.asarray(read())
        elif hasattr(step, "__array__"):
            array = np.asarray(step)
        else:
            return None
    except Exception as cause:  # the object's own methods failed: say whose
        problem = f"cannot read an integer from {type(step).__name__} ({cause!r:.200})"
        raise input_error(TypeError, api, tag, argument, problem) from cause
    return None if array.ndim else array[()]


@contextlib.contextmanager
def defaults(writer: DefaultWriter | None, step: Any = None) -> Iterator[None]:
    """Make `writer` (and `step`, unless None) the defaults inside the block; restore the
    previous ones on the way out. Leaving the block normally (after the writer's flush
    of `as_default`) raises the warnings about the data it logged (`warn_user`); an
    exception leaving it is not replaced by them."""
    step_token = None if step is None else default_step.set(coerce_step(step, api="as_default"))
    writer_token = default_writer.set(writer)
    try:
        yield
    finally:
        default_writer.reset(writer_token)
        if step_token is not None:
            default_step.reset(step_token)
    if pending_warnings:
        emit_pending_warnings()


def set_step(step: Any) -> None:
    """Set the default step of ops in this thread or task; None clears it."""
    default_step.set(None if step is None else coerce_step(step, "step", "set_step"))


def get_step() -> int | None:
    """The default step of this thread or task, or None."""
    step = default_step.get()
    return step.value if isinstance(step, StepCounter) else step


@contextlib.contextmanager
def counted_steps(counter: StepCounter) -> Iterator[None]:
    """Make `counter`'s value, read at each op, the default step inside the block."""
    token = default_step.set(counter)
    try:
        yield
    finally:
        default_step.reset(token)


def evaluate(condition: Condition) -> bool:
    """Whether a recording condition (a bool or a zero-argument callable) holds now; a
    TypeError naming record_if when the callable's result has no truth value (an array
    of several values)."""
    result = condition() if callable(condition) else condition
    if type(result) is bool:
        return result
    try:
        return bool(result)
    except Exception as cause:
        raise input_error(
            TypeError,
            "record_if",
            None,
            "condition",
            f"expected a callable returning a bool, got one returning {type(result).__name__} ({cause})",
        ) from cause


@contextlib.contextmanager
def record_if(condition: Condition) -> Iterator[None]:
    """Record summaries only while `condition` holds, evaluated at each op."""
    if isinstance(condition, np.bool_):
        condition = bool(condition)
    if not isinstance(condition, bool) and not callable(condition):
        raise input_error(
            TypeError,
            "record_if",
            None,
            "condition",
            f"expected a bool or a zero-argument callable, got {type(condition).__name__} {condition!r:.80}",
        )
    token = record_condition.set(condition)
    try:
        yield
    finally:
        record_condition.reset(token)


def should_record_summaries() -> bool:
    """Whether an op called here and now would write: a default writer and the condition."""
    return default_writer.get() is not None and evaluate(record_condition.get())


def resolve_step(op: str, tag: str | None, step: Any) -> int:
    """The step an op writes at: its own, else the default; a clear error when neither."""
    if step is None:
        step = default_step.get()
        if step is None:
            raise input_error(
                ValueError,
                op,
                tag,
                "step",
                "expected a step, got None and no default step (no step: pass step=..., call "
                "summarylib.set_step(step), or use writer.as_default(step=...))",
            )
        return step if type(step) is int else step.value
    if type(step) is int and INT64_MIN <= step <= INT64_MAX:
        return step
    return coerce_step(step, "step", op, tag)


# ---- warnings about the user's data, raised on the caller's thread ----
#
# Encoders run on the writer's thread, where a warning reaches no one: `catch_warnings`,
# `pytest.warns` and `-W error` act on the thread that warns, and the warning would point
# at summarylib's line. So a warning found there waits in `pending_warnings` until the
# next op call, flush or close on any caller's thread, which raises it pointing at the
# first frame outside summarylib: the user's line.

# Threads whose names start so are writers' threads (see summarylib.writer.engine).
WRITER_THREAD_PREFIX = "summarylib-writer"
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_SKIPPED_FILES = (_PACKAGE_DIR, contextlib.__file__)
pending_warnings: list[tuple[str, type[Warning]]] = []
_pending_lock = threading.Lock()
# (op, tag) pairs already warned about by warn_user_once.
_warned: set[tuple[str, str]] = set()


def warn_user(message: str, category: type[Warning] = RuntimeWarning) -> None:
    """Warn about the user's data where the user sees it: at once on a caller's thread,
    pointing at the user's line; from a writer's thread at the next op call, `flush()` or
    `close()` of any caller's thread (see `emit_pending_warnings`)."""
    if threading.current_thread().name.startswith(WRITER_THREAD_PREFIX):
        with _pending_lock:
            pending_warnings.append((message, category))
        return
    warnings.warn(message, category, stacklevel=_user_stacklevel())


def warn_user_once(op: str, tag: str, message: str, category: type[Warning] = RuntimeWarning) -> None:
    """`warn_user(message)` the first time `op` warns about `tag` in this process."""
    with _pending_lock:
        if (op, tag) in _warned:
            return
        _warned.add((op, tag))
    warn_user(message, category)


def emit_pending_warnings() -> None:
    """Raise the warnings writers' threads left for a caller's thread, one by one, each
    pointing at the user's line. Called by the ops after they queued their event (so an
    error filter that turns the warning into an exception costs no event) and by
    flush and close; `if pending_warnings:` before the call keeps it free when none wait."""
    while pending_warnings:
        with _pending_lock:
            if not pending_warnings:
                return
            message, category = pending_warnings.pop(0)
        warnings.warn(message, category, stacklevel=_user_stacklevel())


def _user_stacklevel() -> int:
    """The `stacklevel` for a `warnings.warn` called by the caller of this function that
    names the first frame outside summarylib (and contextlib, which runs `with` blocks):
    what Python 3.12's `skip_file_prefixes` does, on 3.11 too."""
    frame: FrameType | None = sys._getframe(2)
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(_SKIPPED_FILES):
        frame = frame.f_back
        level += 1
    return level
