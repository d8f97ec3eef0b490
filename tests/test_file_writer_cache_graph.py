"""`compat.v1.FileWriterCache.get(logdir)` writes TensorFlow's default graph, as TF's
cache does, in a program that imported TensorFlow (a graph-mode program migrated with
`--to compat` keeps its ops): TensorBoard's Graphs tab shows the graph there too.

TensorFlow cannot be installed here; the program imports a stand-in `tensorflow` whose
default graph is a tf.Graph's one duty here, `as_graph_def()`."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

STAND_IN = '''
"""The one call of TensorFlow FileWriterCache.get makes: the default graph."""
import types

from summarylib.proto import graph_pb2


class Graph:
    def as_graph_def(self):
        return graph_pb2.GraphDef(node=[graph_pb2.NodeDef(name="loss", op="Mean")])


compat = types.SimpleNamespace(v1=types.SimpleNamespace(get_default_graph=Graph))
'''

PROGRAM = """
import sys
{imports}
from summarylib.compat import v1
writer = v1.FileWriterCache.get(sys.argv[1])
writer.add_summary(v1.scalar("loss", 0.5), 1)
v1.FileWriterCache.clear()
"""


def _run(tmp_path, imports: str) -> EventAccumulator:
    (tmp_path / "stand_in" / "tensorflow").mkdir(parents=True)
    (tmp_path / "stand_in" / "tensorflow" / "__init__.py").write_text(STAND_IN)
    logdir = tmp_path / "logs"
    program = textwrap.dedent(PROGRAM.format(imports=imports))
    env_path = f"{tmp_path / 'stand_in'}"
    subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, {env_path!r})\n{program}", str(logdir)],
        check=True,
        timeout=120,
    )
    return EventAccumulator(str(logdir)).Reload()


def test_the_cached_writer_of_a_tensorflow_program_writes_its_default_graph(tmp_path):
    accumulator = _run(tmp_path, "import tensorflow as tf")
    assert [node.name for node in accumulator.Graph().node] == ["loss"]
    assert [event.step for event in accumulator.Scalars("loss")] == [1]


def test_without_tensorflow_the_cached_writer_writes_no_graph(tmp_path):
    accumulator = _run(tmp_path, "")
    assert not accumulator.Tags()["graph"]
    assert [event.step for event in accumulator.Scalars("loss")] == [1]
