"""Removing the imports a move made unused: libcst's RemoveImportsVisitor, which leaves the
`; ` of a statement that shared a line with a removed last import (`import sys; import
tensorflow as tf` became `import sys; `), and the imports it keeps: `import
torch.utils.tensorboard` beside `import torch`, whose name `torch` is still used, although
nothing left in the file needs the submodule."""

from __future__ import annotations

import libcst as cst
from libcst.codemod.visitors import RemoveImportsVisitor
from libcst.metadata import MetadataWrapper, QualifiedNameProvider

from summarylib.migrate.names import import_qualified_name

SUBMODULES = ("torch.utils.tensorboard", "torch.utils.tensorboard.writer")


def _without_dangling_semicolon(
    original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
) -> cst.SimpleStatementLine:
    """`updated` without the `;` its last statement kept when the statement after it on the
    line (an import) was removed; a `;` the line ended with before stays."""
    if len(updated.body) == len(original.body) or not updated.body:
        return updated
    if isinstance(original.body[-1].semicolon, cst.Semicolon):
        return updated
    last = updated.body[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
    return updated.with_changes(body=[*updated.body[:-1], last])


class RemoveUnusedImports(RemoveImportsVisitor):
    """libcst's RemoveImportsVisitor, leaving no `; ` behind a removed import."""

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine:
        return _without_dangling_semicolon(original, updated)


class _Uses(cst.CSTVisitor):
    """The qualified names the module refers to, and the top-level names `import X` binds."""

    METADATA_DEPENDENCIES = (QualifiedNameProvider,)

    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()
        self.plain: set[str] = set()

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            name = cst.helpers.get_full_name_for_node_or_raise(alias.name)
            if alias.asname is None and "." not in name:
                self.plain.add(name)
        return False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        name = import_qualified_name(self, node)
        if name is not None:
            self.names.add(name)


class _Drop(cst.CSTTransformer):
    def __init__(self, unused: set[str]) -> None:
        super().__init__()
        self.unused = unused

    def leave_Import(self, original: cst.Import, updated: cst.Import) -> cst.Import | cst.RemovalSentinel:
        kept = [a for a in updated.names if cst.helpers.get_full_name_for_node(a.name) not in self.unused]
        if not kept:
            return cst.RemoveFromParent()
        return updated.with_changes(
            names=[*kept[:-1], kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
        )

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine:
        return _without_dangling_semicolon(original, updated)


def remove_unused_submodules(module: cst.Module) -> cst.Module:
    """`module` without `import torch.utils.tensorboard` when nothing uses the submodule any
    more and a plain `import torch` still binds `torch`."""
    uses = _Uses()
    MetadataWrapper(module).visit(uses)
    unused = {
        submodule
        for submodule in SUBMODULES
        if submodule.split(".")[0] in uses.plain
        and not any(name.startswith(f"{submodule}.") for name in uses.names)
    }
    return module.visit(_Drop(unused)) if unused else module
