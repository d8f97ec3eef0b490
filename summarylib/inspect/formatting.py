"""Numbers as people read them: counted nouns, UTC times, byte sizes (for the report's verdict,
its warnings and its text)."""

from __future__ import annotations

import datetime


def plural(number: int, noun: str) -> str:
    """`number` and `noun`, with an s unless there is exactly one."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def utc_time(wall_time: float | None) -> str:
    """A wall time to the second, in UTC; '-' for none, the number itself for one that is no
    time (NaN, infinite or out of the calendar's range: a forged or broken event)."""
    if wall_time is None:
        return "-"
    try:
        moment = datetime.datetime.fromtimestamp(wall_time, datetime.timezone.utc)
    except (OverflowError, OSError, ValueError):
        return str(wall_time)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def size(count: int) -> str:
    """A byte count in B, KiB, MiB or GiB."""
    scaled: float = count
    for unit in ("B", "KiB", "MiB", "GiB"):
        if scaled < 1024 or unit == "GiB":
            return f"{count} {unit}" if unit == "B" else f"{scaled:.1f} {unit}"
        scaled /= 1024
    return ""
