"""The transformer that applies the rules to one module: references (attribute chains,
called or not, and from-imported names) are replaced where a rule moves them; imports of the
targets are added once (libcst's AddImportsVisitor) and old imports removed only when nothing
left in the file uses them (RemoveImportsVisitor). Everything else prints back unchanged."""

from __future__ import annotations

from typing import TypeVar

import libcst as cst
from libcst.codemod import CodemodContext, ContextAwareTransformer
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor
from libcst.metadata import ParentNodeProvider, PositionProvider, QualifiedNameProvider

from summarylib.migrate import objects, scopes, tf1_v2
from summarylib.migrate.decisions import Decision, Leave, Move, RewriteCall
from summarylib.migrate.names import import_qualified_name, is_dotted, source
from summarylib.migrate.report import Change, FileReport, Left
from summarylib.migrate.rules import Rules

_Loop = TypeVar("_Loop", cst.For, cst.While)


def _dotted(name: str) -> cst.Attribute | cst.Name:
    """The node of a dotted module name (`summarylib.compat.v1`), as an import names it."""
    head, *rest = name.split(".")
    node: cst.Attribute | cst.Name = cst.Name(head)
    for part in rest:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


class Migrator(ContextAwareTransformer):
    """Rewrites the summary-writing references of one module by `rules`, into `report`."""

    METADATA_DEPENDENCIES = (QualifiedNameProvider, PositionProvider, ParentNodeProvider)

    def __init__(self, context: CodemodContext, rules: Rules, report: FileReport) -> None:
        super().__init__(context)
        self.rules = rules
        self.report = report
        self._pending: list[cst.ImportFrom] = []  # imports to add after the current statement
        self._scopes: list[str | None] = []  # the tf.name_scope names around (None: not literal)
        self._opened: list[int] = []  # how many scopes each enclosing `with` opened

    def _line(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    def _qualified(self, node: cst.CSTNode) -> str | None:
        if not is_dotted(node):
            return None
        return import_qualified_name(self, node)

    def _is_inner(self, node: cst.CSTNode) -> bool:
        """Whether `node` is part of a larger reference (`tf` or `tf.summary` in `tf.summary.x`,
        the attribute name itself) or the function of a call (handled at the call)."""
        parent = self.get_metadata(ParentNodeProvider, node, None)
        if isinstance(parent, cst.Attribute):
            return True
        return isinstance(parent, cst.Call) and parent.func is node

    def _leave(self, node: cst.CSTNode, reason: str) -> None:
        self.report.left.append(Left(self.report.where(str(self._line(node))), source(node), reason))

    def _move(self, original: cst.CSTNode, move: Move) -> cst.BaseExpression:
        AddImportsVisitor.add_needed_import(self.context, move.module)
        RemoveImportsVisitor.remove_unused_import_by_node(self.context, original)
        where = self.report.where(str(self._line(original)))
        self.report.changes.append(Change(where, source(original), move.target, move.note))
        if move.left:
            self.report.left.append(Left(where, move.target, move.left))
        return cst.parse_expression(move.target)

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        if self._is_inner(original):
            return updated
        return self._reference(original, updated)

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        if self._is_inner(original):
            return updated
        qualified = self._qualified(original)
        decision = None if qualified is None else self.rules.decide(qualified, self._line(original))
        if isinstance(decision, Leave):
            self._leave(original, decision.reason)
        return updated

    def _reference(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        qualified = self._qualified(original)
        if qualified is None:
            return updated
        decision = self.rules.decide(qualified, self._line(original))
        if isinstance(decision, Move):
            return self._move(original, decision)
        if isinstance(decision, Leave):
            self._leave(original, decision.reason)
        return updated

    def _variable_step(self, original: cst.Call, qualified: str | None, decision: Decision | None) -> None:
        """Lists a default step that is a TensorFlow variable where it moves to summarylib, or
        is there from an earlier run (`set_step(global_step)`, `writer.as_default(step=
        global_step)`): summarylib reads it once, TensorFlow at each op (objects.py)."""
        func = original.func
        moved = isinstance(decision, Move) and decision.target == "summarylib.set_step"
        if moved or qualified == "summarylib.set_step":
            value = next((arg.value for arg in original.args if arg.keyword is None), None)
        elif (
            isinstance(func, cst.Attribute) and func.attr.value == "as_default" and self.rules.moves_writer()
        ):
            value = next((a.value for a in original.args if a.keyword and a.keyword.value == "step"), None)
        else:
            return
        if value is None:
            return
        made_by = self._qualified(value.func) if isinstance(value, cst.Call) else None
        reason = objects.variable_step(value, made_by, self.rules.facts.tf_variables)
        if reason:
            self._leave(original, reason)

    def _summarylib_call(self, original: cst.Call, updated: cst.Call, qualified: str) -> cst.BaseExpression:
        """A call already on summarylib (an earlier run's output): listed again where it still
        needs a person (a variable default step, a tag under a name scope that is not a
        literal), so that every run reports it; `--to v2` decides on compat.v1's names."""
        self._variable_step(original, qualified, None)
        if self._scopes and qualified in scopes.SCOPED_OPS:
            unknown = scopes.with_prefix(updated, self._scopes)
            if isinstance(unknown, str):
                self._leave(original, unknown)
        decision = self.rules.decide(qualified, self._line(original), updated)
        if isinstance(decision, Leave):
            self._leave(original, decision.reason)
        return updated

    def visit_With(self, node: cst.With) -> None:
        opened = 0
        for item in node.items:
            call = item.item
            if isinstance(call, cst.Call) and self._qualified(call.func) in scopes.NAME_SCOPES:
                self._scopes.append(scopes.scope_name(call))
                opened += 1
        self._opened.append(opened)

    def leave_With(self, original: cst.With, updated: cst.With) -> cst.With:
        for _ in range(self._opened.pop()):
            self._scopes.pop()
        return updated

    def _scoped(self, original: cst.Call, call: cst.Call, move: Move) -> cst.Call:
        """A moved TF 2 op inside tf.name_scope, with the tag TF 2 wrote (scopes.py)."""
        if not self._scopes or move.target not in scopes.SCOPED_OPS:
            return call
        result = scopes.with_prefix(call, self._scopes)
        if isinstance(result, str):
            self._leave(original, result)
            return call
        new, note = result
        where = self.report.where(str(self._line(original)))
        self.report.changes.append(Change(where, source(original), source(new), note))
        return new

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        func = original.func
        if not isinstance(func, (cst.Attribute, cst.Name)):
            return updated
        if isinstance(func, cst.Attribute) and func.attr.value == "as_default":
            self._variable_step(original, None, None)
        if self.rules.dropped(original):
            RemoveImportsVisitor.remove_unused_import_by_node(self.context, original.func)
            return updated
        qualified = self._qualified(func)
        if qualified is None:
            return updated
        if qualified.startswith("summarylib."):
            return self._summarylib_call(original, updated, qualified)
        decision = self.rules.loop_call(original, updated) or self.rules.decide(
            qualified, self._line(original), updated
        )
        self._variable_step(original, qualified, decision)
        if isinstance(decision, RewriteCall):
            for module in decision.imports:
                AddImportsVisitor.add_needed_import(self.context, module)
            RemoveImportsVisitor.remove_unused_import_by_node(self.context, original.func)
            where = self.report.where(str(self._line(original)))
            self.report.changes.append(Change(where, source(original), source(decision.call), decision.note))
            return decision.call
        if isinstance(decision, Leave):
            self._leave(original, decision.reason)
        elif isinstance(decision, Move) and isinstance(func, cst.Attribute):
            return self._scoped(original, updated.with_changes(func=self._move(func, decision)), decision)
        elif isinstance(decision, Move):
            return self._scoped(original, updated, decision)
        return updated

    def leave_For(self, original: cst.For, updated: cst.For) -> cst.For:
        return self._loop(original, updated)

    def leave_While(self, original: cst.While, updated: cst.While) -> cst.While:
        return self._loop(original, updated)

    def _loop(self, original: _Loop, updated: _Loop) -> _Loop:
        """A loop body's `add_summary(merge_all(), step)` regions as `with writer.as_default(step=)`."""
        regions = self.rules.loop_regions(original)
        # Regions are only planned in indented loop bodies (tf1_loops).
        if not regions or not isinstance(updated.body, cst.IndentedBlock):
            return updated
        for region in regions:
            statement = original.body.body[region.end]
            where = self.report.where(str(self._line(statement)))
            after = f"with {source(region.writer)}.as_default(step={region.step.value}): around the ops above"
            self.report.changes.append(Change(where, source(statement), after, tf1_v2.LOOP_NOTE))
        return updated.with_changes(body=tf1_v2.rewrite_body(updated.body, regions))

    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom) -> cst.BaseSmallStatement:
        """Moves the from-imported names a rule moves to `from <target module> import <name>`,
        keeping the local name, so the code that uses them stays as it is; a name split off
        an import that keeps others goes onto a line of its own (leave_SimpleStatementLine)."""
        if original.relative or isinstance(original.names, cst.ImportStar) or original.module is None:
            return updated
        module = cst.helpers.get_full_name_for_node_or_raise(original.module)
        kept, moved = [], []
        for alias in original.names:
            name = cst.helpers.get_full_name_for_node_or_raise(alias.name)
            decision = self.rules.decide(f"{module}.{name}", self._line(original))
            if not isinstance(decision, Move):
                kept.append(alias)
                continue
            local = alias.evaluated_alias or name
            asname = None if local == decision.attr else cst.AsName(name=cst.Name(local))
            new = cst.ImportFrom(
                module=_dotted(decision.module),
                names=[cst.ImportAlias(name=cst.Name(decision.attr), asname=asname)],
            )
            moved.append(new)
            where = self.report.where(str(self._line(original)))
            self.report.changes.append(Change(where, f"{module}.{name}", decision.target, decision.note))
            if decision.left:
                self.report.left.append(Left(where, decision.target, decision.left))
        if not moved:
            return updated
        if not kept:
            first = moved[0].with_changes(
                whitespace_after_from=updated.whitespace_after_from,
                whitespace_before_import=updated.whitespace_before_import,
                whitespace_after_import=updated.whitespace_after_import,
            )
            self._pending.extend(moved[1:])
            return first
        last = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        self._pending.extend(moved)
        return updated.with_changes(names=[*kept[:-1], last])

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine | cst.FlattenSentinel:
        """The imports a split from-import adds, each on a line of its own after this one
        (one statement a line: never `...; from summarylib... import X` on an existing line)."""
        if not self._pending:
            return updated
        added = [cst.SimpleStatementLine(body=[statement]) for statement in self._pending]
        self._pending.clear()
        return cst.FlattenSentinel([updated, *added])

    def leave_SimpleStatementSuite(
        self, original: cst.SimpleStatementSuite, updated: cst.SimpleStatementSuite
    ) -> cst.SimpleStatementSuite:
        """In a one-line body (`if x: from a import b`), the added imports stay on that line,
        the only place they can go without changing the block's shape."""
        if not self._pending:
            return updated
        body = [*updated.body, *self._pending]
        self._pending.clear()
        return updated.with_changes(body=body)
