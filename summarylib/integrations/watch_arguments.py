"""The arguments torch's `watch` and Keras's `Watch` share, checked at the call the same
way for both: a clear TypeError or ValueError naming the API and the argument, never a
string taken for True."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from summarylib.checks import (
    check_flag,
    check_kinds,
    check_writer,
    input_error,
    int_at_least,
    optional_int_at_least,
    positive_seconds,
)
from summarylib.integrations.watch_live import LiveViews
from summarylib.integrations.watch_views import KindViews


@dataclass(frozen=True)
class WatchArguments:
    """A watch's arguments as checked: `retain_seconds` None unless `live`."""

    kinds: tuple[str, ...]
    log_freq: int
    images: bool
    check_numerics: bool
    raise_on_nonfinite: bool
    variance_steps: int
    buckets: int | None
    retain_seconds: float | None

    def views(
        self, kinds: Sequence[str], target: Callable[[], Any]
    ) -> tuple[LiveViews | None, dict[str, KindViews]]:
        """The watch's views of `kinds`: with `live`, the ones the dashboard asks for
        (see watch_live) writing to `target()`'s run, and none of its own; else its own."""
        if self.retain_seconds is not None:
            return LiveViews(tuple(kinds), self.variance_steps, self.retain_seconds, target), {}
        return None, {kind: KindViews(kind, self.images, self.variance_steps, self.buckets) for kind in kinds}


def watch_arguments(
    api: str,
    log: str | Sequence[str] | None,
    kinds: Sequence[str],
    unavailable: Mapping[str, str] | None,
    *,
    log_freq: Any,
    images: Any,
    check_numerics: Any,
    writer: Any,
    raise_on_nonfinite: Any,
    variance_steps: Any,
    buckets: Any,
    live: Any,
    retain_seconds: Any,
) -> WatchArguments:
    """The watch's arguments checked (see WatchArguments); `kinds` the views it knows,
    `unavailable` those it names but cannot make, with why (see checks.check_kinds)."""
    logged = check_kinds(api, log, kinds, unavailable)
    frequency = int_at_least(api, None, "log_freq", log_freq)
    steps = int_at_least(api, None, "variance_steps", variance_steps, least=0)
    bucket_count = optional_int_at_least(api, None, "buckets", buckets, least=0)
    check_writer(api, writer)
    flags = {
        name: check_flag(api, None, name, flag)
        for name, flag in (
            ("images", images),
            ("check_numerics", check_numerics),
            ("raise_on_nonfinite", raise_on_nonfinite),
            ("live", live),
        )
    }
    if flags["live"] and flags["images"]:
        raise input_error(
            ValueError, api, None, "images", "with live=True the dashboard asks for the images; got True"
        )
    seconds = positive_seconds(api, None, "retain_seconds", retain_seconds) if flags["live"] else None
    return WatchArguments(
        logged,
        frequency,
        flags["images"],
        flags["check_numerics"],
        flags["raise_on_nonfinite"],
        steps,
        bucket_count,
        seconds,
    )
