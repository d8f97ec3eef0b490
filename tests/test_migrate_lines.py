"""One statement a line after migration: an import that a move splits (a Keras script's
`from tensorflow.keras.callbacks import EarlyStopping, TensorBoard`) puts the moved name
on a line of its own, never after code on an existing line."""

from __future__ import annotations

import pytest

pytest.importorskip("libcst")

from summarylib.migrate import migrate_source


def test_a_split_from_import_puts_the_moved_name_on_its_own_line() -> None:
    source = (
        "from tensorflow.keras.callbacks import EarlyStopping, TensorBoard  # callbacks\n"
        'tb = TensorBoard(log_dir="logs")\n'
        "es = EarlyStopping()\n"
    )
    assert migrate_source(source).source == (
        "from tensorflow.keras.callbacks import EarlyStopping  # callbacks\n"
        "from summarylib.integrations.keras import TensorBoard\n"
        'tb = TensorBoard(log_dir="logs")\n'
        "es = EarlyStopping()\n"
    )
