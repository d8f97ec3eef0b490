"""The pr_curve op bound to the default writer."""

from __future__ import annotations

from typing import Any

from summarylib.ops.pr_curve import encoding
from summarylib.ops.prepared import log_prepared


def pr_curve(
    name: str,
    labels: Any,
    predictions: Any,
    step: Any = None,
    num_thresholds: int = 201,
    weights: Any = None,
    description: str | None = None,
) -> bool:
    """Write a precision-recall curve for TensorBoard's PR curves dashboard
    (see summarylib.ops.pr_curve.encoding; TensorFlow 2 has no such op)."""
    return log_prepared(
        "pr_curve", name, step, encoding, labels, predictions, num_thresholds, weights, description
    )
