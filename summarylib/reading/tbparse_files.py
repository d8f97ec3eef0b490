"""The values of event files as TensorBoard's `EventAccumulator` files them, for the
tbparse-compatible reader (summarylib.tbparse): one `FileValues` per event file.

tbparse reads each event file with its own legacy `EventAccumulator`, which files a value by
its field, not by its plugin: `simple_value` under scalars, `histo` under histograms, `image`
under images, `audio` under audio and every `tensor` (TensorFlow 2's scalars, histograms and
images included) under tensors; tags in order of their first value of that kind; and each
tag's plugin content from its first metadata in the file. Here the same is made from
summarylib's `Reader`: scalar events read at the byte level keep their number, the others
their `Summary.Value`, so nothing is decoded before a DataFrame asks for it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from summarylib.format.storage import StorageOptions, is_url, local_path
from summarylib.proto import summary_pb2
from summarylib.reading.follow import Reader
from summarylib.reading.rows import Rows

# The accumulator's kind of each `Summary.Value` field.
KIND_OF_FIELD = {
    "simple_value": "scalars",
    "tensor": "tensors",
    "histo": "histograms",
    "image": "images",
    "audio": "audio",
}
KINDS = tuple(KIND_OF_FIELD.values())


@dataclass
class KindValues:
    """The values of one kind of one file, in file order.

    `tags` in order of their first value (the accumulator's order); per value its tag (an
    index into `tags`), step and wall time, its number where it was read at the byte level
    (a float32/float64 scalar), and otherwise its `Summary.Value` in `protos`, by position.
    """

    tags: list[str]
    tag: np.ndarray
    step: np.ndarray
    wall_time: np.ndarray
    number: np.ndarray
    protos: dict[int, summary_pb2.Summary.Value]

    def __len__(self) -> int:
        return len(self.tag)


@dataclass
class FileValues:
    """What the accumulator of one event file holds: values by kind, and per plugin
    {tag: content} from each tag's first metadata that names a plugin."""

    kinds: dict[str, KindValues]
    contents: dict[str, dict[str, bytes]] = field(default_factory=dict)


def key(path: str) -> str:
    """The one spelling of a path that the reader and the directory walk share: a local
    path made absolute, a URL as it is."""
    return path if is_url(path) else os.path.normcase(os.path.abspath(local_path(path)))


class _FilesReader(Reader):
    """A Reader of the given event files, each its own run (as tbparse reads each file with
    its own accumulator): remote ones requested ahead across the files, not file by file."""

    def __init__(self, files: list[str], options: StorageOptions) -> None:
        super().__init__(files[0], tolerant=True, storage_options=options)
        self._files = {file: [file] for file in files}

    def runs(self) -> dict[str, list[str]]:
        return self._files


def read_files(path: str | list[str], storage_options: StorageOptions = None) -> dict[str, FileValues]:
    """{key(file): FileValues} of every event file at `path` (an event file or a directory,
    searched as TensorBoard finds runs), or of a list of event files. Damaged records are
    skipped (`tolerant`). `storage_options`: for a URL's filesystem."""
    if isinstance(path, list):
        if not path:
            return {}
        reader: Reader = _FilesReader(path, storage_options)
    else:
        reader = Reader(path, tolerant=True, storage_options=storage_options)
    pieces: dict[str, list[Rows]] = {}
    for batch in reader.batches(keep_events=True):
        pieces.setdefault(key(batch.path), []).append(batch.rows)
        batch.commit()
    tags = reader.names.tags
    return {path: _file_values(rows, tags) for path, rows in pieces.items()}


def _file_values(pieces: list[Rows], tag_names: list[str]) -> FileValues:
    kind_codes: list[np.ndarray] = []
    columns: dict[str, list[np.ndarray]] = {"tag": [], "step": [], "wall_time": [], "number": []}
    protos: dict[int, summary_pb2.Summary.Value] = {}  # by position in the file's values
    start = 0
    contents: dict[str, dict[str, bytes]] = {}
    claimed: set[str] = set()
    for rows in pieces:
        kind_codes.append(_kinds(rows))
        for name in columns:
            columns[name].append(getattr(rows, name))
        protos.update((start + position, value) for position, value in rows.protos.items())
        start += len(rows)
        _first_contents(rows, contents, claimed)
    kind = np.concatenate(kind_codes) if kind_codes else np.zeros(0, np.int64)
    joined = {name: np.concatenate(parts) if parts else np.zeros(0) for name, parts in columns.items()}
    kinds = {}
    for code, name in enumerate(KINDS):
        positions = np.flatnonzero(kind == code)
        kinds[name] = _kind_values(positions, joined, protos, tag_names)
    return FileValues(kinds, contents)


def _kinds(rows: Rows) -> np.ndarray:
    """The accumulator kind of each row, as its index in KINDS."""
    codes = {field: KINDS.index(kind) for field, kind in KIND_OF_FIELD.items()}
    by_shape = np.array([codes[shape.kind] for shape in rows.shapes] + [-1], np.int64)
    kinds = by_shape[rows.shape]  # -1: the -1 at the end, filled below
    for position, value in rows.protos.items():
        kinds[position] = codes.get(value.WhichOneof("value") or "", -1)
    return kinds


def _first_contents(
    rows: Rows,
    contents: dict[str, dict[str, bytes]],
    claimed: set[str],
) -> None:
    """Add each tag's first metadata in these rows (values of metadata alone included) to
    `contents` by its plugin, when it names one, unless the tag had metadata earlier
    (`claimed`). Scalars read at the byte level carry metadata only as a tensor of a named
    plugin; their content is irrelevant to the reader (the scalars plugin's)."""
    tensor_claims = [i for i, shape in enumerate(rows.shapes) if shape.kind == "tensor" and shape.claim]
    first_of_shape: dict[int, int] = {}
    for position in np.flatnonzero(np.isin(rows.shape, tensor_claims)).tolist():
        first_of_shape.setdefault(int(rows.shape[position]), position)
    candidates: list[tuple[int, str, str, bytes]] = []  # (offset, tag, plugin, content)
    for position in first_of_shape.values():
        shape = rows.shapes[int(rows.shape[position])]
        candidates.append((int(rows.offset[position]), shape.tag, shape.claim or "", b""))
    data = [(int(rows.offset[p]), value) for p, value in rows.protos.items()]
    for offset, value in data + rows.bare:
        if value.HasField("metadata"):
            plugin_data = value.metadata.plugin_data
            candidates.append((offset, value.tag, plugin_data.plugin_name, plugin_data.content))
    for _, tag, plugin, content in sorted(candidates, key=lambda candidate: candidate[0]):
        if tag not in claimed:
            claimed.add(tag)
            if plugin:
                contents.setdefault(plugin, {})[tag] = content


def _kind_values(
    positions: np.ndarray,
    columns: dict[str, np.ndarray],
    protos: dict[int, summary_pb2.Summary.Value],
    tag_names: list[str],
) -> KindValues:
    """The values at `positions` with their tags renumbered in order of first appearance."""
    tag_ids = columns["tag"][positions].astype(np.int64)
    unique, first = np.unique(tag_ids, return_index=True)
    order = np.argsort(first, kind="stable")
    renumber = np.zeros(int(unique.max()) + 1 if len(unique) else 0, np.int64)
    renumber[unique[order]] = np.arange(len(unique))
    return KindValues(
        tags=[tag_names[i] for i in unique[order].tolist()],
        tag=renumber[tag_ids],
        step=columns["step"][positions].astype(np.int64),
        wall_time=columns["wall_time"][positions].astype(np.float64),
        number=columns["number"][positions].astype(np.float64),
        protos=_taken(protos, positions),
    )


def _taken(protos: dict[int, summary_pb2.Summary.Value], positions: np.ndarray) -> dict[int, Any]:
    """The protos of the values at `positions` (sorted), by their position among those."""
    if not protos or not len(positions):
        return {}
    at = np.array(sorted(protos), np.int64)
    found = np.searchsorted(positions, at)
    inside = (found < len(positions)) & (positions[np.minimum(found, len(positions) - 1)] == at)
    return {new: protos[old] for old, new in zip(at[inside].tolist(), found[inside].tolist(), strict=True)}
