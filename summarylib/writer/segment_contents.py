"""What a segment holds, in the words a report of unuploaded or lost events needs: how
many events and which steps. Only error paths read segments this way (the writer never
parses what it writes on its hot path)."""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from typing import cast

from summarylib.format import records
from summarylib.proto import event_pb2


@dataclass
class Contents:
    """Events, bytes and the step range of some segments, and the objects they were
    (or would have been)."""

    events: int = 0
    bytes: int = 0
    first_step: int | None = None
    last_step: int | None = None
    objects: list[str] = field(default_factory=list)

    def add(self, name: str, data: builtins.bytes | bytearray) -> None:  # `bytes`: the field above
        """Count the events of the segment `name` holding framed records `data` (its
        header record, the file_version event, is not counted)."""
        self.objects.append(name)
        self.bytes += len(data)
        view = memoryview(data)
        offset = 0
        while offset + records.HEADER_SIZE <= len(view):
            length = int.from_bytes(view[offset : offset + 8], "little")
            start = offset + records.HEADER_SIZE
            # protobuf parses any buffer (no copy); some of its stubs name only bytes, others
            # any buffer: a cast (not a `type: ignore`, unused under the latter) suits both.
            event = event_pb2.Event.FromString(cast(bytes, view[start : start + length]))
            offset = start + length + records.FOOTER_SIZE
            if not event.HasField("file_version"):
                self.events += 1
                self._steps(event.step, event.step)

    def merge(self, other: Contents) -> None:
        """Count `other`'s segments too."""
        self.events += other.events
        self.bytes += other.bytes
        self.objects += other.objects
        if other.first_step is not None and other.last_step is not None:  # set together
            self._steps(other.first_step, other.last_step)

    def _steps(self, first: int, last: int) -> None:
        self.first_step = first if self.first_step is None else min(self.first_step, first)
        self.last_step = last if self.last_step is None else max(self.last_step, last)

    def __str__(self) -> str:
        steps = "" if self.first_step is None else f", steps {self.first_step}..{self.last_step}"
        names = ", ".join(self.objects[:3])
        if len(self.objects) > 3:
            names += f", ... ({len(self.objects)} in all)"
        count = len(self.objects)
        return f"{self.events} events ({self.bytes} bytes{steps}) in {count} segment objects: {names}"
