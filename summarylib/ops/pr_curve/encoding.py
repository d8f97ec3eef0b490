"""The PR-curve op's encoding: a `[6, num_thresholds]` float32 tensor for TensorBoard's
PR curves plugin.

TensorFlow 2 has no PR-curve op; this one is written in the v2 style (the tag is the name as
given, no display name) with the encoding the `pr_curves` plugin reads. Its rows are true
positives, false positives, true negatives, false negatives, precision and recall at the
thresholds `i / (num_thresholds - 1)`; a prediction `p` counts as positive at every
threshold up to `floor(p * (num_thresholds - 1))`. The counts are those of TensorBoard's
`pr_curve.summary.pb` for the same inputs, computed as it does: bucket indices in the
predictions' float precision, weighted sums in float64 (in the same order, so weighted
counts agree to the last bit), precision and recall with `max(1e-7, ...)` denominators, the
result rounded to float32. The metadata is `PrCurvePluginData{version: 0, num_thresholds}`.

Differences from `pb`, where it is broken or silent:

- float16 predictions are multiplied in float32: `pb`'s float16 product rounds predictions
  across thresholds (or overflows and drops them).
- Labels other than booleans or 0/1, predictions outside [0, 1] (or NaN), non-finite weights,
  mismatched shapes and `num_thresholds` below 2 are a ValueError at the call; `pb` would
  count such values somewhere, or drop them.
- `num_thresholds` above MAX_NUM_THRESHOLDS (2**20) is a ValueError: TensorFlow's int32
  would let a curve of 2**31 thresholds take 200 GB on the writer's thread.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from summarylib.checks import int_at_least
from summarylib.format.tensor import make_tensor_proto
from summarylib.ops.convert import as_real_array, snapshot
from summarylib.ops.errors import check_description, check_name, op_error
from summarylib.ops.summary import summary_bytes
from summarylib.proto import plugin_data_pb2, summary_pb2, tensor_pb2

PLUGIN_NAME = "pr_curves"
PROTO_VERSION = 0
DEFAULT_NUM_THRESHOLDS = 201
# The most thresholds a curve may have: TensorFlow's op takes an int32, but a curve costs
# about 100 bytes a threshold on the writer's thread and 24 in the event, so 2**31 would
# take 200 GB; 2**20 makes a 24 MiB event, far more points than the dashboard can draw.
MAX_NUM_THRESHOLDS = 1 << 20
# The smallest denominator of precision and recall, as TensorBoard's.
MINIMUM_COUNT = 1e-7
# Weighted counts are summed in blocks of this many values, as numpy's histogram (which
# `pb` uses) sums them, so that float64 rounding happens in the same order.
_BLOCK = 65536


def create_metadata(num_thresholds: int, description: str | None = None) -> summary_pb2.SummaryMetadata:
    """The pr_curves plugin's metadata: the number of thresholds, and the description if any."""
    content = plugin_data_pb2.PrCurvePluginData(version=PROTO_VERSION, num_thresholds=num_thresholds)
    metadata = summary_pb2.SummaryMetadata(summary_description=description or "")
    metadata.plugin_data.plugin_name = PLUGIN_NAME
    metadata.plugin_data.content = content.SerializeToString()
    return metadata


def _check_num_thresholds(tag: str, num_thresholds: Any) -> int:
    num_thresholds = int_at_least("pr_curve", tag, "num_thresholds", num_thresholds, least=2)
    if num_thresholds > MAX_NUM_THRESHOLDS:
        raise op_error(
            ValueError,
            "pr_curve",
            tag,
            "num_thresholds",
            f"expected at most {MAX_NUM_THRESHOLDS} thresholds, got {num_thresholds}",
        )
    return num_thresholds


def _check_labels(tag: str, labels: np.ndarray) -> None:
    if labels.dtype.kind == "b" or labels.size == 0:
        return
    if labels.dtype.kind == "f":
        binary = np.count_nonzero((labels == 0) | (labels == 1)) == labels.size
    else:
        binary = labels.min() >= 0 and labels.max() <= 1
    if not binary:
        bad = labels[(labels != 0) & (labels != 1)].flat[0]
        raise op_error(
            ValueError,
            "pr_curve",
            tag,
            "labels",
            f"expected booleans or 0/1, got {bad} (dtype {labels.dtype}, shape {list(labels.shape)})",
        )


def _check_predictions(tag: str, predictions: np.ndarray, shape: tuple[int, ...]) -> None:
    if predictions.shape != shape:
        raise op_error(
            ValueError,
            "pr_curve",
            tag,
            "predictions",
            f"expected the labels' shape {list(shape)}, got shape {list(predictions.shape)}",
        )
    if predictions.size == 0:
        return
    low, high = predictions.min(), predictions.max()
    if not (low >= 0 and high <= 1):  # also catches NaN, which min and max propagate
        raise op_error(
            ValueError,
            "pr_curve",
            tag,
            "predictions",
            f"expected values in [0, 1], got min {low} and max {high} (dtype {predictions.dtype})",
        )


def _check_weights(tag: str, weights: np.ndarray, shape: tuple[int, ...]) -> None:
    try:
        broadcast = np.broadcast_shapes(weights.shape, shape)
    except ValueError:
        broadcast = None
    if broadcast != shape:
        raise op_error(
            ValueError,
            "pr_curve",
            tag,
            "weights",
            f"expected a shape that broadcasts to the labels' shape {list(shape)}, "
            f"got shape {list(weights.shape)}",
        )
    if weights.dtype.kind == "f" and not np.isfinite(weights).all():
        raise op_error(ValueError, "pr_curve", tag, "weights", "expected finite values, got NaN or ±Inf")


def prepare(
    tag: str, labels: Any, predictions: Any, num_thresholds: Any, weights: Any, description: Any
) -> tuple[str, np.ndarray, np.ndarray, int, np.ndarray | None, str | None]:
    """Check the arguments and snapshot the arrays, on the caller's thread.

    `labels`: booleans or 0/1 of any shape; `predictions`: reals in [0, 1] of the same shape;
    `weights`: None or reals broadcastable to that shape. Returns the arguments of `summary`.
    """
    num_thresholds = _check_num_thresholds(tag, num_thresholds)
    check_description("pr_curve", tag, description)
    label_array = as_real_array("pr_curve", tag, "labels", labels)
    _check_labels(tag, label_array)
    prediction_array = as_real_array("pr_curve", tag, "predictions", predictions)
    _check_predictions(tag, prediction_array, label_array.shape)
    weight_array = None
    if weights is not None:
        weight_array = as_real_array("pr_curve", tag, "weights", weights)
        _check_weights(tag, weight_array, label_array.shape)
        weight_array = snapshot(weight_array, weights)
    return (
        tag,
        snapshot(label_array, labels),
        snapshot(prediction_array, predictions),
        num_thresholds,
        weight_array,
        description,
    )


def _bucket_keys(labels: np.ndarray, predictions: np.ndarray, num_thresholds: int) -> np.ndarray:
    """`floor(p * (num_thresholds - 1))`, plus `num_thresholds` for positive labels, per value
    (flattened): negatives' keys are [0, n), positives' [n, 2n), so one bincount counts both.

    The product is rounded in `pb`'s precision (but see the module docstring for float16);
    float32 keys are exact, as 2 * MAX_NUM_THRESHOLDS is below 2**24.
    """
    n = num_thresholds
    work = np.float32 if predictions.dtype in (np.float16, np.float32) else np.float64
    keys = np.multiply(predictions.reshape(-1), n - 1, dtype=work)
    np.floor(keys, out=keys)
    positive = labels.reshape(-1)
    keys += (positive if positive.dtype == np.bool_ else positive != 0) * work(n)
    return keys.astype(np.intp)


def _bucket_sums(keys: np.ndarray, weights: np.ndarray | None, length: int, shape: tuple) -> np.ndarray:
    """float64 (weighted) counts of each key in [0, length)."""
    if weights is None:
        return np.bincount(keys, minlength=length).astype(np.float64)
    flat_weights = np.broadcast_to(weights, shape).reshape(-1)
    sums = np.zeros(length, np.float64)
    for start in range(0, keys.size, _BLOCK):
        block = slice(start, start + _BLOCK)
        sums += np.bincount(keys[block], weights=flat_weights[block].astype(np.float64), minlength=length)
    return sums


def curve(
    labels: np.ndarray, predictions: np.ndarray, num_thresholds: int, weights: np.ndarray | None = None
) -> np.ndarray:
    """The `[6, num_thresholds]` float32 rows TP, FP, TN, FN, precision, recall."""
    n = num_thresholds
    sums = _bucket_sums(_bucket_keys(labels, predictions, n), weights, 2 * n, labels.shape)
    # A classifier (p >= threshold i) counts bucket i and every bucket above it.
    fp = np.cumsum(sums[n - 1 :: -1])[::-1]
    tp = np.cumsum(sums[: n - 1 : -1])[::-1]
    tn = fp[0] - fp
    fn = tp[0] - tp
    precision = tp / np.maximum(MINIMUM_COUNT, tp + fp)
    recall = tp / np.maximum(MINIMUM_COUNT, tp + fn)
    return np.stack((tp, fp, tn, fn, precision, recall)).astype(np.float32)


def _build(
    tag: str,
    labels: np.ndarray,
    predictions: np.ndarray,
    num_thresholds: int,
    weights: np.ndarray | None,
    description: str | None,
) -> tuple[tensor_pb2.TensorProto, summary_pb2.SummaryMetadata]:
    return (
        make_tensor_proto(curve(labels, predictions, num_thresholds, weights)),
        create_metadata(num_thresholds, description),
    )


def encode(
    tag: str,
    labels: Any,
    predictions: Any,
    num_thresholds: int = DEFAULT_NUM_THRESHOLDS,
    weights: Any = None,
    description: str | None = None,
) -> tuple[tensor_pb2.TensorProto, summary_pb2.SummaryMetadata]:
    """The PR-curve tensor and metadata; no I/O. Raises as the op does for bad arguments."""
    tag = check_name("pr_curve", tag)
    return _build(*prepare(tag, labels, predictions, num_thresholds, weights, description))


def summary(
    tag: str,
    labels: np.ndarray,
    predictions: np.ndarray,
    num_thresholds: int,
    weights: np.ndarray | None,
    description: str | None,
) -> bytes:
    """The serialized Summary of `prepare`'s result (run on the writer's thread)."""
    return summary_bytes(tag, *_build(tag, labels, predictions, num_thresholds, weights, description))
