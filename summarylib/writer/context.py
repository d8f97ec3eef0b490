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
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from summarylib.writer.summary_writer import SummaryWriter

Condition = bool | Callable[[], Any]

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1

default_writer: ContextVar[SummaryWriter | None] = ContextVar("summarylib_writer", default=None)
default_step: ContextVar[int | None] = ContextVar("summarylib_step", default=None)
record_condition: ContextVar[Condition] = ContextVar("summarylib_record_if", default=True)


def coerce_step(step: Any, where: str = "step") -> int:
    """`step` as a Python int in the int64 range.

    Accepts Python ints, numpy integers, integral floats and 0-d integer arrays or tensors
    (anything with `__index__` or a one-element `.item()`). Rejects bools, which are
    almost always a bug, non-integral floats and values outside int64.
    """
    if type(step) is int:
        value = step
    elif isinstance(step, bool) or type(step).__name__ in ("bool_", "bool"):
        raise TypeError(f"{where} must be an integer, got the bool {step!r}")
    elif isinstance(step, float):
        if not step.is_integer():
            raise ValueError(f"{where} must be an integer, got the non-integral float {step!r}")
        value = int(step)
    else:
        try:
            value = operator.index(step)
        except TypeError:
            item = getattr(step, "item", None)
            if item is None or getattr(step, "ndim", 0) not in (0, None):
                raise TypeError(f"{where} must be an integer, got {type(step).__name__} {step!r}") from None
            return coerce_step(item(), where)
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise ValueError(f"{where} must fit in int64, got {value}")
    return value


@contextlib.contextmanager
def defaults(writer: SummaryWriter | None, step: Any = None) -> Iterator[None]:
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
