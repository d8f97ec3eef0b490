"""What a file is, decided once before anything is rewritten: which TensorFlow summary API
generation it uses, whether its TF 1.x code runs graphs in sessions, and where it traces
functions with `tf.function`. The rules read these facts; the report prints their reasons.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider, QualifiedNameProvider, QualifiedNameSource

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

TF_FUNCTION = {"tensorflow.function", "tensorflow.compat.v2.function"}


def import_qualified_name(names: set) -> str | None:
    """The one qualified name of a reference that comes from an import, if any."""
    found = sorted(name.name for name in names if name.source == QualifiedNameSource.IMPORT)
    return found[0] if found else None


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

    def in_traced(self, line: int) -> bool:
        """Whether `line` is inside a `tf.function` body."""
        return any(start <= line <= end for start, end in self.traced)


class _FactsVisitor(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (QualifiedNameProvider, PositionProvider)

    def __init__(self) -> None:
        super().__init__()
        self.facts = Facts()
        self.summary_lines: list[int] = []

    def _line(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            if cst.helpers.get_full_name_for_node(alias.name).startswith("tensorflow.compat.v1"):
                self._set_tf1(f"line {self._line(node)} imports tensorflow.compat.v1")

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        module = cst.helpers.get_full_name_for_node(node.module) if node.module else ""
        if module and module.startswith("tensorflow.compat.v1"):
            self._set_tf1(f"line {self._line(node)} imports from tensorflow.compat.v1")

    def _set_tf1(self, reason: str) -> None:
        if not self.facts.tf1:
            self.facts.tf1 = reason

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        for decorator in node.decorators:
            target = decorator.decorator
            target = target.func if isinstance(target, cst.Call) else target
            name = import_qualified_name(self.get_metadata(QualifiedNameProvider, target, set()))
            if name in TF_FUNCTION:
                position = self.get_metadata(PositionProvider, node)
                self.facts.traced.append((position.start.line, position.end.line))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._reference(node)

    def visit_Name(self, node: cst.Name) -> None:
        self._reference(node)

    def _reference(self, node: cst.CSTNode) -> None:
        name = import_qualified_name(self.get_metadata(QualifiedNameProvider, node, set()))
        if name is None:
            return
        if name.startswith("tensorflow.contrib.summary"):
            self.facts.uses_contrib = True
        symbol = _tf_symbol(name)
        if symbol is None:
            return
        line = self._line(node)
        if symbol.startswith("summary."):
            self.summary_lines.append(line)
        if symbol in TF1_ONLY:
            self._set_tf1(f"line {line} uses {symbol} (TF 1.x)")
        if symbol in GRAPH_RUNNERS and not self.facts.graph:
            self.facts.graph = f"line {line} runs a graph ({symbol})"


def collect_facts(wrapper: MetadataWrapper) -> Facts:
    """The facts of the module in `wrapper`."""
    visitor = _FactsVisitor()
    wrapper.visit(visitor)
    facts = visitor.facts
    traced = [line for line in visitor.summary_lines if facts.in_traced(line)]
    facts.traced_summary_line = traced[0] if traced else 0
    return facts
