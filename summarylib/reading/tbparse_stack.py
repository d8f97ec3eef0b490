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
    """A child directory's frame (a level's result, sorted by `dir_name` first) with its name
    put before each `dir_name`."""
    if "dir_name" in frame and len(frame):
        names = frame["dir_name"]
        if names.iloc[-1] == "":  # all empty ("" sorts first): a run's files, the usual case
            frame["dir_name"] = pd.Series(directory, index=frame.index, dtype=names.dtype)
        else:
            frame["dir_name"] = (directory + "/" + names).where(names != "", directory)
    return frame


def stack(
    frames: list[pd.DataFrame], pivot: bool, extra_columns: set[str], sorted_below: bool = False
) -> pd.DataFrame:
    """One level's frame from the frames below it (see the module's docstring). In long format
    a level whose rows all come from one frame below, which is sorted (a file's frame is made
    sorted, but for hparams, which tbparse keeps in the file's order; a level's result is),
    keeps their order: a stable sort would too. So do frames that are each sorted by the keys
    (`sorted_below`) and follow one another in key order, as the runs of a sweep do: the sort
    is left out, not its result."""
    if not frames:
        return pd.DataFrame()
    stacked = pd.concat(frames, ignore_index=True)
    if stacked.empty:
        return pd.DataFrame()
    keys: list[Any] = [name for name in ("dir_name", "file_name") if name in extra_columns]
    keys += ["step"] if pivot else ["tag", "step"]
    keys = [name for name in keys if name in stacked.columns]
    in_order = sorted_below and _one_after_another(frames, keys)
    if not pivot:
        if sum(len(frame) > 0 for frame in frames) > 1 and not in_order:
            stacked = stacked.sort_values(keys, ignore_index=True)
        return stacked
    if not in_order:
        stacked = stacked.sort_values(keys, ignore_index=True)
    return _merged(stacked, keys)


def _one_after_another(frames: list[pd.DataFrame], keys: list[Any]) -> bool:
    """Whether frames, each sorted by `keys`, are in key order one after another: the first
    key (a directory or file name) of each frame's first row above the last of the frame
    before, so no row of one sorts among another's."""
    if not keys or keys[0] not in ("dir_name", "file_name"):
        return False  # tags and steps interleave across frames
    previous = None
    for frame in frames:
        if not len(frame):
            continue
        low, high = frame[keys[0]].iloc[0], frame[keys[0]].iloc[-1]
        if not isinstance(low, str) or not isinstance(high, str):
            return False
        if previous is not None and previous >= low:
            return False
        previous = high
    return True


def _first(grouped: Any, columns: list[str], counts: pd.DataFrame) -> pd.DataFrame:
    """Each group's one value of `columns`, as merging gives it: where it has none, a group
    of one row keeps its missing value as it is (np.float64's NaN stays one) and a bigger
    group gets NaN (`first` gives None there in an object column); and an object column's
    dtype inferred from its values (an aggregation's is)."""
    first = grouped[columns].first()
    sizes = grouped.size().to_numpy()
    for name in columns:
        empty = counts[name].to_numpy() == 0
        if empty.any():
            first[name] = first[name].where(~empty, np.nan)
            alone = empty & (sizes == 1)
            if alone.any() and first[name].dtype == object:
                # Groups come in order of their first row (sort=False), as their first rows do.
                own = grouped[name].head(1).to_numpy()
                first.loc[alone, name] = pd.Series(own[alone], index=first.index[alone], dtype=object)
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
