"""The HParams ops bound to the default writer (`hparams`, `hparams_config`,
`session_end`) and the Summaries they write (`*_pb`), as `tensorboard.plugins.hparams.api`
has them; users reach them as `summarylib.hparams`, whose docstring says how runs, steps and
sessions go together."""

from __future__ import annotations

import warnings
import weakref
from typing import Any

from summarylib.ops.hparams import encoding
from summarylib.proto import summary_pb2
from summarylib.writer.queue import queue_summary, recording_writer

# TensorFlow writes every hparams record at step 0.
_STEP = 0
# Writers that have written a session start, to warn when a second one would be ignored.
_started: weakref.WeakSet = weakref.WeakSet()


def hparams(hparams: Any, trial_id: str | None = None, start_time_secs: float | None = None) -> bool:
    """Write the hyperparameter values of this run (a session of the HParams dashboard).

    `hparams` maps names or `HParam`s to values: bool, int, float or str (numpy scalars,
    0-d arrays and 0-d tensors of those too); anything else is a TypeError naming the key,
    NaN and ±Inf a ValueError. `trial_id` names the session group (default: a hash of the
    values, so runs with the same values form one group); `start_time_secs` defaults to now.

    Call it once per run. TensorBoard keeps the first session-start record of a run and
    ignores later ones (both its loaders keep the first metadata of a tag), so calling it
    again in the same run changes nothing on the dashboard: the later record is still
    written (other readers see it), with a warning. A new trial belongs in a new run.
    """
    writer = recording_writer()
    if writer is None:
        return False
    args = encoding.prepare_session_start(hparams, trial_id, start_time_secs)
    if writer in _started:
        warnings.warn(
            "summarylib.hparams: this writer's run already has hyperparameter values; TensorBoard "
            "shows only the first ones of a run. Write each trial to its own logdir.",
            stacklevel=2,
        )
    _started.add(writer)
    return queue_summary(
        writer, "hparams", encoding.SESSION_START_INFO_TAG, _STEP, encoding.session_start_summary, args
    )


def hparams_config(hparams: Any, metrics: Any, time_created_secs: float | None = None) -> bool:
    """Write the experiment: the `HParam`s (their domains, display names, descriptions) and
    the `Metric`s the dashboard shows as columns. Optional: without it TensorBoard derives
    the hyperparameters from the runs' values and the metrics from all their scalar tags.

    Write it once per logdir, in any run (TensorBoard uses the first experiment it finds).
    `time_created_secs` defaults to now.
    """
    writer = recording_writer()
    if writer is None:
        return False
    args = encoding.prepare_experiment(hparams, metrics, time_created_secs)
    return queue_summary(
        writer, "hparams_config", encoding.EXPERIMENT_TAG, _STEP, encoding.experiment_summary, args
    )


def session_end(status: str | int = "success", end_time_secs: float | None = None) -> bool:
    """Write how this run finished: "success", "failure", "running" or "unknown" (or a
    `Status` number); the dashboard shows it in the session's status column and can filter
    on it. `end_time_secs` defaults to now."""
    writer = recording_writer()
    if writer is None:
        return False
    args = encoding.prepare_session_end(status, end_time_secs)
    return queue_summary(
        writer, "session_end", encoding.SESSION_END_INFO_TAG, _STEP, encoding.session_end_summary, args
    )


def hparams_pb(
    hparams: Any, trial_id: str | None = None, start_time_secs: float | None = None
) -> summary_pb2.Summary:
    """The Summary `hparams(...)` writes, as TensorBoard's `hparams_pb` returns it."""
    return summary_pb2.Summary.FromString(encoding.encode_session_start(hparams, trial_id, start_time_secs))


def hparams_config_pb(
    hparams: Any, metrics: Any, time_created_secs: float | None = None
) -> summary_pb2.Summary:
    """The Summary `hparams_config(...)` writes, as TensorBoard's `hparams_config_pb` returns it."""
    return summary_pb2.Summary.FromString(encoding.encode_experiment(hparams, metrics, time_created_secs))


def session_end_pb(status: str | int = "success", end_time_secs: float | None = None) -> summary_pb2.Summary:
    """The Summary `session_end(...)` writes."""
    return summary_pb2.Summary.FromString(encoding.encode_session_end(status, end_time_secs))
