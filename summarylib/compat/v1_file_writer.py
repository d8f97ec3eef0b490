"""TF 1.x's `FileWriter` and `FileWriterCache` without TensorFlow: the writing side of
`summarylib.compat.v1`, where the Summaries its ops return (or protos of any library) are
added to an event file named as TF 1.x named them, at a `global_step`."""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any, ClassVar

from google.protobuf.message import DecodeError

from summarylib.checks import positive_seconds
from summarylib.compat.lazy_summary import summary_bytes
from summarylib.ops.errors import op_error
from summarylib.ops.graph.encoding import graph_def_bytes, graph_event
from summarylib.proto import event_pb2, summary_pb2
from summarylib.writer.context import coerce_step
from summarylib.writer.event_file import v1_file_names
from summarylib.writer.summary_writer import SummaryWriter


class FileWriter:
    """Writes Summary protos and events to an event file named as TF 1.x named them,
    `events.out.tfevents.{seconds}.{hostname}{suffix}` (with `.1`, `.2`, ... when that
    name is taken; never an overwrite).

    Like TF 1.x, metadata is kept only on the first value of each tag. `max_queue` and
    `flush_secs` keep TF 1.x's meaning and defaults. Writers of one logdir in one
    process share one file (see summarylib.SummaryWriter).
    """

    def __init__(
        self,
        logdir: str | os.PathLike,
        graph: Any = None,
        max_queue: int = 10,
        flush_secs: float = 120,
        filename_suffix: str | None = None,
    ) -> None:
        flush_secs = positive_seconds("compat.v1.FileWriter", None, "flush_secs", flush_secs)
        self._options = (max_queue, max(1, round(flush_secs * 1000)), filename_suffix)
        self._writer = SummaryWriter(logdir, *self._options, file_names=v1_file_names)
        self._seen_tags: set[str] = set()
        if graph is not None:
            self.add_graph(graph)

    def get_logdir(self) -> str:
        """The directory the event file is in."""
        return self._writer.logdir

    def _add(self, event: event_pb2.Event, global_step: Any) -> None:
        event.wall_time = time.time()
        if global_step is not None:
            event.step = coerce_step(global_step, "global_step", "compat.v1.FileWriter")
        self._writer.write_event(event.SerializeToString())

    def add_summary(self, summary: Any, global_step: Any = None) -> None:
        """Write a Summary at `global_step`: a proto of any library, its bytes (what
        `merge_all()` returns), or a lazy op (evaluated now)."""
        api = "compat.v1.FileWriter.add_summary"
        try:
            parsed = summary_pb2.Summary.FromString(summary_bytes(summary, api, "summary"))
        except DecodeError as error:
            raise op_error(
                ValueError, api, None, "summary", f"expected a serialized Summary ({error})"
            ) from None
        for value in parsed.value:
            if not value.HasField("metadata"):
                continue
            if value.tag in self._seen_tags:
                value.ClearField("metadata")
            else:
                self._seen_tags.add(value.tag)
        self._add(event_pb2.Event(summary=parsed), global_step)

    def add_session_log(self, session_log: Any, global_step: Any = None) -> None:
        """Write a SessionLog (START tells TensorBoard to drop data from later steps)."""
        parsed = event_pb2.SessionLog.FromString(
            summary_bytes(session_log, "compat.v1.FileWriter.add_session_log", "session_log")
        )
        self._add(event_pb2.Event(session_log=parsed), global_step)

    def add_graph(self, graph: Any, global_step: Any = None) -> None:
        """Write a graph: a `tf.Graph` (anything with `as_graph_def()`), a GraphDef proto
        of any library, or its bytes (see summarylib.graph)."""
        data = graph_def_bytes(graph, "compat.v1.FileWriter.add_graph")
        step = (
            0
            if global_step is None
            else coerce_step(global_step, "global_step", "compat.v1.FileWriter.add_graph")
        )
        self._writer.submit(graph_event, (data,), time.time(), step, len(data))

    def add_event(self, event: Any) -> None:
        """Write an Event (a proto of any library, or its bytes) as it is."""
        self._writer.write_event(summary_bytes(event, "compat.v1.FileWriter.add_event", "event"))

    def flush(self) -> None:
        """Write everything added so far to the OS."""
        self._writer.flush()

    def close(self) -> None:
        """Flush and close the event file; `reopen()` starts a new one."""
        self._writer.close()

    def reopen(self) -> None:
        """After close(), continue in a new event file in the same logdir."""
        if self._writer.closed:
            self._writer = SummaryWriter(self._writer.logdir, *self._options, file_names=v1_file_names)
            self._seen_tags.clear()

    def __enter__(self) -> FileWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _tensorflow_default_graph() -> Any:
    """TensorFlow's default graph when the program imported TensorFlow, else None (a
    program without TensorFlow has no graph of ops to show)."""
    tensorflow = sys.modules.get("tensorflow")
    v1 = getattr(getattr(tensorflow, "compat", None), "v1", None)
    get_default_graph = getattr(v1, "get_default_graph", None)
    return get_default_graph() if callable(get_default_graph) else None


class FileWriterCache:
    """One FileWriter per logdir, as `tf.compat.v1.summary.FileWriterCache`."""

    _writers: ClassVar[dict[str, FileWriter]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    @classmethod
    def get(cls, logdir: str | os.PathLike) -> FileWriter:
        """The cached FileWriter of `logdir`, created on first use with TensorFlow's default
        graph, as TF's cache creates it, where the program imported TensorFlow (a graph-mode
        program that keeps its ops): TensorBoard's Graphs tab shows it then too."""
        key = os.fspath(logdir)
        with cls._lock:
            if key not in cls._writers:
                cls._writers[key] = FileWriter(key, graph=_tensorflow_default_graph())
            return cls._writers[key]

    @classmethod
    def clear(cls) -> None:
        """Close and forget every cached FileWriter."""
        with cls._lock:
            writers, cls._writers = list(cls._writers.values()), {}
        for writer in writers:
            writer.close()
