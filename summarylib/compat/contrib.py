"""tf.contrib.summary's API without TensorFlow: a global step, recording that is off
until asked for, and ops that write TF 1.x's legacy values through the default writer.

    from summarylib.compat import contrib as summary   # was: tf.contrib.summary

    writer = summary.create_file_writer("runs/exp")
    global_step = summary.get_or_create_global_step()   # was: tf.train.get_or_create_global_step()
    with writer.as_default(), summary.record_summaries_every_n_global_steps(100):
        for _ in range(steps):
            summary.scalar("loss", loss)                # at the global step
            global_step.assign_add(1)

Writers are summarylib writers (so v2 ops and contrib ops can share one), and contrib's
recording condition comes on top of `summarylib.record_if`: a contrib op writes only
when both hold. Ops return whether they will write, like the v2 ops.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

import numpy as np

from summarylib.checks import int_at_least
from summarylib.compat import legacy_values
from summarylib.compat.tags import family_tag
from summarylib.ops.audio import encoding as audio_encoding
from summarylib.ops.convert import as_float
from summarylib.ops.histogram import encoding as histogram_encoding
from summarylib.ops.image import encoding as image_encoding
from summarylib.ops.tensor import encoding as tensor_encoding
from summarylib.writer.api import flush
from summarylib.writer.context import Condition, coerce_step, evaluate
from summarylib.writer.queue import queue_summary, recording_writer
from summarylib.writer.summary_writer import NoopSummaryWriter, SummaryWriter

__all__ = [
    "GlobalStep",
    "all_summary_ops",
    "always_record_summaries",
    "audio",
    "create_file_writer",
    "create_summary_file_writer",
    "eval_dir",
    "flush",
    "generic",
    "get_global_step",
    "get_or_create_global_step",
    "histogram",
    "image",
    "never_record_summaries",
    "record_summaries_every_n_global_steps",
    "scalar",
    "should_record_summaries",
    "summary_writer_initializer_op",
]

_record_condition: ContextVar[Condition] = ContextVar("summarylib_contrib_record", default=False)


class GlobalStep:
    """The process-wide step counter, with the methods contrib code calls on TF's
    global-step variable. Thread-safe."""

    def __init__(self) -> None:
        self._value = 0
        self._lock = threading.Lock()

    def assign(self, value: Any) -> GlobalStep:
        """Set the step."""
        value = coerce_step(value, "value", "compat.contrib.GlobalStep.assign")
        with self._lock:
            self._value = value
        return self

    def assign_add(self, delta: Any) -> GlobalStep:
        """Add `delta` (usually 1) to the step."""
        delta = coerce_step(delta, "delta", "compat.contrib.GlobalStep.assign_add")
        with self._lock:
            self._value += delta
        return self

    def value(self) -> int:
        """The step now."""
        return self._value

    read_value = value

    def numpy(self) -> np.int64:
        """The step now, as TF's variable gives it."""
        return np.int64(self._value)

    def __int__(self) -> int:
        return self._value

    __index__ = __int__

    def __repr__(self) -> str:
        return f"<summarylib global step {self._value}>"


_global_step: GlobalStep | None = None
_global_step_lock = threading.Lock()


def get_or_create_global_step() -> GlobalStep:
    """The process's global step, created at 0 on first use."""
    global _global_step
    with _global_step_lock:
        if _global_step is None:
            _global_step = GlobalStep()
        return _global_step


def get_global_step() -> GlobalStep | None:
    """The process's global step, or None before get_or_create_global_step()."""
    return _global_step


def create_file_writer(
    logdir: str | os.PathLike | None,
    max_queue: int | None = None,
    flush_millis: int | None = None,
    filename_suffix: str | None = None,
    name: str | None = None,
) -> SummaryWriter | NoopSummaryWriter:
    """A summarylib writer for `logdir`; a no-op writer when `logdir` is None, as in contrib."""
    if logdir is None:
        return NoopSummaryWriter()
    return SummaryWriter(logdir, max_queue, flush_millis, filename_suffix, name)


create_summary_file_writer = create_file_writer


def eval_dir(model_dir: str, name: str | None = None) -> str:
    """The directory of evaluation summaries: `model_dir/eval` or `model_dir/eval_<name>`."""
    return os.path.join(model_dir, "eval" if not name else "eval_" + name)


def summary_writer_initializer_op() -> list:
    """Nothing to initialize without a graph: an empty list, as contrib gave in eager mode."""
    return []


def all_summary_ops() -> list:
    """Ops run eagerly here, so there are none to collect: an empty list."""
    return []


@contextlib.contextmanager
def _recording(condition: Condition) -> Iterator[None]:
    token = _record_condition.set(condition)
    try:
        yield
    finally:
        _record_condition.reset(token)


def always_record_summaries() -> contextlib.AbstractContextManager[None]:
    """Record every contrib op inside the block."""
    return _recording(True)


def never_record_summaries() -> contextlib.AbstractContextManager[None]:
    """Record no contrib op inside the block."""
    return _recording(False)


def record_summaries_every_n_global_steps(
    n: int, global_step: Any = None
) -> contextlib.AbstractContextManager[None]:
    """Record contrib ops when the global step (or `global_step`) is a multiple of `n`,
    evaluated at each op."""
    api = "compat.contrib.record_summaries_every_n_global_steps"
    n = int_at_least(api, None, "n", n)
    step_source = global_step if global_step is not None else get_or_create_global_step()
    return _recording(lambda: coerce_step(step_source, "global_step", api) % n == 0)


def should_record_summaries() -> bool:
    """Whether a contrib op called now would write."""
    return recording_writer() is not None and evaluate(_record_condition.get())


def _recording_writer() -> SummaryWriter | None:
    writer = recording_writer()
    if writer is None or not evaluate(_record_condition.get()):
        return None
    return writer


def _write(
    writer: SummaryWriter, op: str, tag: str, step: Any, make_summary: Callable[..., bytes], args: tuple
) -> bool:
    """Queue `make_summary(*args)` at `step`, else the global step, else the default step."""
    if step is None and _global_step is not None:
        step = _global_step.value()
    return queue_summary(writer, op, tag, step, make_summary, args)


def _scalar_summary(tag: str, value: float) -> bytes:
    return legacy_values.serialized([legacy_values.scalar_value(tag, value)])


def scalar(name: str, tensor: Any, family: str | None = None, step: Any = None) -> bool:
    """Write a `simple_value`."""
    writer = _recording_writer()
    if writer is None:
        return False
    tag = family_tag("scalar", name, family)
    return _write(
        writer, "scalar", tag, step, _scalar_summary, (tag, as_float("scalar", tag, "tensor", tensor))
    )


def _histogram_summary(tag: str, values: np.ndarray) -> bytes:
    return legacy_values.serialized([legacy_values.histogram_value(tag, values)])


def histogram(name: str, tensor: Any, family: str | None = None, step: Any = None) -> bool:
    """Write a `histo` in TF 1.x's exponential buckets."""
    writer = _recording_writer()
    if writer is None:
        return False
    tag = family_tag("histogram", name, family)
    _, values, _, _ = histogram_encoding.prepare(tag, tensor, None, None)
    return _write(writer, "histogram", tag, step, _histogram_summary, (tag, values))


def _image_summary(tag: str, images: np.ndarray, max_images: int, bad_color: tuple[int, ...]) -> bytes:
    return legacy_values.serialized(legacy_values.image_values(tag, images, max_images, bad_color))


def image(
    name: str,
    tensor: Any,
    bad_color: Any = None,
    max_images: int = 3,
    family: str | None = None,
    step: Any = None,
) -> bool:
    """Write one `Summary.Image` per image of a `[k, h, w, c]` batch, at most `max_images`;
    pixels with a NaN or infinite channel are painted `bad_color` (default opaque red)."""
    writer = _recording_writer()
    if writer is None:
        return False
    tag = family_tag("image", name, family)
    _, images, _, _, _ = image_encoding.prepare(tag, tensor, max_images, None)
    color = (
        legacy_values.DEFAULT_BAD_COLOR if bad_color is None else _bad_color(tag, bad_color, images.shape[-1])
    )
    return _write(writer, "image", tag, step, _image_summary, (tag, images, max_images, color))


def _bad_color(tag: str, bad_color: Any, channels: int) -> tuple[int, ...]:
    color = np.asarray(bad_color).reshape(-1)
    if color.size < channels or color.dtype.kind not in "iu" or color.min() < 0 or color.max() > 255:
        raise ValueError(
            f"summarylib.image: tag {tag!r}: argument 'bad_color': expected at least {channels} "
            f"integers in [0, 255], got {bad_color!r}"
        )
    return tuple(int(c) for c in color)


def _audio_summary(tag: str, clips: np.ndarray, sample_rate: int, max_outputs: int) -> bytes:
    return legacy_values.serialized(legacy_values.audio_values(tag, clips, sample_rate, max_outputs))


def audio(
    name: str, tensor: Any, sample_rate: Any, max_outputs: int, family: str | None = None, step: Any = None
) -> bool:
    """Write one `Summary.Audio` (16-bit WAV) per clip of `[k, t, c]` (or `[k, t]`)."""
    writer = _recording_writer()
    if writer is None:
        return False
    tag = family_tag("audio", name, family)
    clips = legacy_values.legacy_clips("audio", tag, tensor)
    _, clips, rate, _ = audio_encoding.prepare(tag, clips, sample_rate, max_outputs, None, None)
    return _write(writer, "audio", tag, step, _audio_summary, (tag, clips, rate, max_outputs))


def generic(
    name: str, tensor: Any, metadata: Any = None, family: str | None = None, step: Any = None
) -> bool:
    """Write `tensor` as is with `metadata` (a SummaryMetadata or its bytes)."""
    writer = _recording_writer()
    if writer is None:
        return False
    tag = family_tag("generic", name, family)
    args = tensor_encoding.prepare("generic", tag, tensor() if callable(tensor) else tensor, metadata)
    return _write(writer, "generic", tag, step, tensor_encoding.summary, args)
