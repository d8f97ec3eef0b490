"""Migrate TensorFlow, tf.contrib, torch, tensorboardX, Keras and Lightning summary code onto
summarylib, leaving it runnable: `python -m summarylib.migrate PATH ...`.

    from summarylib.migrate import migrate_source
    result = migrate_source(source, path="train.py", to="compat")
    result.source, result.report

Needs libcst (the `migrate` extra); nothing else in summarylib imports this package.
"""

try:
    import libcst  # noqa: F401
except ImportError:  # pragma: no cover - depends on the environment
    raise ImportError("summarylib.migrate needs libcst: pip install 'summarylib[migrate]'") from None

from summarylib.migrate.engine import MigrationResult, migrate_source
from summarylib.migrate.report import FileReport

__all__ = ["FileReport", "MigrationResult", "migrate_source"]
