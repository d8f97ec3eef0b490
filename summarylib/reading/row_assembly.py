"""`decode_records`: the records of a stretch of a file as `Rows`, the reader's hot path.

Scalar events found at the byte level (scalar_matching) and the other records, parsed with
protobuf, become parts; tags get their plugins from the first metadata that claims one, in
file order, as in TensorBoard; the parts are put back in file order and filtered by plugin.
Both paths give the same values.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from google.protobuf.message import DecodeError

from summarylib.proto import event_pb2, summary_pb2
from summarylib.reading.plugins import DATA_KINDS, plugin_claim
from summarylib.reading.records import Records
from summarylib.reading.rows import Filters, Names, Rows, RunState
from summarylib.reading.scalar_matching import match_scalars
from summarylib.reading.scalar_shapes import ScalarShape


@dataclass
class _Part:
    """Rows under construction: one scalar shape's, or the protobuf path's."""

    record: np.ndarray
    sub: np.ndarray
    tag: np.ndarray
    step: np.ndarray
    wall_time: np.ndarray
    number: np.ndarray
    size: np.ndarray
    shape: int
    protos: list[summary_pb2.Summary.Value] = field(default_factory=list)  # the protobuf part's, a row each
    claims: list[tuple[int, int, str, str]] = field(default_factory=list)  # (record, sub, tag, plugin)


def _payloads(records: Records, indices: np.ndarray) -> Callable[[int], bytes]:
    """The payload of the `i`th of the records `indices`, as match_scalars asks for it."""
    return lambda i: records.payload(int(indices[i]))


def _scalar_parts(
    records: Records, names: Names, filters: Filters
) -> tuple[list[_Part], list[ScalarShape], np.ndarray]:
    """Parts for the scalar events found at the byte level, their shapes, and the indices of the
    records left to protobuf."""
    parts: list[_Part] = []
    shapes: list[ScalarShape] = []
    rest = [records.sparse_indices()]
    for length, indices, rows in records.dense_groups():
        found, left = match_scalars(rows, _payloads(records, indices))
        rest.append(indices[left])
        for shape, positions in found:
            if filters.tags is not None and shape.tag not in filters.tags:
                continue
            step, wall, number = shape.columns(rows, positions)
            count = len(positions)
            parts.append(
                _Part(
                    indices[positions],
                    np.zeros(count, np.int64),
                    np.full(count, names.tag_id(shape.tag), np.int32),
                    step,
                    wall,
                    number,
                    np.full(count, length + 16, np.int64),
                    len(shapes),
                )
            )
            shapes.append(shape)
    return parts, shapes, np.sort(np.concatenate(rest))


def _protobuf_part(
    records: Records, indices: np.ndarray, names: Names, filters: Filters, keep_events: bool
) -> tuple[
    _Part,
    list[tuple[int, event_pb2.Event]],
    list[tuple[int, str]],
    list[tuple[int, summary_pb2.Summary.Value]],
]:
    """The values of records parsed with protobuf; also their non-summary events and their
    values of metadata alone (when `keep_events`), and the records that are not Events."""
    columns: tuple[list, ...] = ([], [], [], [], [], [], [])  # record, sub, tag, step, wall, size, proto
    claims: list[tuple[int, int, str, str]] = []
    events: list[tuple[int, event_pb2.Event]] = []
    bad: list[tuple[int, str]] = []
    bare: list[tuple[int, summary_pb2.Summary.Value]] = []
    for index in indices.tolist():
        try:
            event = event_pb2.Event.FromString(records.payload(index))
        except DecodeError as error:
            bad.append((records.offset(index), f"record is not an Event ({error})"))
            continue
        if not event.HasField("summary"):
            if keep_events:
                events.append((records.offset(index), event))
            continue
        _add_values(event, index, records.record_size(index), names, filters, columns, claims)
        if keep_events:
            bare.extend((records.offset(index), value) for value in _bare_values(event, filters))
    record, sub, tag, step, wall, size, protos = columns
    part = _Part(
        np.array(record, np.int64),
        np.array(sub, np.int64),
        np.array(tag, np.int32),
        np.array(step, np.int64),
        np.array(wall, np.float64),
        np.full(len(record), np.nan),
        np.array(size, np.int64),
        -1,
        protos,
        claims,
    )
    return part, events, bad, bare


def _bare_values(event: event_pb2.Event, filters: Filters) -> list[summary_pb2.Summary.Value]:
    """The values of a summary event that carry metadata and no data (torch's hparams)."""
    return [
        value
        for value in event.summary.value
        if value.WhichOneof("value") not in DATA_KINDS
        and value.HasField("metadata")
        and (filters.tags is None or value.tag in filters.tags)
    ]


def _add_values(
    event: event_pb2.Event,
    index: int,
    record_size: int,
    names: Names,
    filters: Filters,
    columns: tuple[list, ...],
    claims: list,
) -> None:
    """Append the data-carrying values of a summary event to `columns`, and its plugin claims."""
    values = event.summary.value
    overhead = (record_size - sum(v.ByteSize() for v in values)) // max(len(values), 1)
    for sub, value in enumerate(values):
        if filters.tags is not None and value.tag not in filters.tags:
            continue
        claim = plugin_claim(value)
        if claim is not None:
            claims.append((index, sub, value.tag, claim))
        if value.WhichOneof("value") not in DATA_KINDS:
            continue
        for column, item in zip(
            columns,
            (
                index,
                sub,
                names.tag_id(value.tag),
                event.step,
                event.wall_time,
                value.ByteSize() + overhead,
                value,
            ),
            strict=True,
        ):
            column.append(item)


def _apply_claims(
    parts: list[_Part], shapes: list[ScalarShape], state: RunState
) -> tuple[dict[str, tuple[int, int]], set[tuple[str, str, str]]]:
    """Give tags their plugins from the claims of this stretch, in file order, the first claim
    winning; returns from which (record, value) each newly known tag has its plugin, and the
    claims that lost to an earlier one as (tag, kept plugin, ignored plugin)."""
    claims = [claim for part in parts for claim in part.claims]
    claims += [
        (int(part.record[0]), 0, shapes[part.shape].tag, claim)
        for part in parts
        if part.shape >= 0 and (claim := shapes[part.shape].claim) is not None
    ]
    claims.sort(key=lambda claim: claim[:2])
    known_from: dict[str, tuple[int, int]] = {}
    conflicts: set[tuple[str, str, str]] = set()
    for record, sub, tag, plugin in claims:
        if tag not in state.plugins:
            state.plugins[tag] = plugin
            known_from[tag] = (record, sub)
        elif state.plugins[tag] != plugin:
            conflicts.add((tag, state.plugins[tag], plugin))
    return known_from, conflicts


def _plugin_ids(
    part: _Part,
    shapes: list[ScalarShape],
    names: Names,
    state: RunState,
    known_from: dict[str, tuple[int, int]],
) -> np.ndarray:
    """The plugin id of each row of `part`: its tag's plugin, for rows at or after the claim
    that gave it (rows before any metadata for their tag have no plugin)."""
    if part.shape >= 0:
        shape = shapes[part.shape]
        plugin = names.plugin_id(state.plugins.get(shape.tag, ""))
        since = known_from.get(shape.tag)
        if since is None or shape.claim is not None:
            return np.full(len(part.record), plugin, np.int32)
        return np.where(part.record > since[0], plugin, 0).astype(np.int32)
    ids = []
    for record, sub, proto in zip(part.record.tolist(), part.sub.tolist(), part.protos, strict=True):
        since = known_from.get(proto.tag)
        known = since is None or since <= (record, sub)
        ids.append(names.plugin_id(state.plugins.get(proto.tag, "")) if known else 0)
    return np.array(ids, np.int32)


def decode_records(
    records: Records, state: RunState, names: Names, filters: Filters, keep_events: bool = False
) -> Rows:
    """The summary values of `records` as Rows, in file order, filtered by tag and plugin.

    `state` carries each tag's plugin from earlier records of the run and is updated.
    `keep_events` also collects the events that are not summaries (file version, session
    logs, graphs), the values of metadata alone, and the metadata claims that TensorBoard
    ignores, for inspection.
    """
    parts, shapes, rest = _scalar_parts(records, names, filters)
    general, events, bad, bare = _protobuf_part(records, rest, names, filters, keep_events)
    parts.append(general)
    known_from, conflicts = _apply_claims(parts, shapes, state)
    plugins = [_plugin_ids(part, shapes, names, state, known_from) for part in parts]
    rows = _assemble(parts, plugins, shapes, records.offsets())
    rows.bad = bad
    if keep_events:
        rows.events, rows.conflicts, rows.bare = events, sorted(conflicts), bare
    if filters.plugins is not None:
        allowed = np.zeros(len(names.plugins) + len(filters.plugins), bool)
        allowed[[names.plugin_id(plugin) for plugin in filters.plugins]] = True
        rows = rows.take(allowed[rows.plugin])
    _parse_non_scalars(rows, records, names)
    return rows


def _assemble(
    parts: list[_Part], plugins: list[np.ndarray], shapes: list[ScalarShape], offsets: np.ndarray
) -> Rows:
    """One Rows of all parts, ordered by record and value within the record."""
    used = sorted(
        ((part, ids) for part, ids in zip(parts, plugins, strict=True) if len(part.record)),
        key=lambda used: int(used[0].record[0]),
    ) or [(parts[-1], plugins[-1])]

    def joined(name: str) -> np.ndarray:
        return np.concatenate([getattr(part, name) for part, _ in used])

    record = joined("record")
    protos, general, start = {}, record[:0], 0
    for part, _ in used:
        if part.shape < 0:
            protos, general = dict(enumerate(part.protos, start)), part.record
        start += len(part.record)
    rows = Rows(
        record,
        offsets[record],
        joined("size"),
        joined("tag"),
        np.concatenate([ids for _, ids in used]),
        joined("step"),
        joined("wall_time"),
        joined("number"),
        np.concatenate([np.full(len(part.record), part.shape, np.int32) for part, _ in used]),
        shapes,
        protos,
    )
    if len(used) == 1 or (record[1:] >= record[:-1]).all():  # parts that follow each other
        return rows
    return rows.take(_file_order(record, general, len(offsets)))


def _file_order(record: np.ndarray, general: np.ndarray, records: int) -> np.ndarray:
    """The permutation that puts rows in record order, values of one record in their order.

    A counting sort: only the protobuf part (`general` its records, in order) can have several
    rows of one record."""
    counts = np.bincount(record, minlength=records)
    first_slot = np.cumsum(counts) - counts
    rank = np.zeros(len(record), np.int64)
    if len(general):
        in_general = np.flatnonzero(counts[record] > 1)
        repeated = record[in_general]
        rank[in_general] = np.arange(len(repeated)) - np.searchsorted(repeated, repeated)
    order = np.empty(len(record), np.int64)
    order[first_slot[record] + rank] = np.arange(len(record))
    return order


def _parse_non_scalars(rows: Rows, records: Records, names: Names) -> None:
    """Hand rows read at the byte level whose tag's plugin is not scalars (a float tensor of
    another plugin, or of none) to the protobuf path, so they decode as that plugin's data."""
    if not len(rows):
        return
    tensor_shapes = [i for i, shape in enumerate(rows.shapes) if shape.kind == "tensor"]
    scalars = names.plugin_id("scalars")
    moved = np.flatnonzero(np.isin(rows.shape, tensor_shapes) & (rows.plugin != scalars))
    if not moved.size:
        return
    for position in moved.tolist():
        payload = records.payload(int(rows.record[position]))
        rows.protos[position] = event_pb2.Event.FromString(payload).summary.value[0]
    rows.shape[moved] = -1
