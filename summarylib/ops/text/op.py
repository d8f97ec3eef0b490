"""The text op bound to the default writer."""

from __future__ import annotations

from typing import Any

from summarylib.ops.prepared import log_prepared
from summarylib.ops.text import encoding


def text(name: str, data: Any, step: Any = None, description: str | None = None) -> bool:
    """Write a string or an array of strings for TensorBoard's text dashboard (Markdown),
    as `tf.summary.text` does (see summarylib.ops.text.encoding)."""
    return log_prepared("text", name, step, encoding, data, description)
