"""The body of summarylib's Lightning `TensorBoardLogger`, built on the `Logger` base of
whichever Lightning package the user has (`lightning` or `pytorch_lightning`: two
packages with separate, equal class trees), so this module imports neither.

Where it differs from Lightning's own logger, on purpose:

- The experiment is a `summarylib.compat.torch.SummaryWriter`: one background thread per
  run (also for `add_scalars`), events flushed at exit, on SIGTERM and before fork.
- Hyperparameters go into the run as a session-start record only, without the
  experiment record torch's `add_hparams` adds. That record lists the metrics of the
  HParams dashboard, and Lightning's lists only `hp_metric`, which is why users find
  their metrics missing there; without it TensorBoard lists every scalar of the run as
  a metric column, `hp_metric` (Lightning's placeholder, still written) among them.
- `finalize(status)` writes the session-end record with that status (TensorBoard shows
  a run that crashed as failed), where torch writes "success" at the start.
"""

from __future__ import annotations

import importlib
import os
from argparse import Namespace
from collections.abc import Callable, Mapping
from types import SimpleNamespace
from typing import Any

from summarylib.compat.torch import SummaryWriter
from summarylib.integrations.implicit import settle_quietly
from summarylib.ops import hparams as hparams_encoding
from summarylib.reading import storage
from summarylib.writer.filesystems import join, subdirectories

HPARAMS_FILE = "hparams.yaml"
# Lightning's finalize statuses, as the HParams dashboard's session statuses.
_END_STATUSES = {"success": "success", "finished": "success", "failed": "failure", "interrupted": "failure"}


_NAME = "summarylib TensorBoardLogger"


def next_version(root_dir: str) -> int:
    """One more than the largest `version_N` directory in `root_dir` (0 if none), as
    Lightning numbers its runs; `root_dir` may be a URL."""
    versions = [
        int(name[len("version_") :])
        for name in subdirectories(root_dir)
        if name.startswith("version_") and name[len("version_") :].isdigit()
    ]
    return max(versions) + 1 if versions else 0


def _shown(value: Any) -> Any:
    """A hyperparameter as the HParams dashboard can hold it: numbers, bools and strings
    (and one-value arrays or tensors) as they are, anything else (a vector of class
    weights, a list) as its text."""
    if isinstance(value, (bool, int, float, str)):
        return value
    if getattr(value, "ndim", None) == 0 or getattr(value, "size", None) == 1:
        item = getattr(value, "item", None)
        if callable(item):
            return item()
    return str(value)


def logger_class_for(pytorch: str, fabric: str, module: str) -> type:
    """The TensorBoardLogger class on the Lightning package whose trainer side is
    `pytorch` (`lightning.pytorch` or `pytorch_lightning`) and whose fabric side is
    `fabric`, named as importable from `module` (so it pickles)."""
    fabric_logger = importlib.import_module(f"{fabric}.utilities.logger")
    loggers = importlib.import_module(f"{pytorch}.loggers.logger")
    utilities = importlib.import_module(f"{pytorch}.utilities")
    lightning = SimpleNamespace(
        Logger=loggers.Logger,
        rank_zero_experiment=loggers.rank_zero_experiment,
        rank_zero_only=utilities.rank_zero_only,
        rank_zero_warn=utilities.rank_zero_warn,
        convert_params=fabric_logger._convert_params,
        flatten_dict=fabric_logger._flatten_dict,
        sanitize_params=fabric_logger._sanitize_params,
        save_hparams_to_yaml=importlib.import_module(f"{pytorch}.core.saving").save_hparams_to_yaml,
    )
    logger_class = _logger_class(lightning)
    logger_class.__module__ = module
    return logger_class


def _logger_class(lightning: Any) -> type:
    rank_zero_only: Callable = lightning.rank_zero_only

    class TensorBoardLogger(lightning.Logger):
        """Lightning's `TensorBoardLogger` on summarylib: same arguments, directories,
        tags, steps and `hparams.yaml`; `experiment` is a
        `summarylib.compat.torch.SummaryWriter`, so `self.logger.experiment.add_image(...)`
        in a LightningModule works unchanged. See summarylib.integrations.lightning_logger
        for what differs. Other ranks than zero write nothing and create no directories."""

        LOGGER_JOIN_CHAR = "-"
        NAME_HPARAMS_FILE = HPARAMS_FILE

        def __init__(
            self,
            save_dir: str | os.PathLike,
            name: str | None = "lightning_logs",
            version: int | str | None = None,
            log_graph: bool = False,
            default_hp_metric: bool = True,
            prefix: str = "",
            sub_dir: str | os.PathLike | None = None,
            **kwargs: Any,
        ) -> None:
            super().__init__()
            self._save_dir = os.fspath(save_dir)
            self._name = name or ""
            self._version = version
            self._sub_dir = None if sub_dir is None else os.fspath(sub_dir)
            self._log_graph = log_graph
            self._default_hp_metric = default_hp_metric
            self._prefix = prefix
            self._kwargs = kwargs
            self._experiment: SummaryWriter | None = None
            self._session_started = False
            self.hparams: dict[str, Any] | Namespace = {}

        @property
        def name(self) -> str:
            """The experiment's name: the directory above the versions."""
            return self._name

        @property
        def version(self) -> int | str:
            """The run's version: as given, else the next free `version_N`, chosen once."""
            if self._version is None:
                self._version = next_version(self.root_dir)
            return self._version

        @property
        def save_dir(self) -> str:
            """The directory all experiments are saved under."""
            return self._save_dir

        @property
        def root_dir(self) -> str:
            """`save_dir/name`: the directory of this experiment's versions."""
            return join(self._save_dir, self.name)

        @property
        def sub_dir(self) -> str | None:
            """A directory inside the version for this logger's files, if given."""
            return self._sub_dir

        @property
        def log_dir(self) -> str:
            """`root_dir/version_N[/sub_dir]`: the run TensorBoard shows."""
            version = self.version if isinstance(self.version, str) else f"version_{self.version}"
            log_dir = join(self.root_dir, version)
            if isinstance(self._sub_dir, str):
                log_dir = join(log_dir, self._sub_dir)
            return os.path.expanduser(os.path.expandvars(log_dir))

        @property
        @lightning.rank_zero_experiment
        def experiment(self) -> SummaryWriter:
            """The run's torch-shaped writer, created on first use (rank zero only)."""
            if self._experiment is None:
                self._experiment = SummaryWriter(log_dir=self.log_dir, **self._kwargs)
            return self._experiment

        @rank_zero_only
        def log_metrics(self, metrics: Mapping[str, Any], step: int | None = None) -> None:
            """Scalars at `step`; a dict value is a group of series (`add_scalars`)."""
            for key, value in metrics.items():
                tag = f"{self._prefix}{self.LOGGER_JOIN_CHAR}{key}" if self._prefix else key
                if isinstance(value, dict):
                    self.experiment.add_scalars(tag, value, step)
                    continue
                value = value.item() if callable(getattr(value, "item", None)) else value
                try:
                    self.experiment.add_scalar(tag, value, step)
                except (TypeError, ValueError) as error:
                    raise ValueError(
                        f"summarylib TensorBoardLogger: cannot log {tag!r}: {error}. "
                        "Log a number, a 0-d tensor or a dict of them."
                    ) from error

        @rank_zero_only
        def log_hyperparams(
            self, params: dict[str, Any] | Namespace, metrics: Any = None, step: int | None = None
        ) -> None:
            """Record the run's hyperparameters for the HParams dashboard and
            `hparams.yaml`; `metrics` (default: Lightning's `hp_metric` placeholder, -1)
            are logged as scalars."""
            params = lightning.convert_params(params)
            self.hparams.update(params)
            if metrics is None:
                metrics = {"hp_metric": -1} if self._default_hp_metric else None
            elif not isinstance(metrics, dict):
                metrics = {"hp_metric": metrics}
            if not metrics:
                return
            self.log_metrics(metrics, step)
            values = lightning.sanitize_params(lightning.flatten_dict(params))
            summary = hparams_encoding.encode_session_start({key: _shown(v) for key, v in values.items()})
            self.experiment.add_summary(summary, step)
            self._session_started = True

        @rank_zero_only
        def log_graph(self, model: Any, input_array: Any = None) -> None:
            """The model's graph (`log_graph=True`), traced through one forward pass of
            `input_array` or `model.example_input_array`."""
            if not self._log_graph:
                return
            input_array = getattr(model, "example_input_array", None) if input_array is None else input_array
            if input_array is None:
                lightning.rank_zero_warn(
                    "Could not log computational graph to TensorBoard: The `model.example_input_array` "
                    "attribute is not set or `input_array` was not given."
                )
                return
            transfer = getattr(model, "_apply_batch_transfer_handler", None)
            if callable(transfer) and callable(getattr(model, "_on_before_batch_transfer", None)):
                input_array = transfer(model._on_before_batch_transfer(input_array))
            self.experiment.add_graph(model, input_array)

        @rank_zero_only
        def save(self) -> None:
            """Flush, and write `hparams.yaml` in the run's directory once; a failed write
            is a warning (Lightning calls this, not the user; Lightning's logger raises)."""
            settle_quietly(self.experiment.flush, _NAME, "flushing the writer")
            hparams_file = join(self.log_dir, HPARAMS_FILE)
            if storage.kind(self.log_dir) == "directory" and storage.kind(hparams_file) is None:
                settle_quietly(
                    lambda: lightning.save_hparams_to_yaml(hparams_file, self.hparams),
                    _NAME,
                    f"writing {HPARAMS_FILE}",
                )

        @rank_zero_only
        def finalize(self, status: str) -> None:
            """End the session with `status` and close the writer (a failed write is a
            warning, not raised into `trainer.fit`); on success, save."""
            if self._experiment is not None:
                if self._session_started:
                    status_name = _END_STATUSES.get(status, "unknown")
                    self._experiment.add_summary(hparams_encoding.encode_session_end(status_name))
                settle_quietly(self._experiment.close, _NAME, "closing the writer")
            if status == "success":
                self.save()

        def after_save_checkpoint(self, checkpoint_callback: Any) -> None:
            """Nothing to do: checkpoints are not logged."""

        def __getstate__(self) -> dict[str, Any]:
            state = self.__dict__.copy()
            state["_experiment"] = None
            return state

    return TensorBoardLogger
