"""Following a logdir for the Live dashboard: the newest frames and scalars of every run.

One `Follower` a dashboard: a daemon thread reads each event file from the offset it was
read to (a `summarylib.reader.Reader` per file), keeps the last KEEP_FRAMES images of each
image tag as the PNG bytes on disk (never decoded to pixels) and the newest value of each
scalar tag, and wakes the streams waiting on its `condition` when something changed.

A run is a directory with event files, as TensorBoard finds it; its `live/` subdirectory
(where `watch(..., live=True)` writes the dashboard's views, rolling files) is part of the
run, not a run of its own. Polling is cheap: while a stream shows a run, a stat of the
run's directories (new or deleted files change their mtime) and of their newest file every
`poll_interval`; the logdir's listing, and the other runs, every LISTING_SECONDS. While no
stream is open, nothing is polled: the logdir is listed and read only when a request asks
(the runs route, TensorBoard's `is_active`), so a TensorBoard whose Live tab nobody
opens pays nothing between its requests. A file is read only when its size changed.
While a stream shows a run, its control file is touched every HEARTBEAT_SECONDS
(the dashboard's "someone is looking", see summarylib.format.live_control).

Local logdirs: the control file and the stats are local files' (a watch writes its live
views only to local directories, where `retain_seconds` rolls them).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections import deque
from dataclasses import dataclass, field

from summarylib.decoding import Images
from summarylib.format import live_control
from summarylib.reader import CorruptRecordError, Reader, find_runs, is_event_file

KEEP_FRAMES = 4
LISTING_SECONDS = 0.5
RETRY_SECONDS = 2.0  # after a round that failed
_PLUGINS = ("images", "scalars")
_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Frame:
    """One image of a run, as written: its PNG (or JPEG) bytes, and `number`, which grows
    with every frame the follower finds (the stream's and the frame route's id)."""

    run: str
    tag: str
    step: int
    wall_time: float
    number: int
    width: int
    height: int
    description: str
    data: bytes

    def event(self) -> dict[str, object]:
        """The stream's `frame` event data (the bytes are fetched by number)."""
        return {
            "run": self.run,
            "tag": self.tag,
            "step": self.step,
            "wall_time": self.wall_time,
            "frame": self.number,
            "width": self.width,
            "height": self.height,
            "description": self.description,
        }


@dataclass
class RunView:
    """What the dashboard shows of one run: the last frames of each image tag, the newest
    (step, wall_time, value) of each scalar tag, and `scalars_changed`, a count that grows
    when they change. Changed only under the follower's condition."""

    live: bool = False
    frames: dict[str, deque[Frame]] = field(default_factory=dict)
    scalars: dict[str, tuple[int, float, float]] = field(default_factory=dict)
    scalars_changed: int = 0
    descriptions: dict[str, str] = field(default_factory=dict)


@dataclass
class _File:
    """An event file followed: its reader, and the size it was read to."""

    reader: Reader
    size: int = -1


@dataclass
class _Directory:
    """A directory holding a run's event files (the run's own, or its live/)."""

    run: str
    path: str
    mtime_ns: int = -1
    files: dict[str, _File] = field(default_factory=dict)  # by path, in name order


def run_of(name: str) -> str:
    """The run a directory found in the logdir belongs to: a run's live/ is the run's."""
    if os.path.basename(name) == live_control.LIVE_SUBDIR:
        return os.path.dirname(name) or "."
    return name


class Follower:
    """The newest frames and scalars of every run of `logdir`, followed by a daemon thread
    (started by `start`); `condition` is notified whenever `version` grows."""

    def __init__(self, logdir: str, poll_interval: float = 0.02) -> None:
        self.logdir = os.path.abspath(logdir)
        self.poll_interval = poll_interval
        self.condition = threading.Condition()
        self.version = 0
        self.views: dict[str, RunView] = {}  # by run; read and changed under `condition`
        self._directories: dict[str, _Directory] = {}  # by path
        self._streams: dict[str, int] = {}  # open streams by run, under `condition`
        self._touched: dict[str, float] = {}  # when each shown run's control file was touched
        self._next_frame = 0
        self._listed_at = -1.0  # monotonic time of the last listing; under `condition`
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()

    def start(self) -> None:
        """Start following (once; later calls do nothing)."""
        with self._start_lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="summarylib-live", daemon=True)
                self._thread.start()

    def fresh(self, max_age: float = LISTING_SECONDS, timeout: float = 10.0) -> None:
        """Wait until the runs were listed and read at most `max_age` seconds ago (the runs
        route answers with what is on disk now, not with an idle poll's view)."""
        self.start()
        asked = time.monotonic() - max_age
        with self.condition:
            if self._listed_at >= asked:
                return
            self._wake.set()
            self.condition.wait_for(lambda: self._listed_at >= asked, timeout)

    def open_stream(self, run: str) -> None:
        """A stream shows `run`: follow it every poll, touch its control file."""
        with self.condition:
            self._streams[run] = self._streams.get(run, 0) + 1
        self._wake.set()

    def close_stream(self, run: str) -> None:
        """A stream of `run` ended."""
        with self.condition:
            left = self._streams.get(run, 0) - 1
            if left > 0:
                self._streams[run] = left
            else:
                self._streams.pop(run, None)

    def frame(self, run: str, tag: str, number: int) -> Frame | None:
        """Frame `number` of a run's tag, while it is among the last kept."""
        with self.condition:
            view = self.views.get(run)
            kept = view.frames.get(tag, ()) if view is not None else ()
            return next((frame for frame in kept if frame.number == number), None)

    def _run(self) -> None:
        """The follower thread: poll, for as long as the process runs. An unexpected error
        (a logdir gone, a filesystem failing) is logged and the next poll tries again, so
        the dashboard comes back once the files do."""
        next_listing = 0.0
        while True:
            try:
                next_listing = self._poll(next_listing)
            except Exception:
                _log.exception("summarylib.live: following %s failed; trying again", self.logdir)
                time.sleep(RETRY_SECONDS)

    def _poll(self, next_listing: float) -> float:
        """One round: the listing when it is due, the shown runs' files, the heartbeats;
        then the wait until the next round (with no stream open, until a request wakes
        the thread). Returns when the next listing is due."""
        now = time.monotonic()
        with self.condition:
            shown = set(self._streams)
        changed = False
        if now >= next_listing or self._wake.is_set():
            self._wake.clear()
            changed = self._list()
            for directory in list(self._directories.values()):
                changed |= self._check(directory)
            with self.condition:
                self._listed_at = now
                self.condition.notify_all()
            next_listing = now + LISTING_SECONDS
        else:
            for directory in list(self._directories.values()):
                if directory.run in shown:
                    changed |= self._check(directory)
        self._heartbeat(shown, now)
        if changed:
            with self.condition:
                self.version += 1
                self.condition.notify_all()
        self._wake.wait(self.poll_interval if shown else None)
        return next_listing

    def _list(self) -> bool:
        """Find the logdir's runs as they are now: new directories followed, gone ones
        forgotten (with their runs' frames, when the whole run is gone)."""
        names = list(find_runs(self.logdir))
        found = {self.run_directory(name): run_of(name) for name in names}
        for path in set(self._directories) - set(found):
            del self._directories[path]
        for path, run in found.items():
            if path not in self._directories:
                self._directories[path] = _Directory(run, path)
        with self.condition:
            gone = set(self.views) - set(found.values())
            for run in gone:
                del self.views[run]
            for name in names:
                view = self.views.setdefault(run_of(name), RunView())
                # live: frames in its live/, or a live/ a watch(live=True) made, empty
                # until someone asks (so the run is live before its first view)
                live_dir = os.path.join(self.run_directory(name), live_control.LIVE_SUBDIR)
                view.live = view.live or run_of(name) != name or os.path.isdir(live_dir)
        return bool(gone)

    def _check(self, directory: _Directory) -> bool:
        """Read what is new in a directory: its listing again if its mtime changed, then
        its newest file (and files not read to their size yet) if their size changed."""
        try:
            mtime = os.stat(directory.path).st_mtime_ns
        except OSError:
            return False
        listed = mtime != directory.mtime_ns
        if listed:
            directory.mtime_ns = mtime
            self._relist(directory)
        paths = list(directory.files)
        changed = False
        for index, path in enumerate(paths):
            if listed or index == len(paths) - 1:
                changed |= self._read(directory, path)
        return changed

    def _relist(self, directory: _Directory) -> None:
        try:
            names = sorted(name for name in os.listdir(directory.path) if is_event_file(name))
        except OSError:
            names = []
        paths = [os.path.join(directory.path, name) for name in names]
        files = {
            path: directory.files.get(path) or _File(Reader(path, plugins=_PLUGINS, tolerant=True))
            for path in paths
        }
        directory.files = files

    def _read(self, directory: _Directory, path: str) -> bool:
        """Read a file from where it was read to, if its size changed."""
        followed = directory.files[path]
        try:
            size = os.stat(path).st_size
        except OSError:
            del directory.files[path]  # rolled away
            return False
        if size == followed.size:
            return False
        followed.size = size
        frames: dict[str, deque[Frame]] = {}  # the last few of each tag (a long file holds many)
        scalars: dict[str, tuple[int, float, float]] = {}
        descriptions: dict[str, str] = {}
        reader = followed.reader
        try:
            for batch in reader.batches(decode=True):
                rows = batch.rows
                tags, plugins = reader.names.tags, reader.names.plugins
                columns = zip(
                    rows.tag.tolist(),
                    rows.plugin.tolist(),
                    rows.step.tolist(),
                    rows.wall_time.tolist(),
                    strict=True,
                )
                for position, (tag_id, plugin_id, step, wall_time) in enumerate(columns):
                    tag, value = tags[tag_id], rows.decoded.get(position, rows.number[position])
                    if plugins[plugin_id] == "scalars" and isinstance(value, float):
                        scalars[tag] = (step, wall_time, float(value))
                    elif isinstance(value, Images) and len(value):
                        proto = rows.protos.get(position)
                        if proto is not None and proto.metadata.summary_description:
                            descriptions[tag] = proto.metadata.summary_description
                        frame = self._frame(directory.run, tag, step, wall_time, value, descriptions)
                        frames.setdefault(tag, deque(maxlen=KEEP_FRAMES)).append(frame)
                batch.commit()
        except (OSError, CorruptRecordError):
            pass  # a file deleted while read; the next listing forgets it
        if not frames and not scalars:
            return False
        self._publish(
            directory.run, [frame for kept in frames.values() for frame in kept], scalars, descriptions
        )
        return True

    def _frame(
        self, run: str, tag: str, step: int, wall_time: float, images: Images, descriptions: dict[str, str]
    ) -> Frame:
        self._next_frame += 1
        with self.condition:
            view = self.views.get(run)
            known = view.descriptions.get(tag, "") if view is not None else ""
        description = descriptions.get(tag, known)
        return Frame(
            run,
            tag,
            step,
            wall_time,
            self._next_frame,
            images.width,
            images.height,
            description,
            images.encoded[0],
        )

    def _publish(
        self,
        run: str,
        frames: list[Frame],
        scalars: dict[str, tuple[int, float, float]],
        descriptions: dict[str, str],
    ) -> None:
        with self.condition:
            view = self.views.setdefault(run, RunView())
            view.descriptions.update(descriptions)
            for frame in frames:
                view.frames.setdefault(frame.tag, deque(maxlen=KEEP_FRAMES)).append(frame)
            if scalars:
                view.scalars.update(scalars)
                view.scalars_changed += 1

    def _heartbeat(self, shown: set[str], now: float) -> None:
        """Touch the control file of each shown run every HEARTBEAT_SECONDS (if it has one)."""
        for run in list(self._touched):
            if run not in shown:
                del self._touched[run]
        for run in shown:
            if (
                now - self._touched.get(run, -live_control.HEARTBEAT_SECONDS)
                >= live_control.HEARTBEAT_SECONDS
            ):
                self._touched[run] = now
                # No control file: nothing asked of the run yet.
                with contextlib.suppress(OSError):
                    live_control.touch(self.run_directory(run))

    def run_directory(self, run: str) -> str:
        """The directory of a run (its control file's)."""
        return self.logdir if run == "." else os.path.join(self.logdir, run)
