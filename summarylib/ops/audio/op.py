"""The audio op bound to the default writer."""

from __future__ import annotations

from typing import Any

from summarylib.ops.audio import encoding as audio_encoding
from summarylib.ops.prepared import log_prepared


def audio(
    name: str,
    data: Any,
    sample_rate: Any,
    step: Any = None,
    max_outputs: int = 3,
    encoding: str | None = None,
    description: str | None = None,
) -> bool:
    """Write up to `max_outputs` clips of a `[k, t, c]` batch as WAV for TensorBoard's
    audio dashboard, as `tf.summary.audio` does (see summarylib.ops.audio.encoding)."""
    return log_prepared(
        "audio", name, step, audio_encoding, data, sample_rate, max_outputs, encoding, description
    )
