"""torch's `add_hparams`: one session of TensorBoard's HParams dashboard, through the
hparams op's encoders (`summarylib.ops.hparams.encoding`).

It writes the experiment (the hparams, with `hparam_domain_discrete` as their discrete
domains, and `metric_dict`'s keys as metrics), the session's start (the values) and its
end (success), then each metric as a scalar, all at `global_step` (default 0).

Unlike torch, they go into this writer's own run by default, so the dashboard shows each
session's metrics beside the training curves of the same run; torch puts them in a new
subdirectory named by the time, which TensorBoard shows as a separate run without the
curves. `run_name` keeps torch's behaviour: the records go to the run
`<log_dir>/<run_name>`, a file of this writer's series pool (no second writer). A run
holds one session (TensorBoard keeps the first session-start record of a run), so a
second call on the same writer without `run_name`, as in torch's example of a loop of
trials, goes where torch puts every call: a new run named by the time.

`run_name` must stay inside the log dir and be a directory name (no absolute path, no
`..` component, no NUL or lone surrogate, components of at most 255 bytes): anything
else is a ValueError at the call (torch writes wherever it points).

Each hparam is typed as torch types it, so the dashboard offers the same filters: numbers
(int, float, one-element tensors) DATA_TYPE_FLOAT64, strings DATA_TYPE_STRING, with a
discrete domain or without. Unlike torch: bool values are written as booleans, typed
DATA_TYPE_BOOL (torch writes them as the numbers 0 and 1, FLOAT64), and other values
than bool, int, float, str, None, or one-element arrays or tensors are a TypeError
naming the key.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from summarylib.compat.legacy_scalar import simple_value_event
from summarylib.compat.torch.checks import check_run_name, check_text
from summarylib.compat.torch.core import WriterCore
from summarylib.compat.torch.scalars import scalar_float
from summarylib.ops.convert import as_array
from summarylib.ops.errors import op_error
from summarylib.ops.hparams import encoding
from summarylib.ops.hparams.domains import DATA_TYPES, Discrete, HParam, Metric
from summarylib.proto import hparams_pb2
from summarylib.writer.event_codec import event_of_summary
from summarylib.writer.series_files import series_event

_OP = "add_hparams"


def _key(argument: str, name: Any) -> str:
    """A key of `hparam_dict` or `metric_dict` as its str, checked to be UTF-8 encodable."""
    return check_text(_OP, str(name), argument, str(name))


def _value(name: str, value: Any) -> Any:
    """A hyperparameter value as the hparams op takes it: Python scalars as they are,
    one-element arrays and tensors as their element (torch takes a tensor's first)."""
    if isinstance(value, str):
        return check_text(_OP, name, "hparam_dict", value)
    if isinstance(value, (bool, int, float)):
        return value
    array = as_array(_OP, name, f"hparam_dict[{name!r}]", value)
    return array.reshape(()).item() if array.size == 1 else value


def _domains(hparam_dict: dict, hparam_domain_discrete: Any) -> dict[str, Discrete]:
    """`hparam_domain_discrete` as Discrete domains, checked as torch checks it."""
    if hparam_domain_discrete is None:
        return {}
    if not isinstance(hparam_domain_discrete, dict):
        raise op_error(
            TypeError,
            _OP,
            encoding.EXPERIMENT_TAG,
            "hparam_domain_discrete",
            f"expected None or a dict of hparam name to a list of its values, got "
            f"{type(hparam_domain_discrete).__name__}",
        )
    domains = {}
    for name, values in hparam_domain_discrete.items():
        if name not in hparam_dict or not isinstance(values, list):
            raise TypeError(
                f"summarylib.{_OP}: argument 'hparam_domain_discrete': key {name!r}: expected a list of "
                "the values of an hparam of hparam_dict"
            )
        domains[name] = Discrete(values)
    return domains


class _TypedHParam(HParam):
    """An hparam typed by its value when it has no domain to type it, as torch types it
    (`lr=0.1` is DATA_TYPE_FLOAT64, not DATA_TYPE_UNSET), so the HParams dashboard offers
    a number's filters for it."""

    def __init__(self, name: str, domain: Discrete | None, value: Any) -> None:
        super().__init__(name, domain)
        # The nearest Python type of the value's (a numpy float64 is a float).
        kinds = (DATA_TYPES[kind] for kind in type(value).__mro__ if kind in DATA_TYPES)
        self._data_type = next(kinds, hparams_pb2.DATA_TYPE_UNSET)

    def as_proto(self) -> hparams_pb2.HParamInfo:
        info = super().as_proto()
        if info.type == hparams_pb2.DATA_TYPE_UNSET:
            info.type = self._data_type
        return info


class HParamsMethods(WriterCore):
    """torch's `add_hparams` (see the module docstring)."""

    def add_hparams(
        self,
        hparam_dict: dict[str, Any],
        metric_dict: dict[str, Any],
        hparam_domain_discrete: dict[str, list] | None = None,
        run_name: str | None = None,
        global_step: int | None = None,
    ) -> None:
        """Write this run's hyperparameters and the metrics they gave, for the HParams
        dashboard (see the module docstring for where they go)."""
        for argument, given in (("hparam_dict", hparam_dict), ("metric_dict", metric_dict)):
            if not isinstance(given, dict):
                raise op_error(
                    TypeError,
                    _OP,
                    encoding.EXPERIMENT_TAG,
                    argument,
                    f"expected a dict, got {type(given).__name__}",
                )
        if run_name is not None:
            run_name = check_run_name(_OP, encoding.EXPERIMENT_TAG, "run_name", run_name)
        values = {
            _key("hparam_dict", name): _value(str(name), value)
            for name, value in hparam_dict.items()
            if value is not None
        }
        domains = _domains(hparam_dict, hparam_domain_discrete)
        hparams = [_TypedHParam(name, domains.get(name), value) for name, value in values.items()]
        records: list[tuple[str, Callable[..., bytes], tuple[Any, ...]]] = [
            (
                encoding.EXPERIMENT_TAG,
                encoding.experiment_summary,
                encoding.prepare_experiment(
                    hparams, [Metric(_key("metric_dict", tag)) for tag in metric_dict]
                ),
            ),
            (
                encoding.SESSION_START_INFO_TAG,
                encoding.session_start_summary,
                encoding.prepare_session_start(values),
            ),
            (
                encoding.SESSION_END_INFO_TAG,
                encoding.session_end_summary,
                encoding.prepare_session_end("success"),
            ),
        ]
        metrics = [(str(tag), scalar_float(_OP, str(tag), value)) for tag, value in metric_dict.items()]
        step = self._step(_OP, encoding.SESSION_START_INFO_TAG, global_step)
        wall_time = time.time()
        if not run_name and self._own_run_has_hparams:
            run_name = str(time.time())  # the run holds one session already: torch's way
        if not run_name:
            self._own_run_has_hparams = True
            for tag, make_summary, args in records:
                self._queue(_OP, tag, step, make_summary, args, wall_time)
            for tag, value in metrics:
                self._writer.submit(simple_value_event, (tag, value), wall_time, step)
            return
        if self._series is None:  # closed: reopen, as torch does
            self._open()
        run = os.path.join(self.log_dir, run_name)
        submit, series = self._writer.submit, self._series
        for _, make_summary, args in records:
            submit(series_event, (series, run, event_of_summary, (make_summary, *args)), wall_time, step)
        for tag, value in metrics:
            submit(series_event, (series, run, simple_value_event, (tag, value)), wall_time, step)
