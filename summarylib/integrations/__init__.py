"""Integrations with ML frameworks: `keras` (a TensorBoard callback and `Watch`), `torch`
(`watch`, `trace_graph`), `lightning` and `pytorch_lightning` (a TensorBoardLogger for each
Lightning package). Each is a subpackage that imports its framework itself, so this package
imports none: `summarylib.integrations.torch.watch(...)` after a plain `import summarylib`
imports the subpackage, and with it the framework, at first use.

Beside the subpackages: the views both model watches write (watch_views.py; watch_remote.py
and watch_worker.py make them in another process), the Lightning logger's body
(lightning_logger.py) and the flushes and closes a framework makes (implicit.py).

A surface, on top of the layers: it may import every layer below it, and compat.torch
(the Lightning logger's writer). Nothing below imports it; compat.torch's `add_graph`
imports integrations.torch's tracer when it is called.
"""

from __future__ import annotations

import importlib
from types import ModuleType

_SUBPACKAGES = ("keras", "torch", "lightning", "pytorch_lightning")


def __getattr__(name: str) -> ModuleType:
    if name in _SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
