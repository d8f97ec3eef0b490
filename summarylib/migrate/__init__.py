"""Migrate TensorFlow, tf.contrib, torch, tensorboardX, Keras and Lightning summary code onto
summarylib, leaving it runnable: `python -m summarylib.migrate PATH ...`.

    from summarylib.migrate import migrate_source
    result = migrate_source(source, path="train.py", to="compat")
    result.source, result.report

Needs libcst (the `migrate` extra); nothing else in summarylib imports this package or libcst.
engine.py migrates one source text, asking rules.py, which asks each source API's module
(tf2.py, contrib.py, tf1.py, writers.py); cli.py is the command. A surface, on top of the
layers: it imports compat.contrib (the names it rewrites to) and pipe_output, and looks the
drop-in writers' methods up by name (surface.py).
"""

try:
    import libcst  # noqa: F401
except ImportError:  # pragma: no cover - depends on the environment
    raise ImportError("summarylib.migrate needs libcst: pip install 'summarylib[migrate]'") from None

from summarylib.migrate.engine import MigrationResult, migrate_source
from summarylib.migrate.report import FileReport

__all__ = ["FileReport", "MigrationResult", "migrate_source"]
