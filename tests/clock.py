"""A clock the test moves by hand, for code that takes a `clock` callable (rolling files,
the live control poll)."""

from __future__ import annotations


class Clock:
    """Returns `now`, which the test sets."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now
