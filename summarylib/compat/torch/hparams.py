"""torch's `add_hparams`: one session of TensorBoard's HParams dashboard, through the
hparams op's encoders (`summarylib.ops.hparams`).

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

Also unlike torch: bool values are written as booleans (torch writes them as the numbers
0 and 1) and other values than bool, int, float, str, None, or one-element arrays or
tensors are a TypeError naming the key.
"""

from __future__ import annotations

import os
import time
from typing import Any

from summarylib.compat.legacy_scalar import simple_value_event
from summarylib.compat.torch.core import WriterCore
from summarylib.compat.torch.scalars import scalar_float
from summarylib.ops import hparams as encoding
from summarylib.ops.convert import as_array
from summarylib.ops.hparams_domains import Discrete, HParam, Metric
from summarylib.writer.event_codec import event_of_summary
from summarylib.writer.series_files import series_event

_OP = "add_hparams"


def _value(name: str, value: Any) -> Any:
    """A hyperparameter value as the hparams op takes it: Python scalars as they are,
    one-element arrays and tensors as their element (torch takes a tensor's first)."""
    if isinstance(value, (bool, int, float, str)):
        return value
    array = as_array(_OP, name, f"hparam_dict[{name!r}]", value)
    return array.reshape(()).item() if array.size == 1 else value


def _domains(hparam_dict: dict, hparam_domain_discrete: Any) -> dict[str, Discrete]:
    """`hparam_domain_discrete` as Discrete domains, checked as torch checks it."""
    domains = {}
    for name, values in (hparam_domain_discrete or {}).items():
        if name not in hparam_dict or not isinstance(values, list):
            raise TypeError(
                f"summarylib.{_OP}: argument 'hparam_domain_discrete': key {name!r}: expected a list of "
                "the values of an hparam of hparam_dict"
            )
        domains[name] = Discrete(values)
    return domains


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
        if not isinstance(hparam_dict, dict) or not isinstance(metric_dict, dict):
            raise TypeError(
                f"summarylib.{_OP}: hparam_dict and metric_dict must be dicts, got "
                f"{type(hparam_dict).__name__} and {type(metric_dict).__name__}"
            )
        values = {
            str(name): _value(str(name), value) for name, value in hparam_dict.items() if value is not None
        }
        domains = _domains(hparam_dict, hparam_domain_discrete)
        hparams = [HParam(name, domains.get(name)) for name in values]
        records = [
            (
                encoding.EXPERIMENT_TAG,
                encoding.experiment_summary,
                encoding.prepare_experiment(hparams, [Metric(str(tag)) for tag in metric_dict]),
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
        wall_time = self._wall_time(None)
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
