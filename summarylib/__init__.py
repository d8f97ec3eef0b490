"""summarylib: TensorBoard summaries from any training loop, without TensorFlow.

import summarylib as sl
writer = sl.create_file_writer("runs/exp1")
with writer.as_default(step=0):
    sl.scalar("loss", 0.25)

`summarylib.integrations` (Keras, Lightning, torch) is imported when first used, so
`import summarylib` never imports a framework.

This package is the public namespace over the layers (docs/architecture.md): it gathers
the ops (`summarylib.ops.<kind>`), the writer's API (`summarylib.writer`), `hparams` and
`distributed`. Only the surfaces on top (compat, integrations, demo, ...) may import it;
the layers below import each other's modules directly.
"""

import importlib
from typing import TYPE_CHECKING

from summarylib import distributed, hparams
from summarylib.ops.audio import audio
from summarylib.ops.custom_scalars import custom_scalars
from summarylib.ops.embedding import embedding
from summarylib.ops.graph import graph
from summarylib.ops.histogram import histogram
from summarylib.ops.image import image
from summarylib.ops.mesh import mesh
from summarylib.ops.pr_curve import pr_curve
from summarylib.ops.scalar import scalar
from summarylib.ops.tensor import write, write_raw_pb
from summarylib.ops.text import text
from summarylib.proto.graph_pb2 import GraphDef, NodeDef
from summarylib.writer.api import create_file_writer, flush
from summarylib.writer.context import get_step, record_if, set_step, should_record_summaries
from summarylib.writer.engine import WriterError, WriterStats
from summarylib.writer.summary_writer import NoopSummaryWriter, SummaryWriter

if TYPE_CHECKING:  # a type checker sees the package; at run time it is imported at first use
    from summarylib import integrations as integrations
else:

    def __getattr__(name: str) -> object:
        """`summarylib.integrations.keras.Watch(...)` after a plain `import summarylib`: the
        integrations package (whose subpackages import their frameworks at first use in turn)
        is imported at first use rather than with summarylib."""
        if name == "integrations":
            return importlib.import_module("summarylib.integrations")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def create_noop_writer() -> NoopSummaryWriter:
    """A writer that writes nothing; as the default, every op returns False."""
    return NoopSummaryWriter()


__all__ = [
    "GraphDef",
    "NodeDef",
    "NoopSummaryWriter",
    "SummaryWriter",
    "WriterError",
    "WriterStats",
    "audio",
    "create_file_writer",
    "create_noop_writer",
    "custom_scalars",
    "distributed",
    "embedding",
    "flush",
    "get_step",
    "graph",
    "histogram",
    "hparams",
    "image",
    "mesh",
    "pr_curve",
    "record_if",
    "scalar",
    "set_step",
    "should_record_summaries",
    "text",
    "write",
    "write_raw_pb",
]
