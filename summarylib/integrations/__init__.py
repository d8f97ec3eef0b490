"""Integrations with ML frameworks: `keras` (a TensorBoard callback and `Watch`), `torch`
(`watch`, `trace_graph`), `lightning` and `pytorch_lightning` (a TensorBoardLogger for each
Lightning package). Each is a subpackage that imports its framework itself, so this package
imports none: `summarylib.integrations.torch.watch(...)` after a plain `import summarylib`
imports the subpackage, and with it the framework, at first use.

May import: every other summarylib package (integrations sit on top of the ops, the writer
and compat.torch); nothing in summarylib imports it except this lazy attribute access.
"""

from __future__ import annotations

import importlib
from types import ModuleType

_SUBPACKAGES = ("keras", "torch", "lightning", "pytorch_lightning")


def __getattr__(name: str) -> ModuleType:
    if name in _SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
