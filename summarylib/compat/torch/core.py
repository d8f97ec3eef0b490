"""The part of torch's `SummaryWriter` that is about the run, not the data: where it
writes, purge_step, add_event/add_summary, flush/close, and the helpers every `add_*`
method queues through.

The writer wraps a `summarylib.SummaryWriter` of `log_dir` and writes to it directly,
never through the default-writer context: a torch writer writes to itself whatever the
default is. Its `add_scalars` series are files of a `SeriesFiles` pool written on the
same writer's background thread.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from summarylib.compat.legacy_histogram import BUCKET_LIMITS
from summarylib.compat.torch.checks import (
    check_seconds,
    check_tag,
    check_wall_time,
    scalar_float,
    serialized_proto,
)
from summarylib.compat.torch.errors import raise_as_replaced_writers, torch_converts
from summarylib.compat.torch.file_writer import FileWriter
from summarylib.format.wire import INT64_MAX, INT64_MIN
from summarylib.proto import event_pb2, summary_pb2
from summarylib.writer.context import coerce_step
from summarylib.writer.event_codec import event_of_summary
from summarylib.writer.queue import queue_summary
from summarylib.writer.ranks import Ranks, check_ranks, run_logdir
from summarylib.writer.series_files import SeriesFiles
from summarylib.writer.summary_writer import NoopSummaryWriter
from summarylib.writer.summary_writer import SummaryWriter as _Writer

_MAX_CHECKED_TAGS = 65536  # the cache of checked tags is emptied when it grows past this


def default_log_dir(comment: str = "") -> str:
    """torch's default: `runs/<Mon DD_HH-MM-SS>_<hostname><comment>`."""
    current_time = datetime.now().strftime("%b%d_%H-%M-%S")
    return os.path.join("runs", f"{current_time}_{socket.gethostname()}{comment}")


class _ReopenOnWrite:
    """Stands in for the closed writer: the first write after `close()` opens a new one,
    as torch's writer reopens itself (Lightning closes its logger's writer in `finalize`
    and logs again in `trainer.test`)."""

    closed = False
    scalar_engine = None  # add_scalar calls submit, which opens the writer

    def __init__(self, owner: WriterCore) -> None:
        self._owner = owner
        self.logdir = owner.log_dir

    def submit(self, *item: Any) -> None:
        self._owner._open().submit(*item)

    def write_event(self, event: bytes) -> None:
        self._owner._open().write_event(event)

    def flush(self) -> None:
        """Nothing written since the close."""

    def close(self) -> None:
        """Nothing to close."""


class WriterCore:
    """Construction, the run's events and the writer's lifecycle (see the module docstring)."""

    # Which data the replaced writer's `make_np` converts (its errors' classes: see errors.py).
    _converts = staticmethod(torch_converts)

    def __init__(
        self,
        log_dir: str | os.PathLike | None = None,
        comment: str = "",
        purge_step: int | None = None,
        max_queue: int | None = 10,
        flush_secs: float = 120,
        filename_suffix: str = "",
        *,
        logdir: str | os.PathLike | None = None,
        ranks: Ranks = None,
    ) -> None:
        log_dir = log_dir or logdir  # tensorboardX spells it logdir
        self.log_dir = os.fspath(log_dir) if log_dir else default_log_dir(comment)
        # In a distributed job only rank 0 writes, unless `ranks` says otherwise (see
        # summarylib.create_file_writer); the others get a writer that drops everything.
        run = run_logdir(self.log_dir, check_ranks(ranks, "SummaryWriter"))
        self._writes = run is not None
        self.log_dir = run or self.log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = check_seconds("SummaryWriter", "flush_secs", flush_secs)
        self.filename_suffix = filename_suffix
        # torch's public attributes: the run's FileWriter and {log_dir: it}, None while
        # closed; the limits of add_histogram's bins="tensorflow" (TF 1.x's buckets).
        self.file_writer: FileWriter | None = None
        self.all_writers: dict[str, FileWriter] | None = None
        self.default_bins: list[float] = BUCKET_LIMITS[1:-1].tolist()
        self._writer: _Writer | _ReopenOnWrite | NoopSummaryWriter = _ReopenOnWrite(self)
        self._series: SeriesFiles | None = None
        self._checked_tags: set[str] = set()  # tags checked already: a set lookup per call
        self._open()

    def _open(self) -> _Writer | NoopSummaryWriter:
        """Open the run's summarylib writer (and write the purge marker, once)."""
        self.file_writer = FileWriter(self.log_dir, owner=self)
        self.all_writers = {self.log_dir: self.file_writer}
        if not self._writes:
            noop = self._writer = NoopSummaryWriter()
            return noop
        writer = _Writer(
            self.log_dir,
            max_queue=self.max_queue,
            flush_millis=max(1, round(self.flush_secs * 1000)),
            filename_suffix=self.filename_suffix,
        )
        self._writer = writer
        self._series = SeriesFiles(filename_suffix=self.filename_suffix)
        writer.attach(self._series)  # flushed, on exit and SIGTERM too, with the run
        if self.purge_step is not None:
            # TensorBoard discards the events of this run at steps >= purge_step written
            # before this START (a resumed run's stale tail).
            start = event_pb2.Event(
                wall_time=time.time(),
                step=coerce_step(self.purge_step, "purge_step", "SummaryWriter"),
                session_log=event_pb2.SessionLog(status=event_pb2.SessionLog.START),
            )
            writer.write_event(start.SerializeToString())
            self.purge_step = None
        return writer

    def get_logdir(self) -> str:
        """The directory of the run's event file."""
        return self.log_dir

    def _get_file_writer(self) -> FileWriter:
        """The run's FileWriter, the run opened again first if closed (as torch's)."""
        if self.file_writer is None:
            self._open()
        return self.file_writer  # type: ignore[return-value]  # set by _open

    @staticmethod
    def _step(op: str, tag: str, global_step: Any) -> int:
        """The event's step: `global_step`, or 0 when None (torch leaves it unset)."""
        if type(global_step) is int and INT64_MIN <= global_step <= INT64_MAX:
            return global_step
        return 0 if global_step is None else coerce_step(global_step, "global_step", op, tag)

    def _scalar(self, op: str, tag: str, value: Any) -> float:
        """`value` as a float (see `scalar_float`); its error also of the class the
        replaced writer raises for it (NotImplementedError, AssertionError)."""
        try:
            return scalar_float(op, tag, value)
        except (ValueError, TypeError) as error:
            raise_as_replaced_writers(error, value, self._converts, one_value=True)

    @staticmethod
    def _wall_time(op: str, tag: Any, walltime: Any) -> float:
        """The event's wall time: `walltime` (checked: a finite number), or now when None."""
        walltime = check_wall_time(op, tag, walltime)
        return time.time() if walltime is None else walltime

    def _tag(self, op: str, tag: Any) -> str:
        """`tag`, checked to be a non-empty str UTF-8 can encode (once per tag)."""
        checked = self._checked_tags
        if type(tag) is str and tag in checked:
            return tag
        check_tag(op, tag)
        if len(checked) >= _MAX_CHECKED_TAGS:
            checked.clear()
        checked.add(tag)
        return tag

    def _queue(
        self,
        op: str,
        tag: str,
        global_step: Any,
        make_summary: Callable[..., bytes],
        args: tuple,
        walltime: float | None,
    ) -> None:
        """Queue the Summary `make_summary(*args)` (made on the writer's thread)."""
        step = self._step(op, tag, global_step)
        wall_time = check_wall_time(op, tag, walltime)
        queue_summary(self._writer, op, tag, step, make_summary, args, wall_time=wall_time)  # type: ignore[arg-type]

    def add_event(self, event: Any, step: int | None = None, walltime: float | None = None) -> None:
        """Write an `Event` protobuf (summarylib's, TensorBoard's or torch's) as it is, with
        `walltime` (default now) and, if given, `step`."""
        parsed = event_pb2.Event.FromString(serialized_proto("add_event", "event", event, event_pb2.Event))
        parsed.wall_time = self._wall_time("add_event", "<event>", walltime)
        if step is not None:
            parsed.step = self._step("add_event", "<event>", step)
        self._writer.write_event(parsed.SerializeToString())

    def add_summary(
        self, summary: Any, global_step: int | None = None, walltime: float | None = None
    ) -> None:
        """Write a `Summary` protobuf (or its bytes) as one event."""
        data = serialized_proto("add_summary", "summary", summary, summary_pb2.Summary)
        step = self._step("add_summary", "<summary>", global_step)
        wall_time = self._wall_time("add_summary", "<summary>", walltime)
        self._writer.submit(event_of_summary, (bytes, data), wall_time, step)

    def flush(self) -> None:
        """Return once everything logged so far, `add_scalars` series included, is with
        the OS (uploaded, on an object store); raises `WriterError` if writing failed in
        the background."""
        self._writer.flush()

    def close(self) -> None:
        """Write everything logged and close the files. Logging again afterwards opens a
        new event file in the same run, as torch does."""
        writer, series = self._writer, self._series
        self._writer, self._series = _ReopenOnWrite(self), None
        self.file_writer = self.all_writers = None
        try:
            try:
                writer.flush()  # the series' events are written on the writer's thread
            finally:
                writer.close()
        finally:
            if series is not None:
                series.close()

    def __enter__(self) -> WriterCore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
