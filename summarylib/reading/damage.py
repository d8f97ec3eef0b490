"""Damage inside records that pass their CRCs: records that are not Events, and summary values
that cannot be decoded (a forged shape, dtype or size: see `value_problem`), as `Problem`s.

Found once a stretch of records has become `Rows`, so that the `Reader` can leave the damage
out (tolerant mode, and damage a strict Reader has raised once) or stop before it (strict), and
`inspect` reports it: without decoding any value, or while decoding them all (one pass over
each value when the values are wanted).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from summarylib.reading.problems import CORRUPT, Problem
from summarylib.reading.records import Records
from summarylib.reading.rows import Rows
from summarylib.reading.values import decode_value, value_problem


@dataclass(frozen=True)
class Damage:
    """A `Problem` in a stretch of records, and where it lies among their rows: a record that is
    no Event lies before row `position` (`number` 0); an undecodable value is row `position`,
    the `number`-th value (from 1) of its record."""

    problem: Problem
    position: int
    number: int

    @property
    def key(self) -> tuple[str, int, int]:
        """What identifies it on every read: file, offset and number."""
        return self.problem.path, self.problem.offset, self.number


def find_damage(records: Records, rows: Rows, plugins: list[str], decode: bool = False) -> list[Damage]:
    """The records of `records` that are not Events and the values of `rows` that cannot be
    decoded (`plugins`: plugin names by id), in file order. `decode`: also decode the others,
    into `rows.decoded`."""
    found = []
    for offset, reason in rows.bad:
        size = int(records.lengths[np.searchsorted(records.offsets(), offset)]) + 16
        problem = Problem(records.path, offset, CORRUPT, f"{reason}, {size} bytes skipped", size)
        found.append(Damage(problem, int(np.searchsorted(rows.offset, offset)), 0))
    for position, proto in rows.protos.items():
        plugin = plugins[rows.plugin[position]]
        why = _decoded(rows, position, proto, plugin) if decode else value_problem(proto, plugin)
        if why:
            offset, size = int(rows.offset[position]), int(rows.size[position])
            detail = f"value of tag {proto.tag!r} cannot be decoded: {why}"
            number = position - int(np.searchsorted(rows.offset, offset)) + 1
            found.append(Damage(Problem(records.path, offset, CORRUPT, detail, size), position, number))
    return sorted(found, key=lambda damage: (damage.position, damage.problem.offset))


def _decoded(rows: Rows, position: int, proto: Any, plugin: str) -> str | None:
    """Decode the value of row `position` into `rows.decoded`; why it cannot be, or None."""
    try:
        rows.decoded[position] = decode_value(proto, plugin)
    except ValueError as error:
        return str(error)
    return None
