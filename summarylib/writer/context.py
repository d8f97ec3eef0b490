"""The default writer, step and recording condition of the running thread or task.

Held in context variables, so each thread starts with none (as in TensorFlow 2) and each
asyncio task sees the values of the context it was created in. Ops read these on every
call, so the lookups stay cheap: a disabled op costs two ContextVar reads.
"""

from __future__ import annotations

import contextlib
import operator
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any, Protocol

import numpy as np

Condition = bool | Callable[[], Any]


class DefaultWriter(Protocol):
    """What the ops need of the default writer: a way to queue an event. The writer
    module implements it; this module needs nothing else of it, so the two do not
    import each other."""

    def submit(
        self, make_event: Callable[..., bytes], args: tuple, wall_time: float, step: int, nbytes: int = 0
    ) -> None: ...


_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1

default_writer: ContextVar[DefaultWriter | None] = ContextVar("summarylib_writer", default=None)
default_step: ContextVar[int | None] = ContextVar("summarylib_step", default=None)
record_condition: ContextVar[Condition] = ContextVar("summarylib_record_if", default=True)


def coerce_step(step: Any, where: str = "step") -> int:
    """`step` as a Python int in the int64 range, read now.

    Accepts Python ints, numpy integers, integral floats, and 0-d integer arrays,
    tensors and variables of any framework, through `__index__`, else a 0-d `.item()`,
    else `.numpy()`, else `__array__` (TF and Keras variables such as
    `optimizer.iterations` have no `__index__`). Rejects bools, which are almost always
    a bug, non-integral floats and values outside int64. A variable is read at the
    call: changing it later changes nothing already logged.
    """
    if type(step) is int:
        value = step
    elif isinstance(step, bool) or type(step).__name__ in ("bool_", "bool") or _has_bool_dtype(step):
        raise TypeError(f"{where} must be an integer, got the bool {step!r}")
    elif isinstance(step, float):
        if not step.is_integer():
            raise ValueError(f"{where} must be an integer, got the non-integral float {step!r}")
        value = int(step)
    else:
        try:
            value = operator.index(step)
        except TypeError:
            scalar = _framework_scalar(step)
            if scalar is None:
                raise TypeError(f"{where} must be an integer, got {type(step).__name__} {step!r}") from None
            return coerce_step(scalar, where)
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise ValueError(f"{where} must fit in int64, got {value}")
    return value


def _has_bool_dtype(step: Any) -> bool:
    """Whether `step` is an array, tensor or variable of booleans (torch's bool tensors
    have `__index__`)."""
    return "bool" in str(getattr(step, "dtype", ""))


def _framework_scalar(step: Any) -> Any:
    """The one value of a 0-d tensor or variable as a numpy or Python scalar, through
    the object's own methods; None when it has none or holds more than one value."""
    item = getattr(step, "item", None)
    if callable(item) and getattr(step, "ndim", 0) in (0, None):
        return item()
    read = getattr(step, "numpy", None)
    if callable(read):
        array = np.asarray(read())
    elif hasattr(step, "__array__"):
        array = np.asarray(step)
    else:
        return None
    return None if array.ndim else array[()]


@contextlib.contextmanager
def defaults(writer: DefaultWriter | None, step: Any = None) -> Iterator[None]:
    """Make `writer` (and `step`, unless None) the defaults inside the block; restore the
    previous ones on the way out."""
    step_token = None if step is None else default_step.set(coerce_step(step))
    writer_token = default_writer.set(writer)
    try:
        yield
    finally:
        default_writer.reset(writer_token)
        if step_token is not None:
            default_step.reset(step_token)


def set_step(step: Any) -> None:
    """Set the default step of ops in this thread or task; None clears it."""
    default_step.set(None if step is None else coerce_step(step))


def get_step() -> int | None:
    """The default step of this thread or task, or None."""
    return default_step.get()


def evaluate(condition: Condition) -> bool:
    """Whether a recording condition (a bool or a zero-argument callable) holds now."""
    return bool(condition() if callable(condition) else condition)


@contextlib.contextmanager
def record_if(condition: Condition) -> Iterator[None]:
    """Record summaries only while `condition` holds, evaluated at each op."""
    if not isinstance(condition, bool) and not callable(condition):
        raise TypeError(
            f"record_if: condition must be a bool or a zero-argument callable, got {type(condition).__name__}"
        )
    token = record_condition.set(condition)
    try:
        yield
    finally:
        record_condition.reset(token)


def should_record_summaries() -> bool:
    """Whether an op called here and now would write: a default writer and the condition."""
    return default_writer.get() is not None and evaluate(record_condition.get())


def resolve_step(op: str, tag: str, step: Any) -> int:
    """The step an op writes at: its own, else the default; a clear error when neither."""
    if step is None:
        step = default_step.get()
        if step is None:
            raise ValueError(
                f"summarylib.{op}: tag {tag!r}: no step. Pass step=..., call "
                "summarylib.set_step(step), or use writer.as_default(step=...)."
            )
        return step
    if type(step) is int and _INT64_MIN <= step <= _INT64_MAX:
        return step
    try:
        return coerce_step(step)
    except (TypeError, ValueError) as error:
        raise type(error)(f"summarylib.{op}: tag {tag!r}: argument 'step': {error}") from None
