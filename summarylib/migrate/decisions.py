"""What the rules decide for one reference to a summary API: move it (to a new dotted name,
or as a whole rewritten call) or leave it, with the reason the report gives."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst


@dataclass(frozen=True)
class Move:
    """Replace the reference by `target` (a dotted name: `summarylib.compat.v1.FileWriter`).

    `note` is said beside the change; `left` (when set) also lists it as left for a person,
    for a move that runs but is not the migration asked for."""

    target: str
    note: str = ""
    left: str = ""
    within: str = ""  # the module holding `target` when it is a nested name (`Summary.Value`)

    @property
    def module(self) -> str:
        """The module to import for `target`."""
        return self.within or self.target.rpartition(".")[0]

    @property
    def attr(self) -> str:
        """The name `target` takes from its module."""
        return self.target.removeprefix(f"{self.module}.")


@dataclass(frozen=True)
class RewriteCall:
    """Replace a whole call by `call`, which needs `imports` (module names)."""

    call: cst.Call
    imports: tuple[str, ...]
    note: str = ""


@dataclass(frozen=True)
class Leave:
    """Keep the reference as it is; `reason` says why a person has to look at it."""

    reason: str


Decision = Move | RewriteCall | Leave
