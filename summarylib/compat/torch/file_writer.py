"""torch's `FileWriter`, as `SummaryWriter.file_writer` exposes it: the raw protobuf
interface of the run (`add_event`, `add_summary`, `add_graph`), writing into the same
run and the same event file as its `SummaryWriter`, through the same summarylib writer.

Real code reaches for it to write what the `add_*` methods do not, most often
hyperparameters made by torch's own `torch.utils.tensorboard.summary.hparams`:

    exp, ssi, sei = hparams(hparam_dict, metric_dict)
    for summary in (exp, ssi, sei):
        writer.file_writer.add_summary(summary)

It accepts summarylib's, TensorBoard's, TensorFlow's and torch's protos (or their bytes)
and writes them as they are. It is a view of its `SummaryWriter`, not a second writer:
`close()` closes the run (torch's `SummaryWriter.file_writer` is None after a close too),
`reopen()` opens it again. Constructed on its own, `FileWriter(log_dir, max_queue,
flush_secs, filename_suffix)` as torch's, it has a run of its own.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from summarylib.compat.torch.checks import check_wall_time, serialized_proto
from summarylib.ops.errors import op_error
from summarylib.proto import event_pb2, graph_pb2

if TYPE_CHECKING:
    from summarylib.compat.torch.core import WriterCore

RUN_METADATA_TAG = "step1"  # torch's tag for the step stats beside a graph


class FileWriter:
    """The run's protobuf interface (see the module docstring)."""

    def __init__(
        self,
        log_dir: str | os.PathLike,
        max_queue: int = 10,
        flush_secs: float = 120,
        filename_suffix: str = "",
        *,
        owner: WriterCore | None = None,
    ) -> None:
        if owner is None:  # torch's FileWriter(log_dir, ...): a run of its own
            from summarylib.compat.torch.core import WriterCore  # core imports this module

            owner = WriterCore(
                str(log_dir), max_queue=max_queue, flush_secs=flush_secs, filename_suffix=filename_suffix
            )
        self._owner = owner

    def get_logdir(self) -> str:
        """The directory of the run's event file."""
        return self._owner.log_dir

    def add_event(self, event: Any, step: int | None = None, walltime: float | None = None) -> None:
        """Write an `Event` protobuf (or its bytes) as it is, with `walltime` (default
        now) and, if given, `step`."""
        self._owner.add_event(event, step, walltime)

    def add_summary(
        self, summary: Any, global_step: int | None = None, walltime: float | None = None
    ) -> None:
        """Write a `Summary` protobuf (or its bytes) as one event at `global_step`
        (default 0)."""
        self._owner.add_summary(summary, global_step, walltime)

    def add_graph(self, graph_profile: Sequence[Any], walltime: float | None = None) -> None:
        """Write a `(GraphDef, RunMetadata)` pair, as torch's `_pytorch_graph.graph`
        returns it: the graph for the graphs dashboard and its step stats (tag "step1")."""
        if not isinstance(graph_profile, Sequence) or len(graph_profile) != 2:
            raise op_error(
                TypeError,
                "add_graph",
                None,
                "graph_profile",
                f"expected a (GraphDef, RunMetadata) pair of protobufs, got {type(graph_profile).__name__}",
            )
        graph = serialized_proto("add_graph", "graph_profile", graph_profile[0], graph_pb2.GraphDef)
        run_metadata = serialized_proto("add_graph", "graph_profile", graph_profile[1], None)
        check_wall_time("add_graph", None, walltime)
        self.add_event(event_pb2.Event(graph_def=graph), None, walltime)
        tagged = event_pb2.TaggedRunMetadata(tag=RUN_METADATA_TAG, run_metadata=run_metadata)
        self.add_event(event_pb2.Event(tagged_run_metadata=tagged), None, walltime)

    def add_onnx_graph(self, graph: Any, walltime: float | None = None) -> None:
        """Write a `GraphDef` protobuf (or its bytes), as torch's ONNX import makes it,
        for the graphs dashboard."""
        data = serialized_proto("add_onnx_graph", "graph", graph, graph_pb2.GraphDef)
        check_wall_time("add_onnx_graph", None, walltime)
        self.add_event(event_pb2.Event(graph_def=data), None, walltime)

    def flush(self) -> None:
        """Flush the run (see `SummaryWriter.flush`)."""
        self._owner.flush()

    def close(self) -> None:
        """Close the run (see `SummaryWriter.close`)."""
        self._owner.close()

    def reopen(self) -> None:
        """Open the run again after `close()`: later events go into a new event file."""
        self._owner._get_file_writer()
