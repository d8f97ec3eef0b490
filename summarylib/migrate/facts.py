"""What a file is, decided once before anything is rewritten: which TensorFlow summary API
generation it uses, whether its TF 1.x code runs graphs in sessions, and where it traces
functions with `tf.function`. The rules read these facts; the report prints their reasons.
"""

from __future__ import annotations

import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider, QualifiedNameProvider

from summarylib.migrate.files import Refused, read_text
from summarylib.migrate.names import import_qualified_name, is_dotted, source
from summarylib.migrate.objects import ObjectsVisitor

TF_PREFIXES = ("tensorflow.", "tensorflow.compat.v1.")

# Symbols that exist only in TF 1.x (or only make sense there): their use makes `tf.summary` TF 1.x's.
TF1_ONLY = {
    "summary.FileWriter",
    "summary.FileWriterCache",
    "summary.merge",
    "summary.merge_all",
    "summary.tensor_summary",
    "summary.Summary",
    "summary.Event",
    "summary.SessionLog",
    "Summary",
    "Event",
    "SessionLog",
    "Session",
    "InteractiveSession",
    "placeholder",
    "disable_v2_behavior",
    "enable_eager_execution",
}

# Symbols that run a graph: summary ops in such a file are evaluated by TensorFlow.
GRAPH_RUNNERS = {
    "Session",
    "InteractiveSession",
    "placeholder",
    "train.MonitoredSession",
    "train.MonitoredTrainingSession",
    "train.SingularMonitoredSession",
}

# Symbols that build a TF 1.x graph (removed from TF 2's API): summary ops beside them are on
# graph tensors, collected by a merge_all that may live in another file.
GRAPH_BUILDERS = {
    "get_variable",
    "variable_scope",
    "get_collection",
    "add_to_collection",
    "global_variables_initializer",
    "train.Saver",
}
_TF1_OPTIMIZER = re.compile(r"train\.\w+Optimizer")

# TF 2 summary ops that write to a default writer, and the symbols that make one.
SUMMARY_OPS = {"summary.scalar", "summary.histogram", "summary.image", "summary.audio", "summary.text"}
WRITERS = {"summary.create_file_writer", "summary.create_noop_writer", "summary.FileWriter"}

UNSURE_REASON = (
    "no writer in this file and nothing in it or beside it says TF 1.x or TF 2: in TF 1.x graph "
    "code its summary ops feed a merge_all, in TF 2 a default writer; left as it is"
)

# Protos of TensorFlow's that summarylib has (tf1.PROTOS moves them) and the ones it has not.
TF_PROTOS = {"Summary", "Event", "SessionLog", "SummaryMetadata", "HistogramProto"}
PROTO_MAKERS = {"make_tensor_proto"}

TF_FUNCTION = {"tensorflow.function", "tensorflow.compat.v2.function"}
# Methods a Keras Model subclass overrides that Keras itself traces with tf.function.
KERAS_TRACED_METHODS = {"train_step", "test_step", "predict_step"}


def _tf_symbol(qualified: str) -> str | None:
    """`summary.FileWriter` for `tensorflow.summary.FileWriter` and its compat.v1 spelling."""
    for prefix in ("tensorflow.compat.v1.", "tensorflow."):
        if qualified.startswith(prefix):
            return qualified[len(prefix) :]
    return None


@dataclass
class Facts:
    """The decisions about one file, each with the line and the reason that made it."""

    tf1: str = ""  # why tf.summary is TF 1.x's here ("" when it is TF 2's)
    graph: str = ""  # why TF 1.x summary ops stay TensorFlow ops ("" when eager-style)
    uses_contrib: bool = False
    traced: list[tuple[int, int]] = field(default_factory=list)  # line ranges of tf.function bodies
    traced_summary_line: int = 0  # first tf.summary use inside a traced body
    summary_op_line: int = 0  # first TF 2 spelling of a summary op (tf.summary.scalar...)
    writer: bool = False  # whether the file makes a summary writer
    unsure: str = ""  # why the file's summary ops are left (neither TF 1.x nor TF 2 for sure)
    trace_line: int = 0  # first tf.summary.trace_* use: the default writer stays TensorFlow's
    tf_global_step: str = ""  # TF's global step, when it must stay TF's (contrib.py passes it)
    foreign_proto: str = ""  # a TensorFlow proto without a summarylib equivalent ("line 3 uses ...")
    tf_step_unpassable: str = ""  # TF's global step stays TF's but cannot be passed to contrib ops
    tf_variables: frozenset[str] = frozenset()  # sources of names bound to TF variables (objects.py)
    writer_handed: str = ""  # why the TF 2 writer stays TensorFlow's: other code writes to it
    summarylib_writer: bool = False  # the file makes a summarylib v2 writer (an earlier run's)

    def in_traced(self, line: int) -> bool:
        """Whether `line` is inside a `tf.function` body."""
        return any(start <= line <= end for start, end in self.traced)


GLOBAL_STEP_SYMBOLS = {
    "train.get_or_create_global_step",
    "train.create_global_step",
    "train.get_global_step",
    "contrib.framework.get_or_create_global_step",
    "contrib.framework.get_global_step",
}
STEP_UNPASSABLE = (
    "line {line} makes TF's global step, which stays TensorFlow's (the file hands it to TensorFlow "
    "or makes it with create_global_step), and contrib ops read it, but this file names no "
    "get_or_create_global_step to pass it with: pass step=<the global step> to each contrib op"
)
HANDED_STEP_KEYWORDS = {"global_step", "step_counter"}


class _FactsVisitor(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (QualifiedNameProvider, PositionProvider)

    def __init__(self) -> None:
        super().__init__()
        self.facts = Facts()
        self.summary_lines: list[int] = []
        self.step_call = ""  # how the file calls get_or_create_global_step (`tf.train....()`)
        self.step_line = 0  # the first reference to TF's global step
        self.step_kept = False  # TF's global step is created by create_global_step or handed to TF

    def _line(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            if cst.helpers.get_full_name_for_node_or_raise(alias.name).startswith("tensorflow.compat.v1"):
                self._set_tf1(f"line {self._line(node)} imports tensorflow.compat.v1")

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = cst.helpers.get_full_name_for_node(node.module) if node.module else ""
        if module and module.startswith("tensorflow.compat.v1"):
            self._set_tf1(f"line {self._line(node)} imports from tensorflow.compat.v1")

    def _set_tf1(self, reason: str) -> None:
        if not self.facts.tf1:
            self.facts.tf1 = reason

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        for statement in node.body.body:
            if isinstance(statement, cst.FunctionDef) and statement.name.value in KERAS_TRACED_METHODS:
                position = self.get_metadata(PositionProvider, statement)
                self.facts.traced.append((position.start.line, position.end.line))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        for decorator in node.decorators:
            target = decorator.decorator
            target = target.func if isinstance(target, cst.Call) else target
            name = import_qualified_name(self, target)
            if name in TF_FUNCTION:
                position = self.get_metadata(PositionProvider, node)
                self.facts.traced.append((position.start.line, position.end.line))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._reference(node)

    def visit_Call(self, node: cst.Call) -> None:
        func = import_qualified_name(self, node.func) or ""
        if func.startswith("tensorflow.contrib.summary."):
            return
        if isinstance(node.func, cst.Name) and func.endswith(".get_or_create_global_step"):
            self.step_call = self.step_call or f"{node.func.value}()"
        if any(arg.keyword is not None and arg.keyword.value in HANDED_STEP_KEYWORDS for arg in node.args):
            self.step_kept = True

    def visit_Name(self, node: cst.Name) -> None:
        self._reference(node)

    def _reference(self, node: cst.CSTNode) -> None:
        name = import_qualified_name(self, node)
        if name is None or not is_dotted(node):
            return
        if name.startswith("tensorflow.contrib.summary"):
            self.facts.uses_contrib = True
        symbol = _tf_symbol(name)
        if symbol is None:
            return
        line = self._line(node)
        if symbol.startswith("summary."):
            self.summary_lines.append(line)
        root = symbol.split(".")[0]
        foreign = symbol in PROTO_MAKERS or (root.endswith("Proto") and root not in TF_PROTOS)
        if foreign and not self.facts.foreign_proto:
            self.facts.foreign_proto = f"line {line} uses {root}"
        if symbol in GLOBAL_STEP_SYMBOLS:
            self.step_line = self.step_line or line
            self.step_kept = self.step_kept or symbol == "train.create_global_step"
            if isinstance(node, cst.Attribute) and not self.step_call:
                self.step_call = f"{source(node.value)}.get_or_create_global_step()"
        if symbol.startswith("summary.trace_") and not self.facts.trace_line:
            self.facts.trace_line = line
        if symbol in SUMMARY_OPS and not self.facts.summary_op_line:
            self.facts.summary_op_line = line
        self.facts.writer = self.facts.writer or symbol in WRITERS
        if symbol in GRAPH_BUILDERS or _TF1_OPTIMIZER.fullmatch(symbol):
            self._set_tf1(f"line {line} builds a TF 1.x graph ({symbol})")
            if not self.facts.graph:
                self.facts.graph = f"line {line} builds a graph ({symbol}), run elsewhere"
        if symbol in TF1_ONLY:
            self._set_tf1(f"line {line} uses {symbol} (TF 1.x)")
        if symbol in GRAPH_RUNNERS and not self.facts.graph:
            self.facts.graph = f"line {line} runs a graph ({symbol})"


Siblings = Callable[[], list[tuple[str, "Facts"]]]


def collect_facts(wrapper: MetadataWrapper, siblings: Siblings | None = None) -> Facts:
    """The facts of the module in `wrapper`. `siblings` (called only when needed: the name and
    facts of the other modules in its directory) decide a file whose summary ops have no
    writer and no TF 1.x evidence."""
    visitor = _FactsVisitor()
    wrapper.visit(visitor)
    facts = visitor.facts
    traced = [line for line in visitor.summary_lines if facts.in_traced(line)]
    facts.traced_summary_line = traced[0] if traced else 0
    if facts.uses_contrib and visitor.step_kept and visitor.step_line:
        facts.tf_global_step = visitor.step_call
        facts.tf_step_unpassable = "" if visitor.step_call else STEP_UNPASSABLE.format(line=visitor.step_line)
    objects = ObjectsVisitor()
    wrapper.visit(objects)
    facts.tf_variables = frozenset(objects.variables)
    facts.writer_handed = objects.handed
    facts.summarylib_writer = objects.summarylib_writer
    if facts.summary_op_line and not (facts.tf1 or facts.writer or facts.traced or facts.trace_line):
        _decide_from_siblings(facts, siblings() if siblings else [])
    return facts


def _decide_from_siblings(facts: Facts, siblings: list[tuple[str, Facts]]) -> None:
    """TF 1.x (graph) when a sibling module is, TF 2 when one makes a TF 2 writer, else unsure."""
    for name, sibling in siblings:
        if sibling.tf1:
            facts.tf1 = f"{name} beside it is TF 1.x ({sibling.tf1})"
            if sibling.graph:
                facts.graph = f"{name} beside it runs a graph ({sibling.graph})"
            return
    if not any(sibling.writer for _, sibling in siblings):
        facts.unsure = UNSURE_REASON


def sibling_facts(path: Path) -> list[tuple[str, Facts]]:
    """The facts of the other Python modules in `path`'s directory that parse (regular files
    only: a lock-file link or a FIFO named like a module is no module)."""
    modules = []
    for sibling in sorted(path.parent.glob("*.py")):
        try:
            status = sibling.stat()
        except OSError:
            continue
        if stat.S_ISREG(status.st_mode):
            modules.append((sibling.name, status.st_mtime_ns))
    found = _directory_facts(path.parent, tuple(modules))
    return [(name, facts) for name, facts in found if name != path.name]


@lru_cache(maxsize=16)
def _directory_facts(directory: Path, modules: tuple[tuple[str, int], ...]) -> tuple[tuple[str, Facts], ...]:
    """The facts of each module in `directory` (`modules`: names and modification times, so a
    file rewritten in place is read again), parsed once per directory in a run."""
    found = []
    for name, _ in modules:
        try:
            module = cst.parse_module(read_text(directory / name).text)
        except (cst.ParserSyntaxError, Refused):
            continue
        found.append((name, collect_facts(MetadataWrapper(module))))
    return tuple(found)
