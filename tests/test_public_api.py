"""The public surface, pinned: each module README.md and docs/ tell users to import, and the
names its `__all__` exports. Everything else is private: by an underscore, or by living in a
module users are not told to import. A change to the surface is a deliberate edit of the
lists below, made with the change it pins."""

from __future__ import annotations

import importlib
import inspect
import re
from importlib.util import find_spec
from pathlib import Path
from types import ModuleType

import pytest

DOCS_API = Path(__file__).resolve().parent.parent / "docs" / "api"

PUBLIC = {
    "summarylib": [
        "GraphDef",
        "NodeDef",
        "NoopSummaryWriter",
        "SummaryWriter",
        "WriterError",
        "WriterStats",
        "audio",
        "create_file_writer",
        "create_noop_writer",
        "custom_scalars",
        "distributed",
        "embedding",
        "flush",
        "get_step",
        "graph",
        "histogram",
        "hparams",
        "image",
        "mesh",
        "pr_curve",
        "record_if",
        "scalar",
        "set_step",
        "should_record_summaries",
        "text",
        "write",
        "write_raw_pb",
    ],
    "summarylib.hparams": [
        "Discrete",
        "Domain",
        "HParam",
        "IntInterval",
        "Metric",
        "RealInterval",
        "hparams",
        "hparams_config",
        "hparams_config_pb",
        "hparams_pb",
        "session_end",
        "session_end_pb",
    ],
    "summarylib.distributed": ["max", "mean", "sum"],
    "summarylib.tbparse": ["SummaryReader"],
    "summarylib.reader": [
        "Batch",
        "CHUNK_SIZE",
        "CORRUPT",
        "CorruptRecordError",
        "Problem",
        "ReadStatus",
        "Reader",
        "Records",
        "TRUNCATED",
        "Value",
        "ZERO_TAIL",
        "find_runs",
        "find_sources",
        "is_event_file",
        "iter_events",
        "iter_records",
        "iter_values",
        "load_table",
    ],
    "summarylib.decoding": [
        "Audio",
        "Images",
        "PR_CURVE_ROWS",
        "PrCurve",
        "decode_tensor",
        "decode_value",
        "legacy_histogram",
        "plugin_claim",
        "tensor_array",
        "tensor_problem",
        "value_problem",
    ],
    "summarylib.compat.v1": [
        "Event",
        "FileWriter",
        "FileWriterCache",
        "GraphKeys",
        "LazySummary",
        "LazySummaryError",
        "SessionLog",
        "Summary",
        "SummaryMetadata",
        "audio",
        "clear_collections",
        "histogram",
        "image",
        "merge",
        "merge_all",
        "scalar",
        "tensor_summary",
        "text",
    ],
    "summarylib.compat.contrib": [
        "GlobalStep",
        "all_summary_ops",
        "always_record_summaries",
        "audio",
        "create_file_writer",
        "create_summary_file_writer",
        "eval_dir",
        "flush",
        "generic",
        "get_global_step",
        "get_or_create_global_step",
        "histogram",
        "image",
        "never_record_summaries",
        "record_summaries_every_n_global_steps",
        "scalar",
        "should_record_summaries",
        "summary_writer_initializer_op",
    ],
    "summarylib.compat.torch": ["FileWriter", "SummaryWriter"],
    "summarylib.compat.tensorboardX": ["GlobalSummaryWriter", "SummaryWriter"],
    "summarylib.integrations.keras": ["TensorBoard", "Watch", "model_graph"],
    "summarylib.integrations.torch": ["trace_graph", "watch"],
    "summarylib.integrations.lightning": ["TensorBoardLogger"],
    "summarylib.integrations.pytorch_lightning": ["TensorBoardLogger"],
    "summarylib.inspect": [
        "Caveat",
        "FileReport",
        "Report",
        "RunReport",
        "TagReport",
        "inspect",
        "main",
        "render_json",
        "render_text",
    ],
    "summarylib.migrate": ["FileReport", "MigrationResult", "migrate_source"],
    "summarylib.demo": ["main", "write_demo_run"],
}

# The package a module (or, for star imports, a name it exports lazily) needs, beyond the core.
NEEDS = {
    "summarylib.integrations.keras": "keras",
    "summarylib.integrations.torch": "torch",
    "summarylib.integrations.lightning": "lightning",
    "summarylib.integrations.pytorch_lightning": "pytorch_lightning",
    "summarylib.migrate": "libcst",
}


def _public_module(name: str) -> ModuleType:
    needed = NEEDS.get(name)
    if needed and find_spec(needed) is None:
        pytest.skip(f"{name} needs {needed}, which is not installed")
    return importlib.import_module(name)


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_the_exported_names_are_the_pinned_ones(name):
    exported = _public_module(name).__all__
    assert sorted(exported) == PUBLIC[name], "a change to the public surface is a deliberate edit here"
    assert len(set(exported)) == len(exported), f"a name twice in {name}.__all__"


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_every_exported_name_exists_and_is_public_by_name(name):
    module = _public_module(name)
    assert [export for export in module.__all__ if export.startswith("_")] == []
    assert [export for export in module.__all__ if not hasattr(module, export)] == []


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_a_star_import_gives_exactly_the_exported_names(name):
    module = _public_module(name)
    namespace: dict[str, object] = {}
    exec(f"from {name} import *", namespace)
    namespace.pop("__builtins__")
    assert sorted(namespace) == sorted(module.__all__)


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_what_a_public_module_defines_is_exported_or_private_by_name(name):
    """A function or class a public module defines itself is either exported or named with an
    underscore, so that what `dir()` shows beside the exports is what the module imports."""
    module = _public_module(name)
    defined = [
        attribute
        for attribute, value in vars(module).items()
        if (inspect.isfunction(value) or inspect.isclass(value))
        and value.__module__ == name
        and not attribute.startswith("_")
    ]
    assert sorted(set(defined) - set(module.__all__)) == []


def test_the_api_reference_documents_every_public_module():
    documented = {
        match.group(1)
        for page in DOCS_API.glob("*.md")
        for match in re.finditer(r"^::: ([\w.]+)", page.read_text(encoding="utf-8"), re.MULTILINE)
    }
    assert sorted(set(PUBLIC) - documented) == []
