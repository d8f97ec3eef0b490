"""`SummaryWriter` with the API of `torch.utils.tensorboard` (and tensorboardX), on
summarylib's writer: one class made of the method groups, each in its own module."""

from __future__ import annotations

from typing import Any

from summarylib.compat.torch.dashboards import DashboardMethods
from summarylib.compat.torch.errors import with_replaced_writers_errors
from summarylib.compat.torch.histograms import HistogramMethods
from summarylib.compat.torch.hparams import HParamsMethods
from summarylib.compat.torch.media import MediaMethods
from summarylib.compat.torch.scalars import ScalarMethods


@with_replaced_writers_errors
class SummaryWriter(ScalarMethods, HistogramMethods, MediaMethods, DashboardMethods, HParamsMethods):
    """torch's `SummaryWriter`: change `from torch.utils.tensorboard import SummaryWriter`
    to `from summarylib.compat.torch import SummaryWriter`.

    `SummaryWriter(log_dir=None, comment="", purge_step=None, max_queue=10,
    flush_secs=120, filename_suffix="")` with torch's meanings: `log_dir=None` is
    `runs/<Mon DD_HH-MM-SS>_<hostname><comment>`; `purge_step` writes a
    `SessionLog.START` at that step, which makes TensorBoard discard the events of an
    earlier, crashed attempt of this run at that step and later; `max_queue` and
    `flush_secs` are summarylib's `max_queue` and `flush_millis`. `logdir=` is accepted
    too, as tensorboardX spells it.

    Every `add_*` method of torch 2.13's writer, with its signature and defaults;
    `walltime` (default now) and `global_step` (default 0) on each. Inputs are torch
    tensors (any device, with or without grad), numpy arrays, Python numbers and lists;
    bad ones raise ValueError or TypeError at the call naming the method, tag and
    argument, and where torch raises another class for the same input (NotImplementedError
    for data its `make_np` does not convert), are also of that class. The data is encoded
    on the writer's background thread by the same encoders
    as summarylib's ops, and everything the writer promises holds: nothing lost at exit,
    SIGTERM or fork, exclusive file names, background I/O errors reported by `flush()`
    and `close()` rather than raised into the loop. See the method groups' modules for
    where the files differ from torch's and why.
    """

    def export_scalars_to_json(self, path: str) -> None:
        """tensorboardX's JSON export of `add_scalars` data: not supported."""
        raise NotImplementedError(
            "summarylib.compat.torch.SummaryWriter does not keep add_scalars data in memory for "
            "export_scalars_to_json; read the runs back with summarylib.reader instead."
        )

    def add_onnx_graph(self, prototxt: Any) -> None:
        """torch's ONNX graph import: not supported (it needs the onnx package to parse
        the model)."""
        raise NotImplementedError(
            "summarylib.compat.torch.SummaryWriter cannot draw ONNX graphs; log the PyTorch model "
            "with add_graph(model, input_to_model) instead."
        )
