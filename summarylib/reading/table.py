"""Values as one table (run, tag, step, wall_time, value): a pandas DataFrame or numpy arrays.

Apart from the `Reader` because pandas is optional: this is where it is looked for and
imported, lazily, and where the columns of many batches are put together.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def make_table(pieces: list, run_names: list[str], tags: list[str], as_dataframe: bool | None) -> Any:
    """Columns run, tag, step, wall_time, value from (run id, rows, values) pieces."""
    run = np.concatenate(
        [np.full(len(rows), run_id, np.int32) for run_id, rows, _ in pieces] or [np.zeros(0, np.int32)]
    )
    tag, tags = _used_only(
        np.concatenate([rows.tag for _, rows, _ in pieces] or [np.zeros(0, np.int32)]), tags
    )
    step = np.concatenate([rows.step for _, rows, _ in pieces] or [np.zeros(0, np.int64)])
    wall_time = np.concatenate([rows.wall_time for _, rows, _ in pieces] or [np.zeros(0)])
    values = [column for _, _, column in pieces]
    value = np.concatenate(values) if values else np.zeros(0)
    if as_dataframe is None:
        as_dataframe = _pandas_installed()
    if as_dataframe:
        pandas = _import_pandas()
        return pandas.DataFrame(
            {
                "run": pandas.Categorical.from_codes(run, categories=run_names),
                "tag": pandas.Categorical.from_codes(tag, categories=tags),
                "step": step,
                "wall_time": wall_time,
                "value": value,
            }
        )
    return {
        "run": np.array(run_names, object)[run] if run_names else np.zeros(0, object),
        "tag": np.array(tags, object)[tag] if tags else np.zeros(0, object),
        "step": step,
        "wall_time": wall_time,
        "value": value,
    }


def _used_only(codes: np.ndarray, names: list[str]) -> tuple[np.ndarray, list[str]]:
    """Codes into `names` renumbered into the names that occur, and those names."""
    present = np.bincount(codes, minlength=len(names)) > 0
    renumbered = (np.cumsum(present) - 1).astype(np.int32)
    return renumbered[codes] if len(codes) else codes, [
        name for name, used in zip(names, present, strict=True) if used
    ]


def _pandas_installed() -> bool:
    try:
        import pandas  # noqa: F401
    except ImportError:
        return False
    return True


def _import_pandas() -> Any:
    try:
        import pandas
    except ImportError as error:
        raise ImportError("as_dataframe=True needs pandas: pip install pandas") from error
    return pandas
