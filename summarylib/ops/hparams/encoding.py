"""The HParams plugin's encodings: the experiment, session-start and session-end records.

As TensorBoard's `hparams.summary_v2` (and its v1 `summary.session_end_pb`) write them:
one value under a fixed tag (`_hparams_/experiment`, `_hparams_/session_start_info`,
`_hparams_/session_end_info`) whose tensor is a 0-length float32 vector and whose
metadata names the `hparams` plugin with an `HParamsPluginData{version: 0}` as content:
the record is the metadata. Hyperparameter values are stored as bools, numbers (ints
too) and strings; a session's group name is its `trial_id`, else the SHA-256 of the
values as sorted, compact JSON, so sessions with equal values form one group.

Each record has a `prepare_*` function (validation and snapshot, on the caller's thread)
whose result the matching `*_summary` function turns into serialized Summary bytes (on
the writer's thread), and an `encode_*` function doing both for the paths without a
default writer (compat layers, integrations).

Differences from TensorBoard, where it writes what its dashboard misreads: NaN and ±Inf
values are a ValueError (TensorBoard writes them; its dashboard then drops the value from
the session's row and shows the hyperparameter's range as [NaN, NaN]); values that are no
bool, int, float or str (after unwrapping numpy scalars and 0-d arrays or tensors) are a
TypeError naming the key, as in TensorBoard; `time_created_secs=None` means now, as
TensorBoard's docstring says (its code leaves the field 0).
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from summarylib.ops.errors import check_text, op_error
from summarylib.ops.hparams.domains import HParam, Metric, check_value, python_scalar, set_value
from summarylib.ops.summary import summary_bytes
from summarylib.proto import hparams_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2

PLUGIN_NAME = "hparams"
PLUGIN_DATA_VERSION = 0
EXPERIMENT_TAG = "_hparams_/experiment"
SESSION_START_INFO_TAG = "_hparams_/session_start_info"
SESSION_END_INFO_TAG = "_hparams_/session_end_info"

# session_end's statuses by name; the Status numbers are accepted too.
STATUSES = {
    "unknown": hparams_pb2.STATUS_UNKNOWN,
    "success": hparams_pb2.STATUS_SUCCESS,
    "failure": hparams_pb2.STATUS_FAILURE,
    "running": hparams_pb2.STATUS_RUNNING,
}

HParamValues = dict[str, bool | int | float | str]


def create_metadata(plugin_data: hparams_pb2.HParamsPluginData) -> summary_pb2.SummaryMetadata:
    """The hparams plugin's metadata holding `plugin_data` (a copy, at version 0)."""
    content = hparams_pb2.HParamsPluginData()
    content.CopyFrom(plugin_data)
    content.version = PLUGIN_DATA_VERSION
    metadata = summary_pb2.SummaryMetadata()
    metadata.plugin_data.plugin_name = PLUGIN_NAME
    metadata.plugin_data.content = content.SerializeToString()
    return metadata


def null_tensor() -> tensor_pb2.TensorProto:
    """The float32 tensor of shape [0] the records carry: the smallest valid tensor."""
    return tensor_pb2.TensorProto(
        dtype=types_pb2.DT_FLOAT,
        tensor_shape=tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=0)]),
    )


def _record(tag: str, plugin_data: hparams_pb2.HParamsPluginData) -> bytes:
    return summary_bytes(tag, null_tensor(), create_metadata(plugin_data))


def _time(op: str, tag: str, argument: str, value: Any) -> float:
    """A time in seconds since the epoch: now for None, else a finite real number."""
    if value is None:
        return time.time()
    value = python_scalar(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise op_error(
            TypeError,
            op,
            tag,
            argument,
            f"expected seconds since the epoch, got {type(value).__name__} {value!r}",
        )
    try:
        seconds = float(value)
    except OverflowError:
        seconds = math.inf
    if not math.isfinite(seconds):
        raise op_error(ValueError, op, tag, argument, f"expected a finite time, got {value!r:.80}")
    return seconds


# ---- session start: the hyperparameter values of one run ----


def _unwrap(value: Any) -> Any:
    """The Python value of a numpy scalar, 0-d array or 0-d tensor, or of a subclass of
    int, float or str (an enum member); anything else as it is."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, (list, tuple, dict, set, bytes)) or value is None:
        return value
    if getattr(value, "ndim", None) == 0 and callable(getattr(value, "item", None)):
        return value.item()
    if hasattr(value, "__array__"):
        array = np.asarray(value)
        if array.ndim == 0:
            return array.item()
    return value


def _hparam_value(key: str, value: Any) -> bool | int | float | str:
    """One hyperparameter value as a Python bool, int, float or str."""
    argument = f"hparams[{key!r}]"
    if type(value) not in (bool, int, float, str):
        value = _unwrap(value)
    if type(value) not in (bool, int, float, str):
        raise op_error(
            TypeError,
            "hparams",
            SESSION_START_INFO_TAG,
            argument,
            f"expected a bool, int, float or str (or a numpy scalar, 0-d array or tensor of one), "
            f"got {type(value).__name__} {value!r:.80}",
        )
    if type(value) is float and not math.isfinite(value):
        raise op_error(
            ValueError,
            "hparams",
            SESSION_START_INFO_TAG,
            argument,
            f"expected a finite number, got {value!r} (TensorBoard's HParams dashboard drops it)",
        )
    return check_value("hparams", SESSION_START_INFO_TAG, argument, value)


def hparam_values(hparams: Any) -> HParamValues:
    """`hparams` (keys: names or `HParam`s) as {name: Python value}; errors name the key."""
    if not isinstance(hparams, Mapping):
        raise op_error(
            TypeError,
            "hparams",
            SESSION_START_INFO_TAG,
            "hparams",
            f"expected a dict of names or HParams to values, got {type(hparams).__name__}",
        )
    values: HParamValues = {}
    for key, value in hparams.items():
        name = key.name if isinstance(key, HParam) else key
        if not isinstance(name, str):
            raise op_error(
                TypeError,
                "hparams",
                SESSION_START_INFO_TAG,
                "hparams",
                f"expected keys that are str or HParam, got {type(key).__name__} {key!r:.80}",
            )
        check_text("hparams", SESSION_START_INFO_TAG, "hparams", name)
        if name in values:
            raise op_error(
                ValueError,
                "hparams",
                SESSION_START_INFO_TAG,
                "hparams",
                f"multiple values for hparam {name!r}",
            )
        values[name] = _hparam_value(name, value)
    return values


def group_name(trial_id: Any, values: HParamValues) -> str:
    """The session group: `trial_id`, else the SHA-256 of the values as TensorBoard computes it."""
    if trial_id is not None:
        if not isinstance(trial_id, str):
            raise op_error(
                TypeError,
                "hparams",
                SESSION_START_INFO_TAG,
                "trial_id",
                f"expected a str or None, got {type(trial_id).__name__} {trial_id!r:.80}",
            )
        return check_text("hparams", SESSION_START_INFO_TAG, "trial_id", trial_id)
    compact = json.dumps(values, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(compact.encode("utf-8")).hexdigest()


def prepare_session_start(
    hparams: Any, trial_id: Any = None, start_time_secs: Any = None
) -> tuple[HParamValues, str, float]:
    """Validate and snapshot on the caller's thread; the arguments of `session_start_summary`."""
    values = hparam_values(hparams)
    start = _time("hparams", SESSION_START_INFO_TAG, "start_time_secs", start_time_secs)
    return values, group_name(trial_id, values), start


def session_start_info(
    values: HParamValues, group: str, start_time_secs: float
) -> hparams_pb2.HParamsPluginData:
    """The plugin data of a session-start record."""
    info = hparams_pb2.SessionStartInfo(group_name=group, start_time_secs=start_time_secs)
    for name in sorted(values):
        set_value(info.hparams[name], values[name])
    return hparams_pb2.HParamsPluginData(session_start_info=info)


def session_start_summary(values: HParamValues, group: str, start_time_secs: float) -> bytes:
    """The serialized Summary of a prepared session start (on the writer's thread)."""
    return _record(SESSION_START_INFO_TAG, session_start_info(values, group, start_time_secs))


def encode_session_start(
    hparams: Any, trial_id: str | None = None, start_time_secs: float | None = None
) -> bytes:
    """The serialized Summary `hparams(...)` writes, without I/O (TensorBoard's `hparams_pb`)."""
    return session_start_summary(*prepare_session_start(hparams, trial_id, start_time_secs))


# ---- experiment: the hyperparameters and metrics of all runs ----


def _all_of(kind: type, argument: str, items: Any) -> tuple:
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Iterable):
        raise op_error(
            TypeError,
            "hparams_config",
            EXPERIMENT_TAG,
            argument,
            f"expected a list of {kind.__name__}, got {type(items).__name__}",
        )
    items = tuple(items)
    for index, item in enumerate(items):
        if not isinstance(item, kind):
            raise op_error(
                TypeError,
                "hparams_config",
                EXPERIMENT_TAG,
                f"{argument}[{index}]",
                f"expected a summarylib.hparams.{kind.__name__}, got {type(item).__name__} {item!r:.80}",
            )
    return items


def prepare_experiment(
    hparams: Any, metrics: Any, time_created_secs: Any = None
) -> tuple[tuple[HParam, ...], tuple[Metric, ...], float]:
    """Validate on the caller's thread (HParams and Metrics are immutable: they are their
    own snapshot); the arguments of `experiment_summary`."""
    return (
        _all_of(HParam, "hparams", hparams),
        _all_of(Metric, "metrics", metrics),
        _time("hparams_config", EXPERIMENT_TAG, "time_created_secs", time_created_secs),
    )


def experiment(
    hparams: tuple[HParam, ...], metrics: tuple[Metric, ...], time_created_secs: float
) -> hparams_pb2.HParamsPluginData:
    """The plugin data of an experiment record."""
    return hparams_pb2.HParamsPluginData(
        experiment=hparams_pb2.Experiment(
            hparam_infos=[hparam.as_proto() for hparam in hparams],
            metric_infos=[metric.as_proto() for metric in metrics],
            time_created_secs=time_created_secs,
        )
    )


def experiment_summary(
    hparams: tuple[HParam, ...], metrics: tuple[Metric, ...], time_created_secs: float
) -> bytes:
    """The serialized Summary of a prepared experiment (on the writer's thread)."""
    return _record(EXPERIMENT_TAG, experiment(hparams, metrics, time_created_secs))


def encode_experiment(hparams: Any, metrics: Any, time_created_secs: float | None = None) -> bytes:
    """The serialized Summary `hparams_config(...)` writes, without I/O (TensorBoard's
    `hparams_config_pb`)."""
    return experiment_summary(*prepare_experiment(hparams, metrics, time_created_secs))


# ---- session end: how a run finished ----


def status_number(status: Any) -> hparams_pb2.Status:
    """A session status: a name of `STATUSES` (any case, "STATUS_" prefix allowed) or its number."""
    if isinstance(status, str):
        name = status.lower().removeprefix("status_")
        if name in STATUSES:
            return STATUSES[name]
    elif (
        isinstance(status, (int, np.integer)) and not isinstance(status, bool) and status in STATUSES.values()
    ):
        return next(number for number in STATUSES.values() if number == status)
    raise op_error(
        ValueError,
        "session_end",
        SESSION_END_INFO_TAG,
        "status",
        f"expected one of {', '.join(map(repr, STATUSES))} (or its Status number), got {status!r}",
    )


def prepare_session_end(
    status: Any = "success", end_time_secs: Any = None
) -> tuple[hparams_pb2.Status, float]:
    """Validate on the caller's thread; the arguments of `session_end_summary`."""
    return status_number(status), _time("session_end", SESSION_END_INFO_TAG, "end_time_secs", end_time_secs)


def session_end_summary(status: hparams_pb2.Status, end_time_secs: float) -> bytes:
    """The serialized Summary of a prepared session end (on the writer's thread)."""
    info = hparams_pb2.SessionEndInfo(status=status, end_time_secs=end_time_secs)
    return _record(SESSION_END_INFO_TAG, hparams_pb2.HParamsPluginData(session_end_info=info))


def encode_session_end(status: Any = "success", end_time_secs: float | None = None) -> bytes:
    """The serialized Summary `session_end(...)` writes, without I/O."""
    return session_end_summary(*prepare_session_end(status, end_time_secs))
