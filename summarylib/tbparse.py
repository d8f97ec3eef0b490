"""tbparse's `SummaryReader` on summarylib's reader: change `from tbparse import SummaryReader`
to `from summarylib.tbparse import SummaryReader` and the DataFrames stay the same, faster,
and with no TensorFlow for images and audio.

    reader = SummaryReader("runs", pivot=False, extra_columns={"dir_name"})
    reader.scalars      # step, tag, value, dir_name; also .tensors, .histograms, .images,
                        # .audio, .text, .hparams; .children, .tags, .raw_tags, .raw_events

The same constructor arguments and checks, properties and methods (`get_events`, `get_tags`,
`get_raw_tags`, `get_raw_events`, `children`, `reader[name]`, the static histogram, image and
audio helpers), and for every event type and every `pivot` / `extra_columns` combination the
same columns, dtypes, row order, index and values, on runs written by TensorFlow 1 and 2,
torch, tensorboardX and summarylib (tests/test_tbparse_compat.py compares them with tbparse's;
tbparse's own test suite runs against this class in tests/test_tbparse_suite.py). Files are
read once, by summarylib's reader, for every event type and every level of the directory
tree (a sweep of many runs by processes on the machine's cores, with a progress line on a
terminal); frames are made when an event type is first asked for.

What is not the same, and why:

- No TensorFlow is needed: images and audio are read by default (tbparse without TensorFlow
  leaves them out of the default `event_types` and raises ModuleNotFoundError for them).
  Images decode with pillow and audio with soundfile: the same arrays for 8-bit PNG, JPEG and
  GIF and 16-bit PCM WAV; a 16-bit PNG keeps its high byte (TensorFlow scales it to uint8,
  which may round the other way); WAVs TensorFlow cannot read (float, 24-bit) are read.
- Damaged records are skipped, and reading goes on after them (tbparse stops reading a file at
  the first); TensorBoard's purge of orphaned data after a `SessionLog.START` or a step going
  backwards in a file without a version is not applied (every written value is kept).
- `raw_events` holds dataclasses with the names and fields of TensorBoard's events, and
  summarylib's protos (the same fields), not TensorBoard's classes; bfloat16 tensors come
  back as float32 (numpy has no bfloat16).
- `log_path` may also be a URL of an object store or another fsspec filesystem
  (`s3://bucket/sweep`), opened with `storage_options` (fsspec's: credentials, endpoint, ...);
  tbparse reads local paths only.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

try:
    import pandas as pd
except ImportError as error:  # an optional dependency: the `pandas` extra
    raise ImportError("summarylib.tbparse needs pandas: pip install pandas") from error

from summarylib.format.storage import StorageOptions, join
from summarylib.reading.tbparse_columns import SESSION_START_TAG, file_frame
from summarylib.reading.tbparse_files import FileValues, key, read_files
from summarylib.reading.tbparse_helpers import Helpers
from summarylib.reading.tbparse_media import session_hparams
from summarylib.reading.tbparse_raw import accumulate
from summarylib.reading.tbparse_stack import prefixed, stack
from summarylib.reading.tbparse_sweep import read_all
from summarylib.reading.tbparse_tree import Tree

__all__ = ["SummaryReader"]

ALL_EVENT_TYPES = {"scalars", "tensors", "histograms", "images", "audio", "hparams", "text"}
ALL_EXTRA_COLUMNS = {
    "dir_name", "file_name", "wall_time", "min", "max", "num", "sum", "sum_squares",
    "width", "height", "content_type", "length_frames", "sample_rate",
}  # fmt: skip
# The event types in the order of tbparse's dictionaries of them.
_TYPE_ORDER = ("images", "audio", "histograms", "scalars", "tensors", "hparams", "text")
_RAW_TYPES = {*_TYPE_ORDER, "graph", "meta_graph", "run_metadata"}


@dataclass
class _Shared:
    """What every reader of one tree shares: the arguments, the entries, the values read."""

    pivot: bool
    extra_columns: set[str]
    event_types: set[str]
    storage_options: StorageOptions
    tree: Tree
    files: dict[str, FileValues]


class SummaryReader(Helpers):
    """The events of an event file, or of every event file under a directory, as DataFrames
    (see the module's docstring).

    `log_path`: a directory or an event file. `pivot`: one column per tag, the rows of a step
    merged (several values of a tag at one step become a list), instead of `tag` and `value`.
    `extra_columns`: a set of dir_name, file_name, wall_time, min, max, num, sum, sum_squares
    (histograms), width, height (images), content_type, length_frames, sample_rate (audio).
    `event_types`: the set of event types that may be asked for (all by default).
    `storage_options`: for a URL `log_path`'s filesystem (summarylib's; tbparse has none).
    ValueError when the path does not exist or an argument is not a set, KeyError for an
    unknown column or event type, as tbparse.
    """

    def __init__(
        self,
        log_path: str,
        *,
        pivot: bool = False,
        extra_columns: set[str] | None = None,
        event_types: set[str] | None = None,
        storage_options: StorageOptions = None,
    ) -> None:
        extras = (extra_columns or set()).copy()
        if not isinstance(extras, set):
            raise ValueError(f"`columns` should be a {set} instead of {type(extras)}")
        if extras - ALL_EXTRA_COLUMNS:
            raise KeyError(f"Invalid columns entries: {extras - ALL_EXTRA_COLUMNS}")
        types = (event_types or ALL_EVENT_TYPES).copy()
        if not isinstance(types, set):
            raise ValueError(f"`event_types` should be a {set} instead of {type(types)}")
        if types - ALL_EVENT_TYPES:
            raise KeyError(f"Invalid event types: {types - ALL_EVENT_TYPES}")
        tree = Tree(log_path, storage_options)
        if tree.kind(log_path) is None:
            raise ValueError(f"File or directory not found: {log_path}")
        files = read_all(log_path, storage_options=storage_options, files=tree.event_files())
        self._setup(log_path, _Shared(pivot, extras, types, storage_options, tree, files))

    def _setup(self, log_path: str, shared: _Shared) -> None:
        """Set the reader of `log_path` up, and its children: one per directory entry, sorted by
        name, sharing the values read once (`shared.files`)."""
        self._log_path = log_path
        self._pivot = shared.pivot
        self._extra_columns = shared.extra_columns
        self._event_types = shared.event_types
        self._storage_options = shared.storage_options
        self._kind = shared.tree.kind(log_path)
        self._frames: dict[str, pd.DataFrame] = {}
        self._values = None
        if "tfevents" in os.path.basename(log_path) and self._kind == "file":
            # One the walk of runs did not meet (under a symlinked directory) is read alone.
            found = shared.files.get(key(log_path))
            if found is None:
                found = read_files(log_path, shared.storage_options).get(key(log_path))
            self._values = found
        self._children: dict[str, SummaryReader] = {}
        if self._kind == "directory":
            for name in shared.tree.names(log_path):
                child = object.__new__(SummaryReader)
                child._setup(join(log_path, name), shared)
                self._children[name] = child

    @property
    def log_path(self) -> str:
        """The directory or event file read."""
        return self._log_path

    @property
    def children(self) -> dict[str, SummaryReader]:
        """{entry name: SummaryReader} of a directory's entries, in name order."""
        return self._children.copy()

    def __getitem__(self, child: str) -> SummaryReader:
        return self.children[child]

    def __repr__(self) -> str:
        return f"SummaryReader(log_path='{self.log_path}')"

    def get_events(self, event_type: str) -> pd.DataFrame:
        """The events of one type under `log_path` as a DataFrame, made anew at each call.
        ValueError for an unknown event type or one left out of `event_types`."""
        if event_type not in ALL_EVENT_TYPES:
            raise ValueError(f"Unknown event_type: {event_type}")
        if event_type not in self._event_types:
            raise ValueError(f"event_type is ignored by user: {event_type}")
        if self._kind == "file":
            frames = [self._file_frame(event_type).copy()]
        else:
            frames = []
            for name, child in self._children.items():
                frame = child.get_events(event_type)
                if child._kind == "directory":
                    frame = prefixed(frame, name)
                frames.append(frame)
            # Each level's result is sorted by the keys; an hparams file's frame is not.
            sorted_below = self._pivot or event_type != "hparams"
            return stack(frames, self._pivot, self._extra_columns, sorted_below=sorted_below)
        return stack(frames, self._pivot, self._extra_columns)

    def _file_frame(self, event_type: str) -> pd.DataFrame:
        if event_type not in self._frames:
            name = os.path.basename(self.log_path)
            self._frames[event_type] = file_frame(
                self._values, event_type, self._pivot, self._extra_columns, name
            )
        return self._frames[event_type]

    @property
    def scalars(self) -> pd.DataFrame:
        """`simple_value` scalars (torch, tensorboardX, TF 1); TF 2's scalars are tensors."""
        return self.get_events("scalars")

    @property
    def tensors(self) -> pd.DataFrame:
        """Tensor values (TF 2's scalars, histograms and images among them), but text and hparams."""
        return self.get_events("tensors")

    @property
    def histograms(self) -> pd.DataFrame:
        """Legacy `HistogramProto` histograms: counts, limits (and min, max, num, sum, sum_squares)."""
        return self.get_events("histograms")

    @property
    def images(self) -> pd.DataFrame:
        """Legacy `Summary.Image` images, decoded to uint8 arrays."""
        return self.get_events("images")

    @property
    def audio(self) -> pd.DataFrame:
        """Legacy `Summary.Audio` clips, decoded to float32 `[frames, channels]` arrays."""
        return self.get_events("audio")

    @property
    def hparams(self) -> pd.DataFrame:
        """The hparams of each file's session start info: tag (the hparam's name) and value."""
        return self.get_events("hparams")

    @property
    def text(self) -> pd.DataFrame:
        """Text values, tags without torch's and tensorboardX's `/text_summary`."""
        return self.get_events("text")

    @property
    def tags(self) -> dict[str, list[str]]:
        """{event type: tags}; see `get_tags`."""
        return {name: self._tags(name) for name in _TYPE_ORDER}

    def get_tags(self, event_type: str | None = None) -> list[str] | dict[str, list[str]]:
        """The tags of one event type (of every type, as a dict, when None), once each, in the
        order of the files and of their first values. ValueError for an unknown type."""
        if event_type is not None and event_type not in ALL_EVENT_TYPES:
            raise ValueError(f"Unknown event_type: {event_type}")
        types = [event_type] if event_type is not None else list(_TYPE_ORDER)
        tags = {name: self._tags(name) for name in types}
        return tags[event_type] if event_type is not None else tags

    def _tags(self, event_type: str) -> list[str]:
        if self._kind == "file":
            return self._file_tags(event_type)
        found = [tag for child in self._children.values() for tag in child._tags(event_type)]
        return list(dict.fromkeys(found))

    def _file_tags(self, event_type: str) -> list[str]:
        values = self._values
        if values is None or event_type not in self._event_types:
            return []
        if event_type == "hparams":
            content = values.contents.get("hparams", {}).get(SESSION_START_TAG)
            return list(session_hparams(content)) if content is not None else []
        if event_type == "text":
            return list(values.contents.get("text", {}))
        if event_type == "tensors":
            others = set(values.contents.get("text", {})) | set(values.contents.get("hparams", {}))
            return [tag for tag in values.kinds["tensors"].tags if tag not in others]
        return list(values.kinds[event_type].tags)

    @property
    def raw_tags(self) -> dict[str, Any]:
        """An event file's tags as TensorBoard's EventAccumulator files them; see `get_raw_tags`."""
        return self.get_raw_tags()

    def get_raw_tags(self, event_type: str | None = None) -> Any:
        """`EventAccumulator.Tags()` of an event file, with hparams and text, or one entry of
        it. ValueError for a directory or an unknown type."""
        if event_type is not None and event_type not in _RAW_TYPES:
            raise ValueError(f"Unknown event_type: {event_type}")
        if self._kind == "directory":
            raise ValueError(f"Not an event file: {self.log_path}")
        tags = accumulate(self.log_path, self._storage_options).tags()
        return tags if event_type is None else tags[event_type]

    @property
    def raw_events(self) -> dict[str, dict[str, Any]]:
        """An event file's events by event type and tag; see `get_raw_events`."""
        return self.get_raw_events()

    def get_raw_events(self, event_type: str | None = None, tag: str | None = None) -> Any:
        """An event file's raw events ({type: {tag: events}}, {tag: events} of a type, or the
        events of a tag); for hparams a tag's plugin content. ValueError for a directory or a
        tag without a type, KeyError for an unknown type or tag."""
        if self._kind == "directory":
            raise ValueError(f"Not an event file: {self.log_path}")
        if event_type is None and tag is not None:
            raise ValueError("tag shouldn't be set if event_type is None")
        found = accumulate(self.log_path, self._storage_options)

        def of_type(name: str) -> dict[str, Any]:
            if name == "hparams":
                return dict(found.contents.get("hparams", {}))
            if name == "text":
                return {t: found.events["tensors"][t] for t in found.contents.get("text", {})}
            return {t: list(events) for t, events in found.events[name].items()}

        if event_type is None:
            return {name: of_type(name) for name in _TYPE_ORDER}
        if event_type not in ALL_EVENT_TYPES:
            raise KeyError(event_type)
        events = of_type(event_type)
        return events if tag is None else events[tag]
