"""`--to v2` for TF 1.x eager-style code: which `merge_all` loops can move onto the v2 API.

`merge_all()` ties a file's TF 1.x summaries together (it takes every op called since the last
merge, wherever it was called), so they move to the v2 API all together or not at all. They
move when every TF 1.x summary reference in the file is one of:

- `W = tf.summary.FileWriter(logdir, ...)` (or `with ... as W`), `W` assigned once and used
  only in `W.flush()`, `W.close()` and the statement below;
- a statement `W.add_summary(tf.summary.merge_all(), STEP)` directly in a `for`/`while` body,
  `STEP` a simple name;
- an op statement (`tf.summary.scalar`, `histogram`, `image`, `text`; its value unused, no
  `family=`/`collections=`) in that body, after the previous such statement.

Then the ops before each `add_summary` go into `with W.as_default(step=STEP):` and the
`add_summary` goes (see tf1_v2). Otherwise each problem is a reason in the report and the file
moves to summarylib.compat.v1 as with `--to compat`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import (
    MetadataWrapper,
    ParentNodeProvider,
    PositionProvider,
    QualifiedNameProvider,
    ScopeProvider,
)

from summarylib.migrate import tf1
from summarylib.migrate.calls import bind
from summarylib.migrate.facts import Facts
from summarylib.migrate.names import import_qualified_name

# The v2 op of each TF 1.x op with one, and the TF 1.x parameters (as bind reads them).
V2_OPS = {
    "scalar": ("name", "tensor", "collections", "family"),
    "histogram": ("name", "values", "collections", "family"),
    "image": ("name", "tensor", "max_outputs", "collections", "family"),
    "text": ("name", "tensor", "collections"),
}
WRITER_PARAMETERS = ("logdir", "graph", "max_queue", "flush_secs", "filename_suffix")
WRITER_METHODS = {"flush", "close"}
LOOPS = (cst.For, cst.While)
LEAVES_REGION = (cst.Break, cst.Continue, cst.Return)
SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)

NO_V2_OP = {
    "audio": "TF 1.x audio read a 2-D array as [k, t] mono clips, v2 as one clip [t, c]",
    "tensor_summary": "tensor_summary's metadata arguments have no v2 op of the same shape",
    "merge": "merge() of a subset: the v2 API has no collections to choose from",
    "FileWriterCache": "FileWriterCache has no v2 form",
}
REASONS = {
    "family": "family= makes TF 1.x's tag family/family/name; v2 ops have no family",
    "collections": "collections= files the op where only merge_all(key) reads it; v2 ops write at the call",
    "value": "the op's Summary is used as a value; v2 ops write at the call and return a bool",
    "not_called": "a TF 1.x summary name used as a value, not called",
    "arguments": "arguments that cannot be read statically (*args, **kwargs or unknown names)",
    "from_import": "a from-imported TF 1.x summary name (--to v2 rewrites tf.summary.x spellings)",
    "outside": (
        "an op outside the loop bodies ending in add_summary(merge_all(), step): merge_all writes it "
        "at a later merge (an op on a callable at every merge); a v2 op writes once, at the call"
    ),
    "after": "an op after the loop's last add_summary(merge_all()): TF 1.x writes it at the next step",
    "in_scope": "an op in a function or class defined inside the loop: it runs when called, not there",
    "leaves": "break/continue/return among the loop's ops: TF 1.x merged what ran at the next step",
    "merge_all": "merge_all() not passed directly to add_summary(..., step)",
    "step": "add_summary's step is not a simple name (v2: as_default(step=NAME) around the ops)",
    "step_assigned": "the step name is assigned among the loop's ops, after v2's as_default(step=) read it",
    "statement": "add_summary(merge_all(), step) not alone on its line directly in a for/while body",
    "empty": "add_summary(merge_all()) with no summary op before it in the loop body",
    "writer_target": "the FileWriter is not assigned to a simple name",
    "writer_assigned": "the writer's name is assigned more than once",
    "writer_graph": "FileWriter(graph=...): write the graph with summarylib.graph",
    "flush_secs": "FileWriter(flush_secs=...) not a number literal",
    "summary_writer": "add_summary on something other than a FileWriter assigned once to a simple name",
    "summary_value": "add_summary of a Summary passed as a value, not of merge_all() at the call",
    "writer_use": "the writer is used other than in add_summary(merge_all(), step), flush() and close()",
}
KEPT = "--to v2: kept on summarylib.compat.v1: {reason}"
KEPT_WITH_FILE = (
    "--to v2: kept on summarylib.compat.v1 with the file's other TF 1.x summaries (merge_all ties "
    "them together), because of line {line}: {reason}"
)


Terminator = tuple[cst.Call, cst.BaseExpression, cst.Name]  # W.add_summary(merge_all(), STEP), W, STEP


@dataclass(frozen=True)
class Region:
    """Statements `start` to `end` (exclusive) of a loop body go into `with writer.as_default(
    step=step):`; statement `end`, the `add_summary(merge_all(), step)`, goes."""

    start: int
    end: int
    writer: cst.BaseExpression
    step: cst.Name


@dataclass
class LoopPlan:
    """The file's `--to v2` plan: the calls to rewrite (original node -> TF 1.x symbol), the
    merge_all calls that go with their statements, the regions of each loop; or the problems
    (line -> reason) that keep everything on compat."""

    calls: dict[cst.Call, str] = field(default_factory=dict)
    dropped: set[cst.Call] = field(default_factory=set)
    regions: dict[cst.CSTNode, list[Region]] = field(default_factory=dict)
    problems: dict[int, str] = field(default_factory=dict)

    def kept(self, line: int) -> str:
        """Why a TF 1.x summary at `line` stays on compat (for the report)."""
        if line in self.problems:
            return KEPT.format(reason=self.problems[line])
        first = min(self.problems)
        return KEPT_WITH_FILE.format(line=first, reason=self.problems[first])


class _Analysis(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (QualifiedNameProvider, PositionProvider, ParentNodeProvider, ScopeProvider)

    def __init__(self, facts: Facts) -> None:
        super().__init__()
        self.facts = facts
        self.references: list[tuple[cst.BaseExpression, str]] = []
        self.plan = LoopPlan()
        # loop body -> {statement index: (add_summary call, writer, step)}
        self.terminators: dict[cst.IndentedBlock, dict[int, Terminator]] = {}
        self.terminator_calls: set[cst.Call] = set()

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._reference(node)

    def visit_Name(self, node: cst.Name) -> None:
        self._reference(node)

    def _reference(self, node: cst.BaseExpression) -> None:
        if isinstance(self._parent(node), cst.Attribute):
            return
        qualified = import_qualified_name(self, node)
        symbol = None if qualified is None else tf1.symbol(qualified, self.facts)
        if symbol is not None and symbol.split(".")[0] not in tf1.PROTOS:
            self.references.append((node, symbol))

    def _parent(self, node: cst.CSTNode | None) -> cst.CSTNode | None:
        """`node`'s parent: None for the module, and for None (so that parents chain)."""
        return None if node is None else self.get_metadata(ParentNodeProvider, node, None)

    def _line(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    def _problem(self, node: cst.CSTNode, key: str, reason: str = "") -> None:
        self.plan.problems.setdefault(self._line(node), reason or REASONS[key])

    def _called(self, node: cst.BaseExpression) -> cst.Call | None:
        parent = self._parent(node)
        return parent if isinstance(parent, cst.Call) and parent.func is node else None

    def leave_Module(self, original_node: cst.Module) -> None:
        self._finish()

    def _finish(self) -> None:
        """Check every reference (while the metadata is there): the plan, with its problems.
        Ops first (an op's own problem is the one its line reports), then the merge_all
        statements, then the writers whose add_summary they are."""
        writers, merge_alls = [], []
        for node, symbol in self.references:
            call = self._called(node)
            if isinstance(node, cst.Name):
                self._problem(node, "from_import")
            elif symbol.split(".")[0] in NO_V2_OP:
                self._problem(node, "", NO_V2_OP[symbol.split(".")[0]])
            elif call is None:
                self._problem(node, "not_called")
            elif symbol == "FileWriter":
                writers.append(call)
            elif symbol == "merge_all":
                merge_alls.append(call)
            elif symbol in V2_OPS:
                self._op_call(call, symbol)
            else:
                self._problem(node, "", f"tf.summary.{symbol} has no v2 form")
        for call in merge_alls:
            self._terminator(call)
        accepted: set[cst.Call] = set()
        for call in writers:
            self._writer(call, accepted)
        for call in self.terminator_calls - accepted:
            self._problem(call, "summary_writer")
        self._regions()

    def _writer(self, call: cst.Call, accepted: set[cst.Call]) -> None:
        """Check a FileWriter call; its add_summary statements go into `accepted`."""
        target = self._writer_target(call)
        if target is None:
            return self._problem(call, "writer_target")
        scope = self.get_metadata(ScopeProvider, target)
        if scope is None:  # every name libcst reads in a module has a scope
            return self._problem(call, "writer_target")
        assignments = scope.assignments[target.value]
        if len(assignments) != 1:
            return self._problem(call, "writer_assigned")
        for access in next(iter(assignments)).references:
            self._writer_use(access.node, accepted)
        bound = bind(WRITER_PARAMETERS, call)
        if bound is None:
            return self._problem(call, "arguments")
        if not _is_none(bound.get("graph")):
            return self._problem(call, "writer_graph")
        if "flush_secs" in bound and not isinstance(bound["flush_secs"], (cst.Integer, cst.Float)):
            return self._problem(call, "flush_secs")
        self.plan.calls[call] = "FileWriter"

    def _writer_target(self, call: cst.Call) -> cst.Name | None:
        parent = self._parent(call)
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1:
            target = parent.targets[0].target
        elif isinstance(parent, cst.WithItem) and parent.asname is not None:
            target = parent.asname.name
        else:
            return None
        return target if isinstance(target, cst.Name) else None

    def _writer_use(self, name: cst.CSTNode, accepted: set[cst.Call]) -> None:
        attribute = self._parent(name)
        call = self._called(attribute) if isinstance(attribute, cst.Attribute) else None
        if call is None or not isinstance(attribute, cst.Attribute) or attribute.value is not name:
            return self._problem(name, "writer_use")
        method = attribute.attr.value
        if method == "add_summary" and call in self.terminator_calls:
            accepted.add(call)
        elif method == "add_summary":
            self._problem(call, "summary_value")
        elif method not in WRITER_METHODS:
            self._problem(name, "writer_use")

    def _terminator(self, merge_all: cst.Call) -> None:
        """Check `merge_all()`: in `W.add_summary(merge_all(), STEP)` alone on its line directly
        in a loop body; register that statement."""
        arg = self._parent(merge_all)
        call = self._parent(arg) if isinstance(arg, cst.Arg) else None
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
            return self._problem(merge_all, "merge_all")
        func = call.func
        bound = bind(("summary", "global_step"), call)
        if bound is None or func.attr.value != "add_summary" or bound.get("summary") is not merge_all:
            return self._problem(merge_all, "merge_all")
        if merge_all.args:
            return self._problem(merge_all, "collections")
        step = bound.get("global_step")
        if not isinstance(step, cst.Name):
            return self._problem(call, "step")
        expression = self._parent(call)
        line = self._parent(expression)
        block = self._parent(line)
        loop = self._parent(block)
        if not (
            isinstance(expression, cst.Expr)
            and isinstance(line, cst.SimpleStatementLine)
            and len(line.body) == 1
            and isinstance(block, cst.IndentedBlock)
            and isinstance(loop, LOOPS)
            and loop.body is block
        ):
            return self._problem(call, "statement")
        self.plan.dropped.add(merge_all)
        self.terminators.setdefault(block, {})[block.body.index(line)] = (call, func.value, step)
        self.terminator_calls.add(call)

    def _op_call(self, call: cst.Call, symbol: str) -> None:
        bound = bind(V2_OPS[symbol], call)
        if bound is None:
            return self._problem(call, "arguments")
        for key in ("family", "collections"):
            if not _is_none(bound.get(key)):
                return self._problem(call, key)
        if not isinstance(self._parent(call), cst.Expr):
            return self._problem(call, "value")
        self.plan.calls[call] = symbol

    def _regions(self) -> None:
        """Each op in the body of a loop with add_summary(merge_all()) statements, before one."""
        ops: dict[cst.IndentedBlock, dict[int, cst.Call]] = {}
        for call, symbol in self.plan.calls.items():
            if symbol == "FileWriter":
                continue
            place = self._place(call)
            if place is None:
                self._problem(call, "outside")
            else:
                ops.setdefault(place[0], {}).setdefault(place[1], call)
        for block, ends in self.terminators.items():
            placed, start = ops.get(block, {}), 0
            for end in sorted(ends):
                call, writer, step = ends[end]
                inside = [index for index in placed if start <= index < end]
                if not inside:
                    self._problem(call, "empty")
                else:
                    region = Region(min(inside), end, writer, step)
                    self._check_region(block, region)
                    loop = self.get_metadata(ParentNodeProvider, block)
                    self.plan.regions.setdefault(loop, []).append(region)
                start = end + 1
            for index in placed:
                if index >= start:
                    self._problem(placed[index], "after")

    def _place(self, call: cst.Call) -> tuple[cst.IndentedBlock, int] | None:
        """The loop body (with add_summary statements) and statement index holding `call`."""
        node: cst.CSTNode = call
        while (parent := self._parent(node)) is not None:
            if isinstance(parent, SCOPES):
                self._problem(call, "in_scope")
                return None
            if isinstance(parent, cst.IndentedBlock) and parent in self.terminators:
                return parent, parent.body.index(node)
            node = parent
        return None

    def _check_region(self, block: cst.IndentedBlock, region: Region) -> None:
        for statement in block.body[region.start : region.end]:
            for node in _walk(statement):
                if isinstance(node, LEAVES_REGION):
                    self._problem(node, "leaves")
                elif isinstance(node, cst.Name) and node.value == region.step.value and self._assigns(node):
                    self._problem(node, "step_assigned")

    def _assigns(self, name: cst.Name) -> bool:
        parent = self._parent(name)
        if isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.NamedExpr)):
            return parent.target is name
        if isinstance(parent, cst.For):
            return parent.target is name
        if isinstance(parent, cst.AsName):
            return parent.name is name
        return isinstance(parent, (cst.Tuple, cst.List, cst.Element)) and self._assigns_container(parent)

    def _assigns_container(self, node: cst.CSTNode) -> bool:
        parent = self._parent(node)
        while isinstance(parent, (cst.Tuple, cst.List, cst.Element, cst.StarredElement)):
            node, parent = parent, self._parent(parent)
        return isinstance(parent, (cst.AssignTarget, cst.For, cst.AsName))


def _is_none(value: cst.BaseExpression | None) -> bool:
    return value is None or (isinstance(value, cst.Name) and value.value == "None")


def _walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and its descendants, not into nested functions, lambdas and classes."""
    yield node
    for child in node.children:
        if not isinstance(child, SCOPES):
            yield from _walk(child)


def plan(wrapper: MetadataWrapper, facts: Facts) -> LoopPlan:
    """The `--to v2` plan of TF 1.x eager-style module in `wrapper`."""
    analysis = _Analysis(facts)
    wrapper.visit(analysis)
    return analysis.plan
