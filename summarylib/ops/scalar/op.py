"""The scalar op bound to the default writer, the most frequent op: its common cases are
checked inline and go into the writer's scalar lane without a call per event."""

from __future__ import annotations

import time
from typing import Any

from summarylib.format.wire import INT64_MAX, INT64_MIN
from summarylib.ops.convert import as_float
from summarylib.ops.errors import check_description, check_name, valid_tags
from summarylib.ops.scalar.encoding import V2_COLUMNS, scalar_event
from summarylib.writer.context import (
    default_writer,
    emit_pending_warnings,
    evaluate,
    pending_warnings,
    record_condition,
    resolve_step,
)

_now = time.time


def scalar(name: str, data: Any, step: Any = None, description: str | None = None) -> bool:
    """Write a scalar for TensorBoard's scalars dashboard, as `tf.summary.scalar` does.

    `data` is a real number: a Python number, numpy scalar, 0-d array or tensor. NaN and
    ±Inf are written as they are. Returns False, without looking at `data`, when there is
    no default writer or recording is off.
    """
    # The most frequent op: the common cases are checked inline, the rest by the helpers.
    writer = default_writer.get()
    if writer is None:
        return False
    condition = record_condition.get()
    if condition is not True and not evaluate(condition):
        return False
    tag = name if type(name) is str and name in valid_tags else check_name("scalar", name)
    value = data if type(data) is float else as_float("scalar", tag, "data", data)
    if type(step) is not int or not INT64_MIN <= step <= INT64_MAX:
        step = resolve_step("scalar", tag, step)
    if description is not None:
        check_description("scalar", tag, description)
    engine = writer.scalar_engine
    if engine is None or description is not None:
        writer.submit(scalar_event, (tag, value, description), _now(), step)
    else:  # the scalar lane: no tuple kept per event, no call (see writer/scalar_stream.py)
        scalars = engine.scalars
        scalars += (V2_COLUMNS, tag, value, _now(), step)
        if len(scalars) >= engine.scalar_limit:
            engine.scalars_full()
    if pending_warnings:  # warnings about data encoded on the writer's thread
        emit_pending_warnings()
    return True
