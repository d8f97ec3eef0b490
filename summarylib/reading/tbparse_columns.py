"""The DataFrame of one event file and one event type, as tbparse makes it before stacking.

tbparse's columns, in its order: `step` (no step for hparams), then `tag` and `value` (long
format) or one column per tag (`pivot`); histograms give `counts` and `limits` and, on
request, `max`, `min`, `num`, `sum`, `sum_squares`; images `height`, `width`; audio
`content_type`, `length_frames`, `sample_rate`; then `wall_time`, `dir_name` ('' here: the
directory walk prefixes it) and `file_name` when asked for. A pivoted column is named by the
tag (`tag/field` for histogram, image and audio fields). Rows are grouped by tag in the order
of each tag's first value, each tag's in file order. Values are built as tbparse builds them
(Python lists where pandas infers the column's dtype from them), so dtypes are its dtypes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from summarylib.reading.tbparse_files import FileValues, KindValues
from summarylib.reading.tbparse_media import decode_image, decode_wav, session_hparams
from summarylib.reading.tensors import tensor_array

TEXT_SUFFIX = "/text_summary"  # torch and tensorboardX name a text tag `<tag>/text_summary`
SESSION_START_TAG = "_hparams_/session_start_info"
_LAST_COLUMNS = ("wall_time", "dir_name", "file_name")
_HISTOGRAM_FIELDS = ("counts", "limits", "max", "min", "num", "sum", "sum_squares")


def file_frame(
    values: FileValues | None, event_type: str, pivot: bool, extra_columns: set[str], file_name: str
) -> pd.DataFrame:
    """The frame of one file (None: a file that is no event file, which gives no rows)."""
    if event_type == "hparams":
        return _hparams_frame(values, pivot, extra_columns, file_name)
    if values is None:
        return _frame(None, [], {}, None, pivot, extra_columns, file_name)
    kv = values.kinds["tensors" if event_type == "text" else event_type]
    positions = _grouped(kv, _tags(kv, values, event_type))
    if not pivot:  # the order tbparse's stable sort by tag and step gives the file's rows
        positions = _sorted(kv, positions, event_type)
    fields = _FIELDS[event_type](kv, positions, extra_columns) if len(positions) else {}
    output_tags = kv.tags if event_type != "text" else [_text_tag(tag) for tag in kv.tags]
    names = np.array(output_tags, object)[kv.tag[positions]] if len(positions) else []
    return _frame(kv.step[positions], names, fields, kv.wall_time[positions], pivot, extra_columns, file_name)


def _tags(kv: KindValues, values: FileValues, event_type: str) -> list[str]:
    """The tags of an event type in the accumulator's order: a kind's own, less hparams' and
    text's for tensors; text's from its plugin's contents."""
    if event_type == "text":
        return list(values.contents.get("text", {}))
    if event_type == "tensors":
        others = set(values.contents.get("text", {})) | set(values.contents.get("hparams", {}))
        return [tag for tag in kv.tags if tag not in others]
    return kv.tags


def _grouped(kv: KindValues, tags: list[str]) -> np.ndarray:
    """Positions of the values of `tags`, grouped by tag in `tags` order, each in file order."""
    if not tags:
        return np.zeros(0, np.int64)
    rank = {tag: i for i, tag in enumerate(tags)}
    ranks = np.array([rank.get(tag, -1) for tag in kv.tags] + [-1], np.int64)[kv.tag]
    order = np.argsort(ranks, kind="stable")
    return order[ranks[order] >= 0]


def _sorted(kv: KindValues, positions: np.ndarray, event_type: str) -> np.ndarray:
    """`positions` stably sorted by tag (as output: text less its suffix) and step."""
    names = kv.tags if event_type != "text" else [_text_tag(tag) for tag in kv.tags]
    rank = np.zeros(len(names), np.int64)
    rank[sorted(range(len(names)), key=names.__getitem__)] = np.arange(len(names))
    return positions[np.lexsort((kv.step[positions], rank[kv.tag[positions]]))]


def _text_tag(tag: str) -> str:
    return tag[: -len(TEXT_SUFFIX)] if tag.endswith(TEXT_SUFFIX) else tag


def _scalar_fields(kv: KindValues, positions: np.ndarray, extra: set[str]) -> dict[str, Any]:
    number = kv.number[positions]
    if kv.protos:
        row_of = np.full(len(kv), -1, np.int64)
        row_of[positions] = np.arange(len(positions))
        for position, proto in kv.protos.items():
            if row_of[position] >= 0:
                number[row_of[position]] = proto.simple_value
    return {"value": number}


def _tensor_value(kv: KindValues, position: int) -> Any:
    """make_ndarray's array of a tensor value, a Python scalar when it has shape []."""
    proto = kv.protos.get(position)
    if proto is None:
        return float(kv.number[position])
    array = tensor_array(proto.tensor)
    return array.item() if array.shape == () else array


def _tensor_fields(kv: KindValues, positions: np.ndarray, extra: set[str]) -> dict[str, Any]:
    return {"value": [_tensor_value(kv, p) for p in positions.tolist()]}


def _text_fields(kv: KindValues, positions: np.ndarray, extra: set[str]) -> dict[str, Any]:
    texts = []
    for position in positions.tolist():
        proto = kv.protos.get(position)
        item = tensor_array(proto.tensor).item() if proto is not None else kv.number[position]
        if not isinstance(item, bytes):
            raise ValueError(f"text value of tag {kv.tags[kv.tag[position]]!r} is no string")
        texts.append(item.decode("utf-8"))
    return {"value": texts}


def _histogram_fields(kv: KindValues, positions: np.ndarray, extra: set[str]) -> dict[str, Any]:
    histos = [kv.protos[p].histo for p in positions.tolist()]
    getters: dict[str, Callable[[Any], Any]] = {
        "counts": lambda h: np.array(h.bucket, dtype=np.float64),
        "limits": lambda h: np.array(h.bucket_limit, dtype=np.float64),
        "max": lambda h: h.max,
        "min": lambda h: h.min,
        "num": lambda h: h.num,
        "sum": lambda h: h.sum,
        "sum_squares": lambda h: h.sum_squares,
    }
    wanted = [name for name in _HISTOGRAM_FIELDS if name in ("counts", "limits") or name in extra]
    return {name: [getters[name](h) for h in histos] for name in wanted}


def _image_fields(kv: KindValues, positions: np.ndarray, extra: set[str]) -> dict[str, Any]:
    images = [kv.protos[p].image for p in positions.tolist()]
    fields: dict[str, Any] = {"value": [decode_image(i.encoded_image_string) for i in images]}
    for name in ("height", "width"):
        if name in extra:
            fields[name] = [getattr(i, name) for i in images]
    return fields


def _audio_fields(kv: KindValues, positions: np.ndarray, extra: set[str]) -> dict[str, Any]:
    clips = [kv.protos[p].audio for p in positions.tolist()]
    fields: dict[str, Any] = {"value": [decode_wav(c.encoded_audio_string) for c in clips]}
    for name in ("content_type", "length_frames", "sample_rate"):
        if name in extra:
            fields[name] = [getattr(c, name) for c in clips]
    return fields


_FIELDS: dict[str, Callable[[KindValues, np.ndarray, set[str]], dict[str, Any]]] = {
    "scalars": _scalar_fields,
    "tensors": _tensor_fields,
    "text": _text_fields,
    "histograms": _histogram_fields,
    "images": _image_fields,
    "audio": _audio_fields,
}


def _defaults(length: int, extra: set[str], file_name: str) -> dict[str, Any]:
    """dir_name and file_name columns (lists when empty: pandas makes those float64, as tbparse's)."""
    columns: dict[str, Any] = {}
    for name, fill in (("dir_name", ""), ("file_name", file_name)):
        if name in extra:
            columns[name] = np.full(length, fill, object) if length else []
    return columns


def _frame(
    step: np.ndarray | None,
    names: Sequence[str],
    fields: dict[str, Any],
    wall: np.ndarray | None,
    pivot: bool,
    extra: set[str],
    file_name: str,
) -> pd.DataFrame:
    """tbparse's columns in its order (see the module's docstring); a file without values
    has only the extra columns, empty."""
    length = len(names)
    columns = _defaults(length, extra, file_name)
    if wall is not None and "wall_time" in extra:
        columns["wall_time"] = wall if length else []
    if length:
        if step is not None:
            columns["step"] = step
        if not pivot:
            columns["tag"] = np.array(names, object)
            columns.update(fields)
        else:
            _pivot_columns(columns, names, fields)
    for name in _LAST_COLUMNS:
        if name in columns:
            columns[name] = columns.pop(name)
    return pd.DataFrame.from_dict(columns)


def _pivot_columns(columns: dict[str, Any], names: Sequence[str], fields: dict[str, Any]) -> None:
    """A column per tag (and field): the tag's values at its rows, NaN elsewhere."""
    rows_of: dict[str, list[int]] = {}
    for row, name in enumerate(names):
        rows_of.setdefault(name, []).append(row)
    for name, rows in rows_of.items():
        for field_name, values in fields.items():
            column_name = name if field_name == "value" else f"{name}/{field_name}"
            if isinstance(values, np.ndarray):  # floats: NaN elsewhere keeps float64
                column = np.full(len(names), np.nan)
                column[rows] = values[rows]
                columns[column_name] = column
            else:
                filled: list[Any] = [np.nan] * len(names)
                for row in rows:
                    filled[row] = values[row]
                columns[column_name] = filled


def _hparams_frame(values: FileValues | None, pivot: bool, extra: set[str], file_name: str) -> pd.DataFrame:
    """One row per hparam of the file's first session_start_info (no step, no wall time)."""
    content = values.contents.get("hparams", {}).get(SESSION_START_TAG) if values is not None else None
    hparams = session_hparams(content) if content is not None else {}
    names = list(hparams)
    return _frame(None, names, {"value": list(hparams.values())}, None, pivot, extra, file_name)
