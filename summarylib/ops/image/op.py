"""The image op bound to the default writer."""

from __future__ import annotations

from typing import Any

from summarylib.ops.image import encoding
from summarylib.ops.prepared import log_prepared


def image(
    name: str, data: Any, step: Any = None, max_outputs: int = 3, description: str | None = None
) -> bool:
    """Write up to `max_outputs` images of a `[k, h, w, c]` batch as PNGs for TensorBoard's
    images dashboard, as `tf.summary.image` does (see summarylib.ops.image.encoding)."""
    return log_prepared("image", name, step, encoding, data, max_outputs, description)
