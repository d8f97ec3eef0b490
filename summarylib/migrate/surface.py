"""After a torch/tensorboardX writer moves to summarylib's drop-in: the methods and keyword
arguments the file calls on its writers, checked against the drop-in class itself, so a call
the drop-in lacks (or only raises NotImplementedError for) is listed instead of failing at run
time. Writers are the names and `self.` attributes bound to the class by `=` or `with ... as`."""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
from collections.abc import Callable
from functools import lru_cache

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider, QualifiedNameProvider

from summarylib.migrate.names import import_qualified_name
from summarylib.migrate.report import FileReport, Left
from summarylib.migrate.writers import DROP_IN_WRITERS

_EMPTY = cst.Module(body=[])


@lru_cache(maxsize=8)
def _drop_in(target: str) -> type:
    """The drop-in class named `target` (`summarylib.compat.torch.SummaryWriter`)."""
    module, _, name = target.rpartition(".")
    return getattr(importlib.import_module(module), name)


@lru_cache(maxsize=256)
def _lacks(target: str, method: str, keywords: tuple[str, ...]) -> str:
    """Why the drop-in cannot take `method(**keywords)`, or ""."""
    function = getattr(_drop_in(target), method, None)
    if not callable(function):
        return f"{target} has no method {method}"
    if _only_raises_not_implemented(function):
        return f"{target}.{method} is not supported (it raises NotImplementedError)"
    parameters = inspect.signature(function).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return ""
    unknown = [keyword for keyword in keywords if keyword not in parameters]
    return f"{target}.{method} has no argument {', '.join(unknown)}" if unknown else ""


def _only_raises_not_implemented(function: Callable[..., object]) -> bool:
    """Whether `function`'s body (past its docstring) is one `raise NotImplementedError(...)`."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return False
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.FunctionDef) else []
    body = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return False
    exc = body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc
    return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"


Call = tuple[int, str, str, str, tuple[str, ...]]  # line, code, receiver or class, method, keywords


class _Writers(cst.CSTVisitor):
    """Collects the writers the module binds and the calls that may be made on them."""

    METADATA_DEPENDENCIES = (QualifiedNameProvider, PositionProvider)

    def __init__(self) -> None:
        super().__init__()
        self.bound: dict[str, str] = {}  # code of the bound name -> drop-in class
        self.constructors: list[Call] = []
        self.methods: list[Call] = []

    def _class_of(self, value: cst.BaseExpression | None) -> str | None:
        if not isinstance(value, cst.Call):
            return None
        target = import_qualified_name(self, value.func)
        return target if target in DROP_IN_WRITERS else None

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        drop_in = self._class_of(value)
        if drop_in is not None and isinstance(target, (cst.Name, cst.Attribute)):
            self.bound[_EMPTY.code_for_node(target)] = drop_in

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._bind(node.target, node.value)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._bind(node.asname.name, node.item)

    def visit_Call(self, node: cst.Call) -> None:
        line = self.get_metadata(PositionProvider, node).start.line
        code = " ".join(_EMPTY.code_for_node(node).split())
        keywords = tuple(arg.keyword.value for arg in node.args if arg.keyword is not None)
        drop_in = self._class_of(node)
        if drop_in is not None:
            self.constructors.append((line, code, drop_in, "__init__", keywords))
        elif isinstance(node.func, cst.Attribute) and not node.func.attr.value.startswith("_"):
            receiver = _EMPTY.code_for_node(node.func.value)
            self.methods.append((line, code, receiver, node.func.attr.value, keywords))


def check(module: cst.Module, report: FileReport) -> None:
    """List in `report` each call on a moved writer that its drop-in class cannot take."""
    visitor = _Writers()
    MetadataWrapper(module).visit(visitor)
    methods = [
        (line, code, visitor.bound[receiver], method, keywords)
        for line, code, receiver, method, keywords in visitor.methods
        if receiver in visitor.bound
    ]
    for line, code, drop_in, method, keywords in visitor.constructors + methods:
        reason = _lacks(drop_in, method, keywords)
        if reason:
            report.left.append(Left(report.where(str(line)), code, reason))
