"""summarylib.compat.torch's writer: its v1 scalar events, add_scalars' bounded series
files, the run's lifecycle (purge_step, reopen after close, walltime) and imports."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")

import torch
from hypothesis import given
from hypothesis import strategies as st
from tensorboard.backend.event_processing import event_accumulator
from torch.utils.tensorboard import SummaryWriter as TorchWriter

import summarylib.compat.tensorboardX as compat_tensorboardx
from summarylib.compat.legacy_scalar import simple_value_event
from summarylib.compat.legacy_values import scalar_value
from summarylib.compat.torch import SummaryWriter
from summarylib.proto import event_pb2, summary_pb2
from tests.tensorboard_data import read_scalars, read_wall_times


@given(
    tag=st.text(min_size=1, max_size=300),
    step=st.integers(-(1 << 63), (1 << 63) - 1),
    wall_time=st.one_of(st.just(0.0), st.just(-0.0), st.floats(allow_nan=False)),
    value=st.floats(allow_nan=False, width=64),
)
def test_simple_value_event_is_what_protobuf_serializes(tag, step, wall_time, value):
    expected_value = (
        float(np.float64(value).astype(np.float32)) if abs(value) < 3.5e38 else np.copysign(np.inf, value)
    )
    expected = event_pb2.Event(
        wall_time=wall_time, step=step, summary=summary_pb2.Summary(value=[scalar_value(tag, expected_value)])
    )
    assert simple_value_event(wall_time, step, tag, value) == expected.SerializeToString()


def test_event_accumulator_reads_add_scalar_as_simple_values(tmp_path):
    with SummaryWriter(str(tmp_path)) as writer:
        for step in range(5):
            writer.add_scalar("loss", torch.tensor(step / 4), step)
    accumulator = event_accumulator.EventAccumulator(str(tmp_path))
    accumulator.Reload()
    assert [(s.step, s.value) for s in accumulator.Scalars("loss")] == [(i, i / 4) for i in range(5)]


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_add_scalars_with_2000_keys_keeps_descriptors_bounded(tmp_path):
    before = open_fds()
    writer = SummaryWriter(str(tmp_path), max_queue=1000)
    peak = 0
    for step in range(3):
        writer.add_scalars("series", {f"k{index}": index + step for index in range(2000)}, step)
        writer.flush()
        peak = max(peak, open_fds())
    writer.close()
    assert peak - before <= 40  # the run's file and at most 32 series files
    assert open_fds() <= before
    runs = read_scalars(str(tmp_path))
    assert len(runs) == 2000
    for index in (0, 999, 1999):
        assert runs[f"series_k{index}"] == {"series": [(step, index + step) for step in range(3)]}


@pytest.mark.parametrize("writer_class", [SummaryWriter, TorchWriter], ids=["ours", "torch"])
def test_purge_step_hides_the_tail_of_a_crashed_attempt(tmp_path, writer_class):
    # TensorBoard takes a run's first SessionLog.START as its start, later ones as restarts.
    with writer_class(str(tmp_path), purge_step=0) as writer:
        for step in range(10):
            writer.add_scalar("loss", step, step)
    with writer_class(str(tmp_path), purge_step=5) as writer:
        for step in range(5, 8):
            writer.add_scalar("loss", step * 10, step)
    expected = [(s, s) for s in range(5)] + [(s, s * 10) for s in range(5, 8)]
    assert read_scalars(str(tmp_path))["."]["loss"] == expected


def test_logging_after_close_reopens_like_torch(tmp_path):
    writer = SummaryWriter(str(tmp_path))
    writer.add_scalar("loss", 1.0, 1)
    writer.close()
    writer.add_scalar("loss", 2.0, 2)
    writer.add_scalars("m", {"a": 3.0}, 3)
    writer.close()
    assert read_scalars(str(tmp_path)) == {".": {"loss": [(1, 1.0), (2, 2.0)]}, "m_a": {"m": [(3, 3.0)]}}


def test_walltime_is_honoured_and_no_step_is_zero(tmp_path):
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_scalar("a", 1.0, walltime=1234.5)
        writer.add_scalar("b", 1.0, 3, walltime=99.0, new_style=True)
        writer.add_scalars("c", {"x": 1.0}, walltime=77.0)
        writer.add_histogram("h", [1.0, 2.0], walltime=55.0)
    assert read_wall_times(str(tmp_path)) == {".": {"a": [1234.5], "b": [99.0]}, "c_x": {"c": [77.0]}}
    assert read_scalars(str(tmp_path))["."]["a"] == [(0, 1.0)]


def test_default_log_dir_is_runs_time_host_comment(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with SummaryWriter(comment="_lr0.1") as writer:
        logdir = writer.get_logdir()
    assert logdir.startswith("runs" + os.sep) and logdir.endswith("_lr0.1")
    assert os.listdir(logdir)


def test_tensorboardx_writer_is_a_subclass_and_onnx_graphs_are_refused(tmp_path):
    """tensorboardX's writer is ours with its own signatures (tests/test_compat_tensorboardx.py),
    so whatever ours gains it has."""
    assert issubclass(compat_tensorboardx.SummaryWriter, SummaryWriter)
    with SummaryWriter(str(tmp_path)) as writer, pytest.raises(NotImplementedError, match="ONNX"):
        writer.add_onnx_graph("model.onnx")


def test_add_event_and_add_summary_take_tensorboards_protos(tmp_path):
    from tensorboard.compat.proto import event_pb2 as tb_event_pb2
    from tensorboard.compat.proto import summary_pb2 as tb_summary_pb2

    summary = tb_summary_pb2.Summary(value=[tb_summary_pb2.Summary.Value(tag="s", simple_value=2.0)])
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_summary(summary, 4)
        writer.add_event(tb_event_pb2.Event(summary=summary), step=5)
    assert read_scalars(str(tmp_path))["."]["s"] == [(4, 2.0), (5, 2.0)]


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda w: w.add_scalar("x", [1.0, 2.0]), ValueError, r"add_scalar: tag 'x'.*shape \[2\]"),
        (lambda w: w.add_scalar("x", "high"), TypeError, "add_scalar: tag 'x'"),
        (lambda w: w.add_scalar("x", 1.0, 1.5), ValueError, "non-integral"),
        (lambda w: w.add_scalars("m", [1.0]), TypeError, "tag_scalar_dict"),
        (lambda w: w.add_histogram("h", [1.0], bins="nope"), ValueError, "'bins'"),
        (lambda w: w.add_histogram("h", [], bins=3), ValueError, r"shape \[0\]"),
        (lambda w: w.add_histogram_raw("h", 0, 1, 1, 1, 1, [1, 2], [1]), ValueError, "bucket_counts"),
        (lambda w: w.add_image("i", np.zeros((3, 4))), ValueError, r"3 dimensions.*'CHW'.*\[3, 4\]"),
        (lambda w: w.add_image("i", np.zeros((4, 4, 2)), dataformats="HWC"), ValueError, "channels"),
        (lambda w: w.add_images("i", np.zeros((2, 3, 4, 4)), dataformats="NCHH"), ValueError, "dataformats"),
        (lambda w: w.add_image_with_boxes("i", np.zeros((3, 4, 4)), [1, 2]), ValueError, "box_tensor"),
        (lambda w: w.add_video("v", np.zeros((2, 3, 4))), ValueError, r"\[N, T, C, H, W\]"),
        (lambda w: w.add_audio("a", np.zeros((2, 10))), ValueError, "mono"),
        (lambda w: w.add_text("t", 3), TypeError, "text_string"),
        (lambda w: w.add_pr_curve("p", [0, 2], [0.1, 0.2]), ValueError, "labels"),
        (lambda w: w.add_custom_scalars_marginchart(["a"]), ValueError, "3 tags"),
        (lambda w: w.add_hparams([("a", 1)], {}), TypeError, "argument 'hparam_dict': expected a dict"),
    ],
)
def test_bad_input_is_an_error_at_the_call_naming_method_and_argument(tmp_path, call, error, words):
    with SummaryWriter(str(tmp_path)) as writer:
        with pytest.raises(error, match=words):
            call(writer)
        writer.add_scalar("still_fine", 1.0, 1)
    assert read_scalars(str(tmp_path))["."]["still_fine"] == [(1, 1.0)]
