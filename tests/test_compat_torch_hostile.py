"""compat.torch's writer under hostile arguments (issue 19, items 2a, 3, 8 and 13): what a
method accepts is written, with its neighbours; what it cannot write is a ValueError or
TypeError at the call in the one error shape; nothing is written outside the log dir."""

from __future__ import annotations

import io
import os
import tracemalloc

import numpy as np
import pytest
from PIL import Image
from tensorboard.backend.event_processing import event_accumulator

from summarylib.compat.torch import SummaryWriter
from summarylib.compat.torch.histogram_bins import MAX_BUCKETS
from summarylib.reader import iter_values
from tests.tensorboard_data import read_blob_sequences, read_scalars


def tree(root) -> set[str]:
    """Every path under `root`, relative to it."""
    return {
        os.path.relpath(os.path.join(folder, name), root)
        for folder, folders, files in os.walk(root)
        for name in folders + files
    }


def neighbours(logdir: str) -> list[int]:
    """The steps of the valid `add_scalar("ok", ...)` events of the run, as TensorBoard reads them."""
    return [step for step, _ in read_scalars(logdir).get(".", {}).get("ok", [])]


@pytest.fixture
def writer(tmp_path):
    """A torch-style writer of `<tmp>/root/logs`, closed at the end."""
    writer = SummaryWriter(str(tmp_path / "root" / "logs"))
    yield writer
    writer.close()


def assert_error_shape(error: pytest.ExceptionInfo, method: str, argument: str) -> None:
    message = str(error.value)
    assert message.startswith(f"summarylib.{method}: tag "), message
    assert f"argument '{argument}" in message, message


# 2a: walltime -------------------------------------------------------------------------


@pytest.mark.parametrize("walltime", ["yesterday", [1.0], True, object(), 1j])
@pytest.mark.parametrize("method", ["add_scalar", "add_scalars", "add_histogram", "add_text", "add_summary"])
def test_a_walltime_that_is_not_a_number_is_a_type_error_and_its_neighbours_are_written(
    writer, method, walltime
):
    calls = {
        "add_scalar": lambda: writer.add_scalar("loss", 1.0, 1, walltime=walltime),
        "add_scalars": lambda: writer.add_scalars("loss", {"a": 1.0}, 1, walltime=walltime),
        "add_histogram": lambda: writer.add_histogram("loss", [1.0, 2.0], 1, walltime=walltime),
        "add_text": lambda: writer.add_text("loss", "x", 1, walltime=walltime),
        "add_summary": lambda: writer.add_summary(b"", 1, walltime=walltime),
    }
    writer.add_scalar("ok", 1.0, 0)
    with pytest.raises(TypeError) as error:
        calls[method]()
    assert_error_shape(error, method, "walltime")
    writer.add_scalar("ok", 1.0, 2)
    writer.flush()  # raised WriterError before: the batch with the bad walltime was dropped
    assert writer._writer.stats().errors == 0
    assert neighbours(writer.log_dir) == [0, 2]


@pytest.mark.parametrize("walltime", [float("nan"), float("inf"), -float("inf"), np.float32("nan"), 10**400])
def test_a_walltime_that_is_not_finite_is_a_value_error(writer, walltime):
    with pytest.raises(ValueError) as error:
        writer.add_scalar("loss", 1.0, 1, walltime=walltime)
    assert_error_shape(error, "add_scalar", "walltime")


@pytest.mark.parametrize("walltime", [1_700_000_000, 1.7e9, np.float32(1.7e9), np.int64(1_700_000_000), 0])
def test_walltimes_torch_takes_are_written_as_given(writer, walltime):
    writer.add_scalar("ok", 1.0, 3, walltime=walltime)
    writer.flush()
    (value,) = list(iter_values(writer.log_dir))
    assert value.wall_time == float(walltime)


@pytest.mark.parametrize(
    ("flush_secs", "kind"),
    [
        (None, TypeError),
        ("120", TypeError),
        (True, TypeError),
        (float("nan"), ValueError),
        (10**400, ValueError),
    ],
)
def test_a_flush_interval_that_is_no_finite_number_is_an_error_naming_it(tmp_path, flush_secs, kind):
    # None was a raw "unsupported operand type(s) for *" from inside the constructor.
    with pytest.raises(
        kind, match=r"^summarylib\.SummaryWriter: argument 'flush_secs': expected a (finite )?number"
    ):
        SummaryWriter(str(tmp_path), flush_secs=flush_secs)
    assert not os.listdir(tmp_path)  # no run was started


@pytest.mark.parametrize("flush_secs", [0, -1, 0.5, np.float32(2), 120])
def test_flush_intervals_torch_takes_are_taken(tmp_path, flush_secs):
    writer = SummaryWriter(str(tmp_path), flush_secs=flush_secs)
    writer.add_scalar("loss", 1.0, 0)
    writer.close()
    assert [v.step for v in iter_values(str(tmp_path))] == [0]


# 2a: strings --------------------------------------------------------------------------

SURROGATE = "bad\ud800"


@pytest.mark.parametrize(
    ("method", "argument", "call"),
    [
        ("add_scalar", "tag", lambda w: w.add_scalar(SURROGATE, 1.0, 1)),
        ("add_scalar", "tag", lambda w: w.add_scalar(SURROGATE, 1.0, 1, new_style=True)),
        ("add_scalars", "tag", lambda w: w.add_scalars(SURROGATE, {"a": 1.0}, 1)),
        ("add_scalars", "tag_scalar_dict", lambda w: w.add_scalars("m", {SURROGATE: 1.0}, 1)),
        ("add_histogram", "tag", lambda w: w.add_histogram(SURROGATE, [1.0], 1)),
        ("add_text", "tag", lambda w: w.add_text(SURROGATE, "x", 1)),
        ("add_image", "tag", lambda w: w.add_image(SURROGATE, np.zeros((3, 2, 2)), 1)),
        ("add_hparams", "hparam_dict", lambda w: w.add_hparams({SURROGATE: 1}, {"m": 1.0})),
        ("add_hparams", "hparam_dict", lambda w: w.add_hparams({"lr": SURROGATE}, {"m": 1.0})),
        ("add_hparams", "metric_dict", lambda w: w.add_hparams({"lr": 1}, {SURROGATE: 1.0})),
        ("add_hparams", "run_name", lambda w: w.add_hparams({"lr": 1}, {"m": 1.0}, run_name=SURROGATE)),
    ],
)
def test_a_lone_surrogate_in_a_string_argument_is_a_value_error_and_its_neighbours_are_written(
    writer, method, argument, call
):
    writer.add_scalar("ok", 1.0, 0)
    with pytest.raises(ValueError) as error:
        call(writer)
    message = str(error.value)
    assert message.startswith(f"summarylib.{method}: tag "), message
    assert f"argument '{argument}" in message, message
    writer.add_scalar("ok", 1.0, 2)
    writer.flush()
    assert writer._writer.stats().errors == 0
    assert neighbours(writer.log_dir) == [0, 2]


# 8: paths -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda w: w.add_scalars("m", {"/../../../../x": 1.0}, 1),
        lambda w: w.add_scalars("m", {"/../x": 1.0}, 1),
        lambda w: w.add_scalars("..", {"/../../x": 1.0}, 1),
        lambda w: w.add_scalars("m", {"a\0b": 1.0}, 1),
        lambda w: w.add_scalars("m", {"x" * 300: 1.0}, 1),
        lambda w: w.add_scalars("m", {"ok": 1.0, "/../../y": 2.0}, 1),
        lambda w: w.add_hparams({"lr": 1}, {"m": 1.0}, run_name="/abs"),
        lambda w: w.add_hparams({"lr": 1}, {"m": 1.0}, run_name="../../x"),
        lambda w: w.add_hparams({"lr": 1}, {"m": 1.0}, run_name="a/../../x"),
        lambda w: w.add_hparams({"lr": 1}, {"m": 1.0}, run_name="trial\udcff"),
        lambda w: w.add_hparams({"lr": 1}, {"m": 1.0}, run_name="t\0"),
        lambda w: w.add_hparams({"lr": 1}, {"m": 1.0}, run_name="é" * 128),
    ],
)
def test_run_names_that_leave_the_logdir_or_cannot_be_directories_are_a_value_error(tmp_path, call):
    writer = SummaryWriter(str(tmp_path / "root" / "logs"))
    writer.add_scalar("ok", 1.0, 0)
    writer.flush()
    before = tree(tmp_path)
    with pytest.raises(ValueError) as error:
        call(writer)
    assert str(error.value).startswith("summarylib.add_"), error.value
    writer.add_scalar("ok", 1.0, 2)
    writer.close()  # would raise WriterError for a failed background write
    assert tree(tmp_path) == before  # no series run, no directory, inside the logdir or out
    assert neighbours(writer.log_dir) == [0, 2]


def test_torch_run_names_of_valid_inputs_are_kept(tmp_path):
    logdir = str(tmp_path / "logs")
    with SummaryWriter(logdir) as writer:
        writer.add_scalars("a/b", {"x": 1.0, "y/z": 2.0, "..": 3.0}, 1)
        writer.add_scalars("..", {"w": 4.0}, 1)
        writer.add_hparams({"lr": 0.1}, {"m": 1.0}, run_name="trial/1")
    runs = read_scalars(logdir)
    assert {"a_b_x", "a_b_y/z", "a_b_..", ".._w", "trial/1"} <= set(runs)
    assert runs["a_b_.."]["a/b"] == [(1, 3.0)]


# 13: one error shape -----------------------------------------------------------------


def test_add_hparams_with_a_domain_that_is_not_a_dict_is_a_type_error(writer):
    with pytest.raises(TypeError) as error:
        writer.add_hparams({"lr": 1}, {"m": 1.0}, hparam_domain_discrete=5)
    assert_error_shape(error, "add_hparams", "hparam_domain_discrete")


@pytest.mark.parametrize("argument", ["hparam_dict", "metric_dict"])
def test_add_hparams_with_dicts_that_are_not_dicts_is_a_type_error(writer, argument):
    arguments = {"hparam_dict": {"lr": 1}, "metric_dict": {"m": 1.0}, argument: [1]}
    with pytest.raises(TypeError) as error:
        writer.add_hparams(**arguments)
    assert_error_shape(error, "add_hparams", argument)


# 3: bounded histogram buckets ---------------------------------------------------------

OUTLIER = np.append(np.random.default_rng(0).normal(size=1000), 1e7)


def histogram_of(logdir: str, tag: str):
    """The one histogram of `tag`, as TensorBoard's EventAccumulator reads TF 1.x `histo` values."""
    accumulator = event_accumulator.EventAccumulator(logdir, size_guidance={"histograms": 0})
    accumulator.Reload()
    (event,) = accumulator.Histograms(tag)
    return event.histogram_value


@pytest.mark.parametrize(
    ("bins", "values", "max_bins"),
    [
        (2 * 10**7, np.arange(1000.0), None),
        (2 * 10**7, np.arange(1000.0), 100),
        ("fd", OUTLIER, None),
        ("scott", OUTLIER, None),
        ("fd", OUTLIER, 50),
    ],
)
def test_add_histogram_counts_a_bounded_number_of_buckets(writer, bins, values, max_bins):
    tracemalloc.start()
    try:
        writer.add_histogram("h", values, 1, bins=bins, max_bins=max_bins)
        writer.flush()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20  # numpy asked for 2e7 or 4e7 buckets: 300 MB and more
    histogram = histogram_of(writer.log_dir, "h")
    limit = MAX_BUCKETS if max_bins is None else max_bins
    assert len(histogram.bucket) <= 2 * limit
    assert sum(histogram.bucket) == values.size
    assert histogram.min == values.min() and histogram.max == values.max()


def test_add_histogram_with_few_buckets_is_numpys(writer):
    values = np.random.default_rng(1).normal(size=500)
    writer.add_histogram("h", values, 1, bins="fd")
    writer.flush()
    counts, edges = np.histogram(values, bins="fd")
    histogram = histogram_of(writer.log_dir, "h")
    assert histogram.bucket[1:] == counts.tolist()[: len(histogram.bucket) - 1]
    assert np.allclose(histogram.bucket_limit, edges[: len(histogram.bucket_limit)])  # a left edge first


# 3: rescale, fps ----------------------------------------------------------------------

IMAGE = np.zeros((3, 8, 8))
BOXES = np.array([[1.0, 1.0, 4.0, 4.0]])


@pytest.mark.parametrize(
    ("rescale", "error"),
    [
        (1e300, ValueError),
        (0, ValueError),
        (-1, ValueError),
        (float("nan"), ValueError),
        (1e-300, ValueError),
        (float("inf"), ValueError),
        ("2", TypeError),
        (np.array([1.0, 2.0]), TypeError),
        (10**400, ValueError),
    ],
)
def test_add_image_with_boxes_rescale_that_cannot_be_drawn_is_an_error_at_the_call(writer, rescale, error):
    writer.add_scalar("ok", 1.0, 0)
    with pytest.raises(error) as raised:
        writer.add_image_with_boxes("b", IMAGE, BOXES, 1, rescale=rescale)
    assert_error_shape(raised, "add_image_with_boxes", "rescale")
    writer.add_scalar("ok", 1.0, 2)
    writer.flush()
    assert neighbours(writer.log_dir) == [0, 2]


@pytest.mark.parametrize("labels", [1, 2.5, object()])
def test_add_image_with_boxes_labels_that_are_no_sequence_are_an_error_at_the_call(writer, labels):
    # torch's own raises a bare TypeError from len(labels) deep in the call
    writer.add_scalar("ok", 1.0, 0)
    with pytest.raises(TypeError) as raised:
        writer.add_image_with_boxes("b", IMAGE, BOXES, 1, labels=labels)
    assert_error_shape(raised, "add_image_with_boxes", "labels")
    writer.add_scalar("ok", 1.0, 2)
    writer.flush()
    assert neighbours(writer.log_dir) == [0, 2]


@pytest.mark.parametrize("rescale", [0.5, 2, np.float32(3.0), 100])
def test_add_image_with_boxes_rescale_is_the_written_size(writer, rescale):
    """The PNG is rescaled; its Summary.Image states the size before, as torch's does."""
    writer.add_image_with_boxes("b", IMAGE, BOXES, 1, rescale=rescale)
    writer.flush()
    (image,) = read_blob_sequences(writer.log_dir, "images")["."]["b"]
    assert [int(x) for x in image[1][:2]] == [8, 8]
    size = int(8 * float(rescale))
    assert Image.open(io.BytesIO(image[1][2])).size == (size, size)


@pytest.mark.parametrize(
    ("fps", "error"),
    [
        (0, ValueError),
        (-1, ValueError),
        (1e-300, ValueError),
        (1e-3, ValueError),
        (float("nan"), ValueError),
        (float("inf"), ValueError),
        ("4", TypeError),
        (None, TypeError),
        (np.array([4, 4]), TypeError),
    ],
)
def test_add_video_fps_a_gif_cannot_show_is_an_error_at_the_call(writer, fps, error):
    writer.add_scalar("ok", 1.0, 0)
    with pytest.raises(error) as raised:
        writer.add_video("v", np.zeros((1, 2, 3, 4, 4)), 1, fps=fps)
    assert_error_shape(raised, "add_video", "fps")
    writer.add_scalar("ok", 1.0, 2)
    writer.flush()
    assert neighbours(writer.log_dir) == [0, 2]


@pytest.mark.parametrize(("fps", "delay_ms"), [(0.002, 500000), (1 / 655.35, 655350), (4, 250), (1e6, 10)])
def test_add_video_writes_the_delay_closest_to_fps(writer, fps, delay_ms):
    video = np.zeros((1, 2, 3, 4, 4))
    video[0, 1] = 1.0  # two different frames (pillow merges equal ones)
    writer.add_video("v", video, 1, fps=fps)
    writer.flush()
    (image,) = read_blob_sequences(writer.log_dir, "images")["."]["v"]
    gif = Image.open(io.BytesIO(image[1][2]))
    assert gif.n_frames == 2 and gif.info["duration"] == delay_ms


@pytest.mark.parametrize("tag", ["a\0b", "x" * 256, "é" * 128, "..", "bad\udcff"])
def test_add_embedding_tags_that_cannot_name_a_directory_are_an_error_at_the_call(tmp_path, tag):
    writer = SummaryWriter(str(tmp_path / "root" / "logs"))
    writer.add_scalar("ok", 1.0, 0)
    writer.flush()
    before = tree(tmp_path)
    with pytest.raises(ValueError) as error:
        writer.add_embedding(np.zeros((3, 2)), global_step=1, tag=tag)
    assert str(error.value).startswith("summarylib."), error.value
    writer.add_scalar("ok", 1.0, 2)
    writer.close()
    assert tree(tmp_path) == before
    assert neighbours(writer.log_dir) == [0, 2]


@pytest.mark.parametrize(
    ("values", "bins"),
    [
        ([4.5036e15], "fd"),  # numpy: "Too many bins for data range", on the writer's thread
        ([4.5036e15], 5),
        ([-1.7e308, 1.7e308], "fd"),  # numpy: the spread overflows
        ([-1.7e308, 1.7e308], 10),
        ([4.5e15, 4.5e15 + 1], 3),
    ],
)
def test_add_histogram_of_values_float64_cannot_split_is_written(writer, values, bins):
    writer.add_histogram("h", np.array(values), 1, bins=bins)
    writer.flush()  # raised WriterError: the event failed to encode
    histogram = histogram_of(writer.log_dir, "h")
    assert sum(histogram.bucket) == len(values)
    assert histogram.min == min(values) and histogram.max == max(values)


# 13: found by tests/test_hostile_torch.py ---------------------------------------------


@pytest.mark.parametrize(
    ("method", "argument", "call"),
    [
        ("add_image", "dataformats", lambda w: w.add_image("i", np.float16(0), dataformats="")),
        ("add_histogram_raw", "min", lambda w: w.add_histogram_raw("h", None, 1, 1, 1, 1, [1.0], [1.0])),
        ("add_figure", "figure", lambda w: w.add_figure("f", 5)),
        ("add_figure", "figure", lambda w: w.add_figure("f", [])),
        ("add_scalar", "new_style", lambda w: w.add_scalar("s", 1.0, new_style=np.array([True, False]))),
        ("add_custom_scalars_marginchart", "tags", lambda w: w.add_custom_scalars_marginchart(None)),
        ("add_text", "global_step", lambda w: w.add_text("t", "x", global_step=np.array([1, 2]))),
    ],
)
def test_fuzz_findings_are_errors_in_the_one_shape(writer, method, argument, call):
    with pytest.raises((TypeError, ValueError)) as error:
        call(writer)
    assert_error_shape(error, method, argument)
