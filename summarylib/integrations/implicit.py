"""Flushes and closes that a framework makes, not the user: never raised into its loop.

Keras calls a callback's `on_train_end`, Lightning a logger's `finalize` and `save`; a
`WriterError` raised there (the disk filled up during training) would end `model.fit`
or `trainer.fit` after training finished, losing its `History` and the code after it (and
so would an `OSError` from the `hparams.yaml` Lightning's logger writes in `save`).
These follow the rule of leaving `as_default()`: the failure is logged as a warning and
stays counted in the writer's `stats()`; a flush or close the user calls still raises.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from summarylib.writer.engine import WriterError

log = logging.getLogger("summarylib")


def settle_quietly(action: Callable[[], None], caller: str, what: str) -> None:
    """Run `action` (a writer's flush or close, or a small file's write, that `caller`, a
    framework's hook, makes implicitly), logging a `WriterError` or `OSError` as a
    warning instead of raising it."""
    try:
        action()
    except (WriterError, OSError) as error:
        log.warning(
            "%s: %s failed: %s (not raised into the framework's loop; writer.stats() counts write failures)",
            caller,
            what,
            error,
        )
