"""`Reader`: the summary values of a file, run or logdir, following live runs from call to call.

Keeps, for each file, where reading continues (an offset, and how many values of the record
there were already handed out), so that no value is handed out twice or skipped; turns the
`Rows` that row_assembly makes of scanned records into `Value` tuples or table columns; leaves
out or stops at damage (file_scan, damage), and remembers the damage it has met.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Collection, Iterator
from concurrent.futures import Future
from dataclasses import dataclass
from itertools import repeat
from operator import length_hint
from typing import Any, NamedTuple

import numpy as np

from summarylib.format import storage
from summarylib.format.storage import StorageOptions
from summarylib.reading.damage import find_damage
from summarylib.reading.discovery import find_sources
from summarylib.reading.fetch_ahead import FetchAhead
from summarylib.reading.file_scan import scan
from summarylib.reading.problems import CORRUPT, SHRUNK, CorruptRecordError, Problem, ReadStatus
from summarylib.reading.records import Records
from summarylib.reading.row_assembly import decode_records
from summarylib.reading.rows import Filters, Names, Rows, RunState
from summarylib.reading.table import make_table


class Value(NamedTuple):
    """One summary value, decoded (see `summarylib.decoding.decode_value`): a float for
    scalars, arrays for histograms and tensors, `Images`, `Audio`, str or `PrCurve`."""

    run: str
    tag: str
    step: int
    wall_time: float
    plugin: str
    value: Any


@dataclass
class _Cursor:
    """Where reading of one file continues: an offset, and how many values of the record
    there were already handed out."""

    path: str
    offset: int = 0
    skip: int = 0
    tail: Problem | None = None
    # Read whole, on an object store, while a newer object of its run existed: not fetched
    # again. summarylib's writer uploads each object once, whole, and a writer that rewrites
    # its object (TensorFlow's) has moved on to the newer one.
    finished: bool = False


@dataclass
class Batch:
    """The values of one stretch of one file of one run, as `Rows`."""

    run: str
    path: str
    rows: Rows
    # Where reading continues once these rows are handed out: a file offset, and how many
    # values of the record there are handed out by then (its damaged values not counted).
    end: int
    cursor: _Cursor
    end_skip: int = 0

    def commit(self, handed_out: int | None = None) -> None:
        """Record that the first `handed_out` rows (all by default) have been handed out."""
        rows, cursor = self.rows, self.cursor
        if handed_out is None or handed_out >= len(rows):
            cursor.offset, cursor.skip = self.end, self.end_skip
            return
        offset = int(rows.offset[handed_out])
        done = int(np.count_nonzero(rows.offset[:handed_out] == offset))
        cursor.skip = (cursor.skip if offset == cursor.offset else 0) + done
        cursor.offset = offset


def _name_set(names: str | Collection[str] | None) -> frozenset[str] | None:
    return frozenset([names] if isinstance(names, str) else names) if names is not None else None


class Reader:
    """Summary values of an event file, a run directory or a logdir; follows live runs.

    Each call of `values()` (or iteration) or `table()` hands out the values that are new since
    the previous call: the first call reads everything, later ones continue every file where
    the last stopped (a record not yet completely written is read once it is), and pick up
    new files and runs. No value is handed out twice or skipped, even when iteration stops
    early. Runs, tags and plugins filter values before they are decoded.

    `check_crc`: verify record CRCs (the default; fast). `tolerant`: report corruption in
    `problems` and skip to the next valid record (or, for a value that cannot be decoded, the
    next value), instead of raising CorruptRecordError. A strict Reader raises each corruption
    once, after handing out the values before it; the next call goes on past it, as tolerant
    mode would, and lists it in `problems` (`table()` hands out nothing when it raises: the next
    call returns the values before the corruption too). `storage_options`: for the filesystem
    of a URL path (fsspec's: credentials, endpoint, ...).
    """

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        runs: str | Collection[str] | None = None,
        tags: str | Collection[str] | None = None,
        plugins: str | Collection[str] | None = None,
        check_crc: bool = True,
        tolerant: bool = False,
        storage_options: StorageOptions = None,
    ) -> None:
        self.path = os.fspath(path)
        self.storage_options = storage_options
        self.names = Names()
        self.check_crc = check_crc
        self.tolerant = tolerant
        self._runs = _name_set(runs)
        self._filters = Filters(_name_set(tags), _name_set(plugins))
        self._states: dict[str, RunState] = {}
        self._cursors: dict[str, _Cursor] = {}
        # Damage met so far, by `Damage.key` (file, offset, value number: 0 for a record).
        self._corruption: dict[tuple[str, int, int], Problem] = {}
        self._cut_backs: list[Problem] = []  # files found cut back while followed

    @property
    def problems(self) -> list[Problem]:
        """Corruption met so far (skipped, or raised once), files cut back while followed,
        and each file's truncated or zero-filled tail as of the last read."""
        tails = [cursor.tail for cursor in self._cursors.values() if cursor.tail is not None]
        return list(self._corruption.values()) + self._cut_backs + tails

    def plugins(self, run: str) -> dict[str, str]:
        """{tag: plugin} of a run as read so far (each tag's first metadata)."""
        return dict(self._states[run].plugins) if run in self._states else {}

    def runs(self) -> dict[str, list[str]]:
        """{run: event files} as they are now, filtered by run."""
        found = find_sources(self.path, self.storage_options)
        return {run: files for run, files in found.items() if self._runs is None or run in self._runs}

    def __iter__(self) -> Iterator[Value]:
        return self.values()

    def values(self) -> Iterator[Value]:
        """The values that are new since the last call, run by run, in file order."""
        for batch in self.batches(decode=True):
            values = self._decode_protos(batch)
            steps = iter(batch.rows.step.tolist())
            handed_out = None
            try:
                yield from self._values(batch, steps, values)
                handed_out = len(values)
            finally:
                # Iterators left unfinished say how many values went out.
                batch.commit(handed_out if handed_out is not None else len(batch.rows) - length_hint(steps))

    def table(self, as_dataframe: bool | None = None) -> Any:
        """The values that are new since the last call as a table; see `load_table`. When it
        raises CorruptRecordError, nothing is handed out: the next call reads the same values
        again, past the corruption."""
        pieces = []
        run_names: list[str] = []
        cursors = {path: dataclasses.replace(cursor) for path, cursor in self._cursors.items()}
        try:
            for batch in self.batches(decode=True):
                if batch.run not in run_names:
                    run_names.append(batch.run)
                pieces.append((run_names.index(batch.run), batch.rows, self._table_values(batch)))
                batch.commit()
        except CorruptRecordError:
            self._cursors = cursors
            raise
        return make_table(pieces, run_names, self.names.tags, as_dataframe)

    def batches(self, keep_events: bool = False, decode: bool = False) -> Iterator[Batch]:
        """The new values as Rows, a stretch of a file at a time; each batch must be committed
        once handed out. `keep_events` keeps the non-summary events too (for inspection);
        `decode` decodes the values into `Rows.decoded` (values that cannot be decoded are left
        out of batches either way). Remote files are requested a few ahead of the one being
        read (see FetchAhead)."""
        runs = {
            run: [self._cursors.setdefault(path, _Cursor(path)) for path in files]
            for run, files in self.runs().items()
        }
        paths = (c.path for cursors in runs.values() for c in cursors if not c.finished)
        ahead = FetchAhead(paths, options=self.storage_options)
        try:
            for run, cursors in runs.items():
                state = self._states.setdefault(run, RunState())
                for cursor in cursors:
                    if cursor.finished:
                        continue
                    yield from self._file_batches(
                        run, cursor, state, keep_events, decode, ahead.take(cursor.path)
                    )
                    settled = cursor is not cursors[-1] and cursor.tail is None  # a newer file follows it
                    cursor.finished = settled and storage.on_object_store(cursor.path, self.storage_options)
        finally:
            ahead.cancel()

    def _file_batches(
        self,
        run: str,
        cursor: _Cursor,
        state: RunState,
        keep_events: bool,
        decode: bool,
        head: Future[bytes] | None,
    ) -> Iterator[Batch]:
        status = ReadStatus()
        met = [offset for path, offset, number in self._corruption if path == cursor.path and not number]
        scanned = scan(
            cursor.path,
            status,
            cursor.offset,
            self.check_crc,
            self.tolerant,
            head=head,
            tolerate=met,
            storage_options=self.storage_options,
        )
        try:
            for chunk in scanned:
                if status.problems and status.problems[0].kind == SHRUNK:  # read on where it was cut
                    cursor.offset, cursor.skip = min(cursor.offset, status.problems[0].offset), 0
                rows = decode_records(chunk, state, self.names, self._filters, keep_events)
                rows, (end, end_skip), error = self._without_damage(chunk, rows, decode)
                yield Batch(run, cursor.path, _without_handed_out(rows, cursor), end, cursor, end_skip)
                if error is not None:
                    raise error
        finally:
            scanned.close()
            for problem in status.problems:
                if problem.kind == CORRUPT:
                    self._corruption[problem.path, problem.offset, 0] = problem
                elif problem.kind == SHRUNK:
                    self._cut_backs.append(problem)
        cursor.offset, cursor.skip = status.next_offset, 0
        cursor.tail = next((p for p in status.problems if p.kind not in (CORRUPT, SHRUNK)), None)

    def _without_damage(
        self, chunk: Records, rows: Rows, decode: bool
    ) -> tuple[Rows, tuple[int, int], CorruptRecordError | None]:
        """A chunk's rows less their damage (see `find_damage`), where reading continues after
        them (an offset, and how many values of its record are done), and the error to raise
        once they are handed out. Damage is left out and remembered in tolerant mode and once
        raised; else the rows end just before it, and it is raised. Damaged values are left out
        before values already handed out are, so that `_Cursor.skip` never counts them."""
        keep = np.ones(len(rows), bool)
        for damage in find_damage(chunk, rows, self.names.plugins, decode):
            met = damage.key in self._corruption
            self._corruption[damage.key] = damage.problem
            if not (self.tolerant or met):
                keep[damage.position :] = False
                before = rows.take(keep)
                offset = damage.problem.offset
                done = int(np.count_nonzero(before.offset == offset))
                error = CorruptRecordError(chunk.path, offset, damage.problem.detail)
                return before, (offset, done), error
            if damage.number:
                keep[damage.position] = False
        return rows.take(keep), (chunk.end, 0), None

    def _values(self, batch: Batch, steps: Iterator[int], values: list) -> Iterator[Value]:
        """Value tuples of a batch's rows, built without a Python loop (this is per value)."""
        rows = batch.rows
        fields = zip(
            repeat(batch.run),
            map(self.names.tags.__getitem__, rows.tag.tolist()),
            steps,
            rows.wall_time.tolist(),
            map(self.names.plugins.__getitem__, rows.plugin.tolist()),
            values,
        )
        return map(tuple.__new__, repeat(Value), fields)

    @staticmethod
    def _decode_protos(batch: Batch) -> list:
        """The value of each row of a batch made with `decode`: the number of scalars read at
        the byte level, the others as decoded."""
        rows = batch.rows
        values = rows.number.tolist()
        for position, value in rows.decoded.items():
            values[position] = value
        return values

    def _table_values(self, batch: Batch) -> np.ndarray:
        """The value column of a batch: float64 when every value is a float, else objects."""
        rows = batch.rows
        if not rows.protos:
            return rows.number
        values = self._decode_protos(batch)
        if all(isinstance(values[position], float) for position in rows.protos):
            return np.array(values, np.float64)
        column = np.empty(len(values), object)
        column[:] = values
        return column


def _without_handed_out(rows: Rows, cursor: _Cursor) -> Rows:
    """`rows` less the values of the cursor's record that were already handed out."""
    if not cursor.skip:
        return rows
    positions = np.flatnonzero(rows.offset == cursor.offset)[: cursor.skip]
    keep = np.ones(len(rows), bool)
    keep[positions] = False
    return rows.take(keep)
