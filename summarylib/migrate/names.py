"""How the migration names a reference: the qualified name its import gives it, and whether it
is a plain dotted name. Shared by the facts, the rules' visitors and the transformer."""

from __future__ import annotations

from collections.abc import Collection

import libcst as cst
from libcst import MetadataDependent
from libcst.metadata import QualifiedName, QualifiedNameProvider, QualifiedNameSource

_NO_NAMES: Collection[QualifiedName] = frozenset()
_EMPTY = cst.Module(body=[])


def import_qualified_name(visitor: MetadataDependent, node: cst.CSTNode) -> str | None:
    """The one qualified name of `node` that comes from an import, if any (`visitor` declares
    QualifiedNameProvider among its metadata dependencies)."""
    names = visitor.get_metadata(QualifiedNameProvider, node, _NO_NAMES)
    found = sorted(name.name for name in names if name.source == QualifiedNameSource.IMPORT)
    return found[0] if found else None


def is_dotted(node: cst.CSTNode) -> bool:
    """Whether `node` is a plain dotted name (`tf.summary.scalar`), not an attribute of a call's
    result (`create_file_writer(d).as_default`, which libcst also names through the call)."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


def source(node: cst.CSTNode) -> str:
    """The source of `node` on one line (`self.global_step`), as the report and the facts
    compare it."""
    return " ".join(_EMPTY.code_for_node(node).split())
