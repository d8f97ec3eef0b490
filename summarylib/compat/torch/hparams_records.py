"""The three HParams records of torch's and tensorboardX's `add_hparams`, field for field
as each writes them, so readers of their files (TensorBoard's HParams dashboard, which
groups sessions by `group_name`; DataFrame readers of the session protos) see the same.

What both write, unlike the native `summarylib.hparams` (TF 2's `hp.hparams`): each
value carries only the metadata (no tensor), the session start has no `group_name` (so
TensorBoard makes every run its own group: two seeds of one configuration are two rows,
never one averaged row) and no start time, the experiment no creation time, the session
end no end time.

How they type a value:
- torch: None is left out; bools, ints and floats are numbers (`DATA_TYPE_FLOAT64`, a
  bool as 0 or 1), with `hparam_domain_discrete` as their discrete domain; strs are
  strings; a tensor is the number of its first element. Anything else is refused.
  Here numpy scalars and one-element arrays are numbers too, where torch refuses them.
- tensorboardX: None is left out; strs are strings, bools booleans (`DATA_TYPE_BOOL`),
  ints and floats numbers, a callable the string of its `__name__`; anything else is
  listed without a value, typed `DATA_TYPE_UNSET`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from summarylib.compat.torch.checks import check_text
from summarylib.ops.convert import as_array
from summarylib.ops.errors import op_error
from summarylib.ops.hparams.domains import check_value
from summarylib.ops.hparams.encoding import (
    EXPERIMENT_TAG,
    SESSION_END_INFO_TAG,
    SESSION_START_INFO_TAG,
    create_metadata,
)
from summarylib.proto import hparams_pb2, summary_pb2

_OP = "add_hparams"


class HParamValueError(TypeError, ValueError):
    """A hyperparameter value torch cannot write: a TypeError as summarylib says it, and a
    ValueError as torch raises it, so code that catches either still does."""


def _record(tag: str, plugin_data: hparams_pb2.HParamsPluginData) -> bytes:
    """A Summary of one value holding only the hparams plugin's metadata."""
    value = summary_pb2.Summary.Value(tag=tag, metadata=create_metadata(plugin_data))
    return summary_pb2.Summary(value=[value]).SerializeToString()


def _key(argument: str, name: Any) -> str:
    """A key of `hparam_dict` or `metric_dict`: a str UTF-8 can encode (the protos' keys)."""
    if not isinstance(name, str):
        raise op_error(
            TypeError,
            _OP,
            EXPERIMENT_TAG,
            argument,
            f"expected str keys, got {type(name).__name__} {name!r:.80}",
        )
    return check_text(_OP, name, argument, name)


def _torch_number(name: str, value: Any) -> float | None:
    """The number torch writes for `value`, or None if it writes none of this kind."""
    if isinstance(value, (bool, int, float, np.integer, np.floating)):
        return float(check_value(_OP, name, f"hparam_dict[{name!r}]", value))
    if hasattr(value, "__array__") and not isinstance(value, str):
        array = as_array(_OP, name, f"hparam_dict[{name!r}]", value)
        if array.size >= 1 and array.dtype.kind in "biuf":
            return float(array.reshape(-1)[0])  # torch takes a tensor's first element
    return None


def _domain(name: str, value: Any, domain: Any) -> Any:
    """`hparam_domain_discrete[name]` as the ListValue torch writes, checked as torch
    checks it: a list of values of the hparam's own type."""
    if not isinstance(domain, list) or not all(isinstance(item, type(value)) for item in domain):
        raise op_error(
            TypeError,
            _OP,
            name,
            "hparam_domain_discrete",
            f"expected a list of values of the type of hparam_dict[{name!r}] ({type(value).__name__}), "
            f"got {domain!r:.80}",
        )
    info = hparams_pb2.HParamInfo()
    for item in domain:
        if isinstance(item, str):
            info.domain_discrete.values.add().string_value = check_text(
                _OP, name, "hparam_domain_discrete", item
            )
        else:
            info.domain_discrete.values.add().number_value = float(item)
    return info.domain_discrete


def torch_session(hparam_dict: Mapping, domains: Any) -> tuple[list, hparams_pb2.SessionStartInfo]:
    """torch's hparam infos and session start of `hparam_dict`, with `domains` (its
    `hparam_domain_discrete`, or None) as the discrete domains."""
    domains = {} if domains is None else domains
    if not isinstance(domains, dict):
        raise op_error(
            TypeError,
            _OP,
            EXPERIMENT_TAG,
            "hparam_domain_discrete",
            f"expected None or a dict of hparam name to a list of its values, got {type(domains).__name__}",
        )
    for name in domains:
        if name not in hparam_dict:
            raise op_error(
                TypeError,
                _OP,
                name,
                "hparam_domain_discrete",
                "expected the name of an hparam of hparam_dict",
            )
    infos, start = [], hparams_pb2.SessionStartInfo()
    for key, value in hparam_dict.items():
        name = _key("hparam_dict", key)
        if value is None:
            continue
        info = hparams_pb2.HParamInfo(name=name)
        number = None if isinstance(value, str) else _torch_number(name, value)
        if isinstance(value, str):
            start.hparams[name].string_value = check_text(_OP, name, "hparam_dict", value)
            info.type = hparams_pb2.DATA_TYPE_STRING
        elif number is not None:
            start.hparams[name].number_value = number
            info.type = hparams_pb2.DATA_TYPE_FLOAT64
        else:
            raise HParamValueError(
                f"summarylib.{_OP}: tag {name!r}: argument 'hparam_dict': expected a bool, int, float, str, "
                f"None or a tensor, got {type(value).__name__} {value!r:.80}"
            )
        if name in domains and not hasattr(value, "__array__"):
            info.domain_discrete.CopyFrom(_domain(name, value, domains[name]))
        infos.append(info)
    return infos, start


def tensorboardx_session(hparam_dict: Mapping) -> tuple[list, hparams_pb2.SessionStartInfo]:
    """tensorboardX's hparam infos and session start of `hparam_dict`."""
    infos, start = [], hparams_pb2.SessionStartInfo()
    for key, value in hparam_dict.items():
        name = _key("hparam_dict", key)
        if value is None:
            continue
        info = hparams_pb2.HParamInfo(name=name, type=hparams_pb2.DATA_TYPE_UNSET)
        if isinstance(value, str):
            start.hparams[name].string_value = check_text(_OP, name, "hparam_dict", value)
            info.type = hparams_pb2.DATA_TYPE_STRING
        elif isinstance(value, bool):
            start.hparams[name].bool_value = value
            info.type = hparams_pb2.DATA_TYPE_BOOL
        elif isinstance(value, (int, float)):
            start.hparams[name].number_value = float(check_value(_OP, name, f"hparam_dict[{name!r}]", value))
            info.type = hparams_pb2.DATA_TYPE_FLOAT64
        elif callable(value):
            shown = getattr(value, "__name__", None) or str(value)
            start.hparams[name].string_value = check_text(_OP, name, "hparam_dict", str(shown))
            info.type = hparams_pb2.DATA_TYPE_STRING
        infos.append(info)
    return infos, start


def hparams_records(infos: list, start: hparams_pb2.SessionStartInfo, metric_dict: Mapping) -> list[bytes]:
    """The experiment, session-start and session-end Summaries (serialized), in the
    order torch and tensorboardX write them."""
    metrics = [
        hparams_pb2.MetricInfo(name=hparams_pb2.MetricName(tag=_key("metric_dict", tag)))
        for tag in metric_dict
    ]
    experiment = hparams_pb2.Experiment(hparam_infos=infos, metric_infos=metrics)
    end = hparams_pb2.SessionEndInfo(status=hparams_pb2.STATUS_SUCCESS)
    return [
        _record(EXPERIMENT_TAG, hparams_pb2.HParamsPluginData(experiment=experiment)),
        _record(SESSION_START_INFO_TAG, hparams_pb2.HParamsPluginData(session_start_info=start)),
        _record(SESSION_END_INFO_TAG, hparams_pb2.HParamsPluginData(session_end_info=end)),
    ]
