"""What importing summarylib costs a user who does not use a framework: none of torch,
keras, jax, tensorflow, tensorboard, matplotlib or libcst is imported until an op or an
integration that needs it runs (each of them takes seconds to import)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

FRAMEWORKS = (
    "torch",
    "keras",
    "jax",
    "tensorflow",
    "tensorboard",
    "matplotlib",
    "libcst",
    "summarylib.migrate",
)

# Modules a user imports without asking for a framework, and those that wrap one lazily.
MODULES = (
    "summarylib",
    "summarylib.reader",
    "summarylib.hparams",
    "summarylib.distributed",
    "summarylib.integrations.watch_worker",
    "summarylib.integrations.watch_remote",
    "summarylib.ops.graph.encoding",
    "summarylib.ops.graph",
    "summarylib.compat.torch",
    "summarylib.compat.tensorboardX",
    "summarylib.integrations.keras.weights",
    "summarylib.integrations.watch_views",
)


@pytest.mark.slow
def test_importing_summarylib_imports_no_framework():
    code = (
        "import importlib, json, sys\n"
        f"frameworks, found = {FRAMEWORKS!r}, {{}}\n"
        f"for module in {MODULES!r}:\n"
        "    importlib.import_module(module)\n"
        "    found[module] = sorted(name for name in frameworks if name in sys.modules)\n"
        "print(json.dumps(found))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(result.stdout) == {module: [] for module in MODULES}
