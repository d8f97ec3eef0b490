"""Putting tbparse's frames together, level by level of the directory walk, as tbparse does.

At each level (an event file, then each directory up to the one read) the frames below are
concatenated, an empty result becomes `pd.DataFrame()`, the rows are sorted by `dir_name`,
`file_name` (when asked for), `tag` (long format) and `step`, and a pivoted frame merges the
rows of one step (and directory and file): per column, one value stays itself, several
become a list (lists met on the way are flattened, NaN left out), none NaN. Its columns are
then `step`, the tag columns sorted by name, `wall_time`, `dir_name`, `file_name`. The same
pandas operations in the same order give the same rows, dtypes and index, ties included.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

_OUTER_COLUMNS = ("step", "wall_time", "dir_name", "file_name")


def merge_values(column: pd.Series) -> Any:
    """The values of one column in one group, merged (see the module's docstring)."""
    try:
        if len(column) == 1:
            return column.iloc[0]
        merged: list[Any] = []
        for item in column:
            if isinstance(item, list):
                merged.extend(item)
            elif not np.isscalar(item) or not pd.isnull(item):
                merged.append(item)
    except Exception as error:  # pandas would swallow some errors of an aggregation
        raise ValueError from error
    if not merged:
        return np.nan
    return merged[0] if len(merged) == 1 else merged


def prefixed(frame: pd.DataFrame, directory: str) -> pd.DataFrame:
    """A child directory's frame with its name put before each `dir_name`."""
    if "dir_name" in frame:
        names = frame["dir_name"]
        frame["dir_name"] = (directory + "/" + names).where(names != "", directory)
    return frame


def stack(frames: list[pd.DataFrame], pivot: bool, extra_columns: set[str]) -> pd.DataFrame:
    """One level's frame from the frames below it (see the module's docstring). In long format
    a level whose rows all come from one frame below, which is sorted (a file's frame is made
    sorted; a level's result is), keeps their order: a stable sort would too."""
    if not frames:
        return pd.DataFrame()
    stacked = pd.concat(frames, ignore_index=True)
    if stacked.empty:
        return pd.DataFrame()
    keys: list[Any] = [name for name in ("dir_name", "file_name") if name in extra_columns]
    keys += ["step"] if pivot else ["tag", "step"]
    keys = [name for name in keys if name in stacked.columns]
    if not pivot:
        if sum(len(frame) > 0 for frame in frames) > 1:
            stacked = stacked.sort_values(keys, ignore_index=True)
        return stacked
    stacked = stacked.sort_values(keys, ignore_index=True)
    return _merged(stacked, keys)


def _first(grouped: Any, columns: list[str], counts: pd.DataFrame) -> pd.DataFrame:
    """Each group's one value of `columns`, as merging gives it: NaN where it has none
    (`first` gives None there in an object column), and an object column's dtype inferred
    from its values (an aggregation's is)."""
    first = grouped[columns].first()
    for name in columns:
        empty = counts[name].to_numpy() == 0
        if empty.any():
            first[name] = first[name].where(~empty, np.nan)
        if first[name].dtype == object:
            first[name] = first[name].infer_objects()
    return first


def _merged(stacked: pd.DataFrame, keys: list[Any]) -> pd.DataFrame:
    """The rows of each group of `keys` merged (see `merge_values`), in tbparse's column order.

    A column with at most one value (not NaN) in every group merges to that value, or NaN:
    it is taken with `first`, at numpy's speed; the others are merged value by value."""
    grouped = stacked.groupby(keys or [True] * len(stacked), sort=False)
    values = [name for name in stacked.columns if name not in keys]
    counts = grouped[values].count()
    single = [name for name in values if (counts[name] <= 1).all()]
    several = [name for name in values if name not in single]
    parts = [_first(grouped, single, counts)] if single else []
    if several:
        parts.append(grouped[several].aggregate(merge_values))
    merged = pd.concat(parts, axis=1) if len(parts) > 1 else parts[0] if parts else grouped.size().to_frame()
    merged = merged.reset_index()
    middle = sorted(name for name in stacked.columns if name not in _OUTER_COLUMNS)
    order = ["step", *middle, "wall_time", "dir_name", "file_name"]
    return merged[[name for name in order if name in stacked.columns]]
