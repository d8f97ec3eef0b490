"""torch's `add_hparams`: one session of TensorBoard's HParams dashboard, written as torch
writes it (the records are `hparams_records`'s).

Each call writes, into the run `<log_dir>/<run_name>` (default: the time, `str(time.
time())`, a new run per call, as torch names it), the experiment (the hparams, with
`hparam_domain_discrete` as their discrete domains, and `metric_dict`'s keys as
metrics), the session's start (the values) and its end (success), all at `global_step`
(default 0), then each metric as a `simple_value` scalar at that step. So a sweep of
runs with equal hyperparameters (seeds) shows one row per run, as with torch.
`run_name="."` puts the session beside the writer's own curves, in its run.

The run is a file of this writer's series pool (no second writer). `run_name` must stay
inside the log dir and be a directory name (no absolute path, no `..` component, no NUL
or lone surrogate, components of at most 255 bytes): anything else is a ValueError at
the call (torch writes wherever it points).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from summarylib.compat.legacy_scalar import simple_value_event
from summarylib.compat.torch.checks import check_run_name
from summarylib.compat.torch.core import WriterCore
from summarylib.compat.torch.hparams_records import hparams_records, tensorboardx_session, torch_session
from summarylib.ops.errors import op_error
from summarylib.ops.hparams.encoding import EXPERIMENT_TAG, SESSION_START_INFO_TAG
from summarylib.writer.event_codec import event_of_summary
from summarylib.writer.series_files import series_event

_OP = "add_hparams"


def _summary(serialized: bytes) -> bytes:
    """A Summary made at the call, as the writer's event maker takes it."""
    return serialized


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
        """Write one session of hyperparameters and the metrics they gave into the run
        `<log_dir>/<run_name>` (default: the time), for the HParams dashboard."""
        self._check_dicts(hparam_dict, metric_dict)
        infos, start = torch_session(hparam_dict, hparam_domain_discrete)
        self._write_session(
            hparams_records(infos, start, metric_dict), metric_dict, run_name, global_step, None
        )

    def _add_tensorboardx_hparams(
        self, hparam_dict: dict[str, Any], metric_dict: dict[str, Any], name: str | None, global_step: Any
    ) -> None:
        """tensorboardX's `add_hparams`: its typing of the values, the session's records
        at step 0 and the metrics at `global_step`, in the run `<logdir>/<name>`."""
        self._check_dicts(hparam_dict, metric_dict)
        infos, start = tensorboardx_session(hparam_dict)
        self._write_session(hparams_records(infos, start, metric_dict), metric_dict, name, global_step, 0)

    @staticmethod
    def _check_dicts(hparam_dict: Any, metric_dict: Any) -> None:
        for argument, given in (("hparam_dict", hparam_dict), ("metric_dict", metric_dict)):
            if not isinstance(given, dict):
                raise op_error(
                    TypeError, _OP, EXPERIMENT_TAG, argument, f"expected a dict, got {type(given).__name__}"
                )

    def _write_session(
        self,
        records: list[bytes],
        metric_dict: dict,
        run_name: str | None,
        global_step: Any,
        records_step: int | None,
    ) -> None:
        """Write the session's records (at `records_step`, or `global_step` when None) and
        its metrics (at `global_step`) into the run `run_name` (default: the time)."""
        run_name = check_run_name(_OP, EXPERIMENT_TAG, "run_name", run_name) if run_name else str(time.time())
        metrics = [(str(tag), self._scalar(_OP, str(tag), value)) for tag, value in metric_dict.items()]
        step = self._step(_OP, SESSION_START_INFO_TAG, global_step)
        wall_time = time.time()
        events: list[tuple[Callable[..., bytes], tuple, int]] = [
            (event_of_summary, (_summary, record), step if records_step is None else records_step)
            for record in records
        ]
        events += [(simple_value_event, (tag, value), step) for tag, value in metrics]
        if all(part in ("", ".") for part in run_name.replace(os.sep, "/").split("/")):
            for make_event, args, at in events:  # the writer's own run
                self._writer.submit(make_event, args, wall_time, at)
            return
        if self._series is None:  # closed: reopen, as torch does
            self._open()
        run, series = os.path.join(self.log_dir, run_name), self._series
        for make_event, args, at in events:
            self._writer.submit(series_event, (series, run, make_event, args), wall_time, at)
