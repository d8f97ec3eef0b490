"""Migrate TensorFlow, tf.contrib, torch, tensorboardX, Keras and Lightning summary code onto
summarylib, leaving it runnable: `python -m summarylib.migrate PATH ...`.

    from summarylib.migrate import migrate_source
    result = migrate_source(source, path="train.py", to="compat")
    result.source, result.report

Needs libcst (the `migrate` extra); nothing else in summarylib imports this package or libcst.
engine.py migrates one source text, asking rules.py, which asks each source API's module
(tf2.py, contrib.py, tf1.py, writers.py); cli.py is the command, over files.py (reading and
writing a file without harming it) and walk.py (which files a run looks at). A surface, on
top of the layers: it imports compat.contrib (the names it rewrites to) and pipe_output, and
looks the drop-in writers' methods up by name (surface.py).

The names are imported when first used, so that without libcst `python -m summarylib.migrate`
can still say which extra to install (__main__.py) instead of ending in a traceback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from summarylib.migrate.report import FileReport

if TYPE_CHECKING:
    from summarylib.migrate.engine import MigrationResult, migrate_source

__all__ = ["FileReport", "MigrationResult", "migrate_source"]

MISSING_LIBCST = (
    "summarylib.migrate needs libcst, which is not installed: from summarylib's clone, "
    "pip install -e '.[migrate]'"
)


def __getattr__(name: str) -> Any:
    """`migrate_source` and `MigrationResult`, imported (with libcst) on first use."""
    if name not in ("MigrationResult", "migrate_source"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        import libcst  # noqa: F401
    except ImportError:
        raise ImportError(MISSING_LIBCST, name="libcst") from None
    from summarylib.migrate import engine

    value = getattr(engine, name)
    globals()[name] = value
    return value
