"""The body of summarylib's Lightning `TensorBoardLogger`, a subclass of Lightning's own
`TensorBoardLogger` in whichever Lightning package the user has (`lightning` or
`pytorch_lightning`: two packages with separate, equal class trees), so this module imports
neither: its methods are those of `SummarylibLogger`, here, and `logger_class_for` puts
them before the package's class. Being Lightning's class, the Trainer treats it as its
own: `trainer.log_dir` is the run's directory, where checkpoints and `hparams.yaml` go.
Lightning's directories, versions, `log_graph` checks and pickling are reused; the writer
and what needs it are replaced, and nothing here needs tensorboard or tensorboardX
installed (Lightning's own `__init__`, which refuses to run without one of them, is not
called). Hyperparameters go into the run as Lightning writes them: torch's experiment
(listing the `metrics` given, `hp_metric` by default, as the HParams dashboard's
metrics), session-start and session-end (success) records, at `step`, after the metrics.

Where it differs from Lightning's own logger, on purpose:

- The experiment is a `summarylib.compat.torch.SummaryWriter`: one background thread per
  run (also for `add_scalars`), events flushed at exit, on SIGTERM and before fork. The
  graph (`log_graph=True`) is traced by summarylib, so it is written without tensorboard.
- A failed flush, close or `hparams.yaml` write in `save`/`finalize` is a warning, not an
  exception out of `trainer.fit`; versions are found, and `hparams.yaml` written, on
  any storage summarylib writes to (local paths and fsspec URLs).
"""

from __future__ import annotations

import importlib
import os
from argparse import Namespace
from collections.abc import Callable, Mapping
from types import SimpleNamespace
from typing import Any, ClassVar

from lightning_utilities.core.rank_zero import rank_zero_only  # the one both packages use

from summarylib.compat.torch import SummaryWriter
from summarylib.compat.torch.hparams_records import hparams_records, torch_session
from summarylib.format import storage
from summarylib.format.storage import join, subdirectories
from summarylib.integrations.implicit import settle_quietly

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


def logger_class_for(pytorch: str, fabric: str, module: str) -> type:
    """The TensorBoardLogger class on the Lightning package whose trainer side is
    `pytorch` (`lightning.pytorch` or `pytorch_lightning`) and whose fabric side is
    `fabric`, named as importable from `module` (so it pickles, as strategies that
    spawn processes pickle the trainer's loggers)."""
    fabric_logger = importlib.import_module(f"{fabric}.utilities.logger")
    rank_zero_experiment = importlib.import_module(f"{pytorch}.loggers.logger").rank_zero_experiment
    lightning = SimpleNamespace(
        experiment_on_rank_zero=rank_zero_experiment(SummarylibLogger._writer),
        convert_params=fabric_logger._convert_params,
        flatten_dict=fabric_logger._flatten_dict,
        save_hparams_to_yaml=importlib.import_module(f"{pytorch}.core.saving").save_hparams_to_yaml,
    )
    base = importlib.import_module(f"{pytorch}.loggers").TensorBoardLogger
    namespace = {"__module__": module, "__doc__": SummarylibLogger.__doc__, "_lightning": lightning}
    return type("TensorBoardLogger", (SummarylibLogger, base), namespace)


class SummarylibLogger:
    """Lightning's `TensorBoardLogger` on summarylib: same arguments, directories, tags,
    steps and `hparams.yaml`; `experiment` is a `summarylib.compat.torch.SummaryWriter`, so
    `self.logger.experiment.add_image(...)` in a LightningModule works unchanged. See
    summarylib.integrations.lightning_logger for what differs. Other ranks than zero write
    nothing and create no directories.

    The methods here come before those of Lightning's class in the classes
    `logger_class_for` makes, which inherit everything else from it."""

    # The Lightning package's own helpers, set on each class `logger_class_for` makes.
    _lightning: ClassVar[SimpleNamespace]
    # What these methods use of Lightning's TensorBoardLogger, which follows this class in
    # the made classes: declared (annotations only, nothing that would shadow it) for the
    # type checker.
    LOGGER_JOIN_CHAR: ClassVar[str]
    NAME_HPARAMS_FILE: ClassVar[str]
    root_dir: str
    log_dir: str
    _sanitize_params: Callable[[dict[str, Any]], dict[str, Any]]

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
        # The attributes Lightning's __init__ sets, without its check for tensorboard.
        self._root_dir = os.fspath(save_dir)
        self._name = name or ""
        self._version = version
        self._sub_dir = None if sub_dir is None else os.fspath(sub_dir)
        self._log_graph = log_graph
        self._default_hp_metric = default_hp_metric
        self._prefix = prefix
        self._kwargs = kwargs
        self._experiment: SummaryWriter | None = None
        self.hparams: dict[str, Any] | Namespace = {}

    def _get_next_version(self) -> int:
        return next_version(self.root_dir)

    @property
    def experiment(self) -> SummaryWriter:
        """The run's torch-shaped writer, created on first use (rank zero only; other ranks
        get Lightning's dummy experiment)."""
        return self._lightning.experiment_on_rank_zero(self)

    def _writer(self) -> SummaryWriter:
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
        """Record the run's hyperparameters for the HParams dashboard and `hparams.yaml`;
        `metrics` (default: Lightning's `hp_metric` placeholder, -1) are logged as scalars."""
        params = self._lightning.convert_params(params)
        self.hparams.update(params)
        if metrics is None:
            metrics = {"hp_metric": -1} if self._default_hp_metric else None
        elif not isinstance(metrics, dict):
            metrics = {"hp_metric": metrics}
        if not metrics:
            return
        self.log_metrics(metrics, step)
        values = self._sanitize_params(self._lightning.flatten_dict(params))
        infos, start = torch_session(values, None)
        file_writer = self.experiment._get_file_writer()
        for record in hparams_records(infos, start, metrics):
            file_writer.add_summary(record, step)

    @rank_zero_only
    def save(self) -> None:
        """Flush, and write `hparams.yaml` in the run's directory once; a failed write is a
        warning (Lightning calls this, not the user; Lightning's logger raises)."""
        settle_quietly(self.experiment.flush, _NAME, "flushing the writer")
        hparams_file = join(self.log_dir, self.NAME_HPARAMS_FILE)
        if storage.kind(self.log_dir) == "directory" and storage.kind(hparams_file) is None:
            settle_quietly(
                lambda: self._lightning.save_hparams_to_yaml(hparams_file, self.hparams),
                _NAME,
                f"writing {self.NAME_HPARAMS_FILE}",
            )

    @rank_zero_only
    def finalize(self, status: str) -> None:
        """Flush and close the writer, as Lightning's logger does (a failed flush or close
        is a warning, not raised into `trainer.fit`); on success, save."""
        if self._experiment is not None:
            settle_quietly(self._experiment.flush, _NAME, "flushing the writer")
            settle_quietly(self._experiment.close, _NAME, "closing the writer")
        if status == "success":
            self.save()
