"""summarylib.tbparse.SummaryReader gives tbparse's DataFrames: the same columns, dtypes, row
order, index and values as tbparse's own SummaryReader on the same logdirs, for every event
type tbparse reads without TensorFlow and every pivot / extra_columns combination, on runs
written by torch, tensorboardX, summarylib's v2 ops (TensorFlow 2's format) and its compat.v1
ops (TensorFlow 1's). Images and audio, which tbparse reads only with TensorFlow, are checked
against the arrays that were logged. tbparse comes from the test extra (or from
SUMMARYLIB_TBPARSE_PATH, a directory holding the package).
"""

from __future__ import annotations

import importlib
import itertools
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

pd = pytest.importorskip("pandas")

from summarylib.reading.tbparse_stack import merge_values, stack  # noqa: E402
from summarylib.tbparse import SummaryReader  # noqa: E402

TYPES = ["scalars", "tensors", "histograms", "hparams", "text"]
EXTRAS = [
    set(),
    {"wall_time"},
    {"dir_name"},
    {"file_name"},
    {"wall_time", "dir_name", "file_name"},
    {"min", "max", "num", "sum", "sum_squares"},
]
WRITERS = ["torch", "tensorboardX", "summarylib_v2", "summarylib_v1"]


def _tbparse() -> ModuleType:
    extra = os.environ.get("SUMMARYLIB_TBPARSE_PATH")
    if extra and extra not in sys.path:
        sys.path.append(extra)
    try:
        return importlib.import_module("tbparse")
    except ImportError:
        pytest.skip("tbparse is not installed (the test extra), nor at SUMMARYLIB_TBPARSE_PATH")


def _write_torch(logdir: Path, writer_class: Any) -> None:
    """Two runs (one with a nested run of hparams) of every kind tbparse reads."""
    for run in range(2):
        writer = writer_class(str(logdir / f"run{run}"))
        for step in range(4):
            writer.add_scalar("loss", 1.0 / (step + 1) + run, step)
            writer.add_scalar("acc/top1", step * 0.25, step)
            writer.add_scalar("loss", 5.0 + step, step)  # a second value at one step
            writer.add_histogram("weights", np.linspace(-1, 1, 50) * (step + 1), step)
        writer.add_text("note", f"run {run}", 0)
        writer.add_text("note", "later", 3)
        writer.add_hparams(
            {"lr": 0.1 * (run + 1), "name": f"n{run}", "flag": bool(run)}, {"metric": float(run)}
        )
        writer.close()
    (logdir / "notes.txt").write_text("not an event file")


def _write_summarylib_v2(logdir: Path) -> None:
    import summarylib as sl

    for run in range(2):
        with sl.create_file_writer(str(logdir / f"run{run}")) as writer, writer.as_default():
            sl.hparams.hparams({"lr": 0.1 * (run + 1), "optimizer": "adam"})
            for step in range(4):
                sl.scalar("loss", 1.0 / (step + 1) + run, step=step)
                sl.histogram("weights", np.linspace(-1, 1, 50) * (step + 1), step=step)
                sl.text("note", f"step {step}", step=step)
            sl.image("picture", np.full((1, 4, 5, 3), 0.5), step=0)  # TF 2's images and audio
            sl.audio("tone", np.zeros((1, 100, 1)), 8000, step=0)  # are string tensors


def _write_summarylib_v1(logdir: Path) -> None:
    from summarylib.compat import v1

    for run in range(2):
        writer = v1.FileWriter(str(logdir / f"run{run}"))
        for step in range(4):
            writer.add_summary(v1.scalar("loss", 1.0 / (step + 1) + run), step)
            writer.add_summary(v1.histogram("weights", np.linspace(-1, 1, 50) * (step + 1)), step)
            writer.add_summary(v1.text("note", f"step {step}"), step)
        writer.close()


@pytest.fixture(scope="module")
def logdirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tbparse")
    paths = {name: root / name for name in WRITERS}
    torch_tensorboard = pytest.importorskip("torch.utils.tensorboard")
    tensorboard_x = pytest.importorskip("tensorboardX")
    _write_torch(paths["torch"], torch_tensorboard.SummaryWriter)
    _write_torch(paths["tensorboardX"], tensorboard_x.SummaryWriter)
    _write_summarylib_v2(paths["summarylib_v2"])
    _write_summarylib_v1(paths["summarylib_v1"])
    return paths


def _events(reader: Any, event_type: str) -> Any:
    """The frame, or the class of the error reading it raised."""
    try:
        return reader.get_events(event_type)
    except Exception as error:  # tbparse's errors are part of its behaviour
        return type(error)


def _same_value(ours: Any, theirs: Any) -> bool:
    """Cells are the same: arrays of one dtype and shape and equal elements, lists of the same
    values, scalars of one type that are equal (or both NaN)."""
    if isinstance(theirs, np.ndarray):
        return (
            isinstance(ours, np.ndarray)
            and ours.dtype == theirs.dtype
            and ours.shape == theirs.shape
            and bool(np.array_equal(ours, theirs, equal_nan=theirs.dtype.kind == "f"))
        )
    if isinstance(theirs, list):
        return isinstance(ours, list) and len(ours) == len(theirs) and all(map(_same_value, ours, theirs))
    if type(ours) is not type(theirs):
        return False
    return bool(ours == theirs) or bool(pd.isna(ours) and pd.isna(theirs))


def _assert_same(ours: Any, theirs: Any) -> None:
    """The same frame (columns, dtypes, index, values), or the same error class."""
    if isinstance(theirs, type):
        assert ours is theirs
        return
    assert ours.columns.to_list() == theirs.columns.to_list()
    assert ours.dtypes.to_list() == theirs.dtypes.to_list()
    pd.testing.assert_index_equal(ours.index, theirs.index)
    for name in theirs.columns:
        if theirs[name].dtype == object:
            pairs = zip(ours[name], theirs[name], strict=True)
            different = [i for i, pair in enumerate(pairs) if not _same_value(*pair)]
            assert not different, (name, different[:5])
        else:
            pd.testing.assert_series_equal(ours[name], theirs[name], check_exact=True)


@pytest.mark.parametrize("writer", WRITERS)
def test_the_dataframes_are_tbparse_s(logdirs: dict[str, Path], writer: str) -> None:
    tbparse = _tbparse()
    path = str(logdirs[writer])
    for pivot, extras in itertools.product([False, True], EXTRAS):
        options = {"pivot": pivot, "extra_columns": extras, "event_types": set(TYPES)}
        theirs, ours = tbparse.SummaryReader(path, **options), SummaryReader(path, **options)
        for event_type in TYPES:
            _assert_same(_events(ours, event_type), _events(theirs, event_type))
        assert ours.tags == theirs.tags
        assert list(ours.children) == list(theirs.children)


@pytest.mark.parametrize("writer", ["torch", "summarylib_v1"])
def test_an_event_file_and_its_raw_view_are_tbparse_s(logdirs: dict[str, Path], writer: str) -> None:
    tbparse = _tbparse()
    run = logdirs[writer] / "run0"
    (event_file,) = sorted(p for p in run.iterdir() if "tfevents" in p.name)
    theirs, ours = tbparse.SummaryReader(str(event_file)), SummaryReader(str(event_file))
    for event_type in TYPES:
        _assert_same(_events(ours, event_type), _events(theirs, event_type))
    raw_tags = theirs.raw_tags
    assert ours.raw_tags == {key: raw_tags[key] for key in ours.raw_tags}
    for tag, events in theirs.get_raw_events("scalars").items():
        fields = [(e.wall_time, e.step, e.value) for e in events]
        assert [(e.wall_time, e.step, e.value) for e in ours.get_raw_events("scalars", tag)] == fields
    assert ours.get_raw_events("hparams") == theirs.get_raw_events("hparams")


def test_the_argument_checks_are_tbparse_s(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not found"):
        SummaryReader(str(tmp_path / "missing"))
    with pytest.raises(ValueError):
        SummaryReader(str(tmp_path), extra_columns=["dir_name"])  # type: ignore[arg-type]
    with pytest.raises(KeyError):
        SummaryReader(str(tmp_path), extra_columns={"colour"})
    with pytest.raises(KeyError):
        SummaryReader(str(tmp_path), event_types={"video"})
    with pytest.raises(ValueError, match="ignored"):
        SummaryReader(str(tmp_path), event_types={"tensors"}).get_events("scalars")
    assert SummaryReader(str(tmp_path)).scalars.columns.to_list() == []


def test_images_and_audio_are_read_without_tensorflow(tmp_path: Path) -> None:
    """torch's images as the uint8 arrays it encodes, its audio as 16-bit samples in [-1, 1)."""
    pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")
    from torch.utils.tensorboard import SummaryWriter

    image = np.linspace(0, 1, 3 * 6 * 8).reshape(3, 6, 8)
    clip = np.sin(np.linspace(0, 20, 800)) * 0.5
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_image("picture", image, 2)
        writer.add_audio("tone", clip, 2, sample_rate=8000)
    extras = {"width", "height", "content_type", "length_frames", "sample_rate"}
    images = SummaryReader(str(tmp_path), extra_columns=extras).images
    assert images.columns.to_list() == ["step", "tag", "value", "height", "width"]
    expected = (image.astype(np.float32).transpose(1, 2, 0) * 255).astype(np.uint8)
    np.testing.assert_array_equal(images["value"][0], expected)
    assert (images["step"][0], images["height"][0], images["width"][0]) == (2, 6, 8)
    audio = SummaryReader(str(tmp_path), extra_columns=extras, pivot=True).audio
    assert audio.columns.to_list() == [
        "step",
        "tone",
        "tone/content_type",
        "tone/length_frames",
        "tone/sample_rate",
    ]
    samples = audio["tone"][0]
    assert samples.dtype == np.float32 and samples.shape == (800, 1)
    expected_samples = (np.clip(clip, -1, 1) * 32767).astype(np.int16) / 32768
    np.testing.assert_allclose(samples[:, 0], expected_samples, atol=1 / 32768)
    assert (audio["tone/sample_rate"][0], audio["tone/length_frames"][0]) == (8000, 800)


@pytest.mark.parametrize(
    "column",
    [
        [1, np.nan, 3, np.nan],
        [True, np.nan, False, np.nan],
        [True, False, True, True],
        ["a", np.nan, "b", np.nan],
        [1, "x", np.nan, 2.5],
        [np.nan] * 4,
        [b"a", np.nan, b"b", np.nan],
        [np.zeros(2), np.nan, np.ones(2), np.nan],
        [[1.0, 2.0], np.nan, 3.0, np.nan],
    ],
)
@pytest.mark.parametrize("steps", [[0, 1, 2, 3], [0, 0, 1, 2], [0, 0, 0, 0]])
def test_pivoting_merges_as_tbparse_does_value_by_value(column: list[Any], steps: list[int]) -> None:
    """Columns of at most one value a step are merged at numpy's speed: as value by value."""
    frame = pd.DataFrame.from_dict({"step": steps, "tag": column})
    by_value = frame.groupby(["step"], sort=False).aggregate(merge_values).reset_index()
    fast = stack([frame], pivot=True, extra_columns=set())
    _assert_same(fast, by_value)


def test_a_sweep_read_by_worker_processes_is_read_as_in_one(logdirs: dict[str, Path]) -> None:
    """The values of every file, read by two worker processes: the same as read in one."""
    from summarylib.reading.tbparse_files import read_files
    from summarylib.reading.tbparse_sweep import read_all

    path = str(logdirs["torch"])
    by_workers, in_one = read_all(path, workers=2), read_files(path)
    assert by_workers.keys() == in_one.keys()
    for file, values in in_one.items():
        assert by_workers[file].contents == values.contents
        for kind, expected in values.kinds.items():
            got = by_workers[file].kinds[kind]
            assert got.tags == expected.tags
            for name in ("tag", "step", "wall_time", "number"):
                np.testing.assert_array_equal(getattr(got, name), getattr(expected, name))
            assert got.protos == expected.protos


def test_a_sweep_whose_directory_order_is_not_its_dir_name_order_is_tbparse_s(tmp_path: Path) -> None:
    """Runs whose names sort one way as directories and another as dir_names ("a" holding
    "b" before "a-c", but "a-c" before "a/b"), runs of several files, and an event file
    beside the runs: the rows come in tbparse's order."""
    tbparse = _tbparse()
    from summarylib.compat.torch import SummaryWriter

    for run, start in (("a/b", 0), ("a-c", 1), ("a", 2), ("z", 3), ("z", 4), (".", 5)):
        with SummaryWriter(str(tmp_path / run), filename_suffix=f".{start}") as writer:
            for step in range(3):
                writer.add_scalar("loss", start + step * 0.5, step + start % 2)
                writer.add_scalar("acc", start - step * 0.5, step)
    for pivot, extras in itertools.product([False, True], EXTRAS):
        options = {"pivot": pivot, "extra_columns": extras, "event_types": {"scalars"}}
        theirs = tbparse.SummaryReader(str(tmp_path), **options)
        _assert_same(_events(SummaryReader(str(tmp_path), **options), "scalars"), _events(theirs, "scalars"))


def test_a_worker_that_fails_is_an_error_naming_the_read_and_options_it_cannot_take_stay_here(
    tmp_path: Path,
) -> None:
    """A file gone between the listing and the read fails its worker: a RuntimeError with the
    worker's traceback, not a frame with that worker's files missing. Storage options that
    cannot go to another process (a callable) are read with in this process."""
    from summarylib.compat.torch import SummaryWriter
    from summarylib.reading.tbparse_sweep import read_all

    for run in range(3):
        with SummaryWriter(str(tmp_path / f"run{run}")) as writer:
            writer.add_scalar("loss", float(run), 0)
    files = sorted(str(file) for file in tmp_path.rglob("*tfevents*"))
    assert len(read_all(str(tmp_path), workers=2, storage_options={"token": lambda: "secret"})) == 3
    gone = str(tmp_path / "gone" / "events.out.tfevents.1")
    failed = r"a worker reading .* ended with status 1(.|\n)*FileNotFoundError"
    with pytest.raises(RuntimeError, match=failed):
        read_all(str(tmp_path), workers=2, files=[*files, gone])
