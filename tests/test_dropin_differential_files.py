"""The differential suite's program (every method of torch's writer, with realistic
inputs) through torch's and tensorboardX's own writers and through the drop-ins: the
files compared as readers written for the anchors' files read them, value for value:
the raw protos of every run (value kinds and fields; PNG, GIF and WAV bytes compared by
what they decode to) and TensorBoard's `EventAccumulator` (`Scalars`, `Images`, `Audio`,
`Histograms`, `Tensors`).

What may differ, and why: the encoders' bytes (compared decoded), a histogram's sum of
squares past its 12th digit (torch's is BLAS's dot product, in the BLAS build's order), the graph (an event of
its own, not a summary value: compared in test_compat_torch_differential.py, node names
coming from another tracer) and add_video (torch and tensorboardX need moviepy, not
installed here, and write an empty value without it; not called). With tensorboardX, an
image of floats outside [0, 1] (`image/out_of_range`): tensorboardX casts `x * 255` to
uint8 without clipping, which numpy leaves undefined (platform-dependent wrap-around, a
RuntimeWarning in numpy 2); torch and both drop-ins clip."""

from __future__ import annotations

import pytest

pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")
pytest.importorskip("tensorboardX", reason="tensorboardX is not installed (the frameworks extra)")
pytest.importorskip("matplotlib", reason="matplotlib is not installed (the frameworks extra)")

import os

import numpy as np
import tensorboardX
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.util import tensor_util
from torch.utils.tensorboard import SummaryWriter as TorchWriter

from summarylib.compat import tensorboardX as compat_tensorboardx
from summarylib.compat.torch import SummaryWriter
from tests.dropin_files import _decoded, decoded_values, run_metadata, run_values, same_to_the_last_bits
from tests.test_compat_torch_differential import program

# Tags whose values may differ, by anchor (the module docstring says why).
INTENDED = {"torch": set(), "tensorboardX": {"image/out_of_range"}}
ANCHORS = {
    "torch": (TorchWriter, SummaryWriter),
    "tensorboardX": (tensorboardX.SummaryWriter, compat_tensorboardx.SummaryWriter),
}


class TensorboardXCalls:
    """The program's calls as tensorboardX takes them: its `add_scalar` has no
    `new_style`, and it has no `add_tensor` (those calls are left out); it takes a
    clip as `[frames]` or `[frames, channels]`, not torch's `[1, frames]`."""

    def __init__(self, writer) -> None:
        self._writer = writer

    def __getattr__(self, name: str):
        if not hasattr(tensorboardX.SummaryWriter, name):
            return lambda *arguments, **keywords: None
        return getattr(self._writer, name)

    def add_audio(self, tag: str, clip, *arguments, **keywords) -> None:
        self._writer.add_audio(tag, np.asarray(clip).reshape(-1), *arguments, **keywords)

    def add_scalar(self, *arguments, new_style: bool = False, double_precision: bool = False) -> None:
        if not new_style:
            self._writer.add_scalar(*arguments)


@pytest.fixture(scope="module", params=list(ANCHORS))
def logdirs(request, tmp_path_factory) -> dict[str, str]:
    """{"theirs": logdir, "ours": logdir} of the program through the anchor and its drop-in,
    and {"anchor": its name}."""
    logdirs = {}
    logdirs["anchor"] = request.param
    for name, writer_class in zip(("theirs", "ours"), ANCHORS[request.param], strict=True):
        logdir = str(tmp_path_factory.mktemp(f"{request.param}_{name}"))
        with writer_class(logdir) as writer:
            program(writer if request.param == "torch" else TensorboardXCalls(writer))
        logdirs[name] = logdir
    return logdirs


def _by_tag(values: list[tuple[int, bytes]]) -> dict[str, list]:
    from summarylib.proto import summary_pb2

    tags: dict[str, list] = {}
    for step, serialized in decoded_values(values):
        tags.setdefault(summary_pb2.Summary.Value.FromString(serialized).tag, []).append((step, serialized))
    return {tag: sorted(found) for tag, found in tags.items()}


def test_every_run_holds_the_same_values(logdirs):
    theirs, ours = run_values(logdirs["theirs"]), run_values(logdirs["ours"])
    assert sorted(ours) == sorted(theirs)
    differing = {}
    for run in theirs:
        expected, got = _by_tag(theirs[run]), _by_tag(ours[run])
        assert sorted(got) == sorted(expected), run
        intended = INTENDED[logdirs["anchor"]]
        differing[run] = sorted(tag for tag in expected if got[tag] != expected[tag] and tag not in intended)
    assert differing == {run: [] for run in theirs}


def test_the_graphs_step_stats_are_the_same(logdirs):
    expected = run_metadata(logdirs["theirs"])
    assert expected  # the program draws a graph
    assert run_metadata(logdirs["ours"]) == expected


def _accumulators(logdir: str) -> dict[str, EventAccumulator]:
    """An EventAccumulator per run, every event kept."""
    runs = {}
    for directory, _, files in os.walk(logdir):
        if any("tfevents" in name for name in files):
            accumulator = EventAccumulator(
                directory,
                size_guidance={kind: 0 for kind in ("scalars", "images", "audio", "histograms", "tensors")},
            )
            runs[os.path.relpath(directory, logdir)] = accumulator.Reload()
    return runs


def _histogram(histogram) -> tuple:
    """A histogram's fields as EventAccumulator gives them, its sum of squares to the bits
    BLAS leaves alike (see the module docstring)."""
    fields = (histogram.min, histogram.max, histogram.num, histogram.sum)
    return (
        *fields,
        same_to_the_last_bits(histogram.sum_squares),
        list(histogram.bucket_limit),
        list(histogram.bucket),
    )


def _read(accumulator: EventAccumulator, kind: str) -> dict:
    """{tag: [(step, what a reader gets), ...]} of one kind, as EventAccumulator gives it."""
    tags = accumulator.Tags()[kind]
    if kind == "scalars":
        return {tag: [(e.step, e.value) for e in accumulator.Scalars(tag)] for tag in tags}
    if kind == "images":
        return {
            tag: [
                (e.step, e.width, e.height, _decoded(e.encoded_image_string)) for e in accumulator.Images(tag)
            ]
            for tag in tags
        }
    if kind == "audio":
        return {
            tag: [
                (e.step, e.sample_rate, e.length_frames, e.content_type, _decoded(e.encoded_audio_string))
                for e in accumulator.Audio(tag)
            ]
            for tag in tags
        }
    if kind == "histograms":
        return {
            tag: [(e.step, *_histogram(e.histogram_value)) for e in accumulator.Histograms(tag)]
            for tag in tags
        }
    return {
        tag: [(e.step, tensor_util.make_ndarray(e.tensor_proto).tolist()) for e in accumulator.Tensors(tag)]
        for tag in tags
    }


@pytest.mark.parametrize("kind", ["scalars", "images", "audio", "histograms", "tensors"])
def test_event_accumulator_reads_the_same(logdirs, kind):
    theirs, ours = _accumulators(logdirs["theirs"]), _accumulators(logdirs["ours"])
    assert sorted(ours) == sorted(theirs)
    for run in theirs:
        expected, got = _read(theirs[run], kind), _read(ours[run], kind)
        assert sorted(got) == sorted(expected), (run, kind)
        for tag in set(expected) - INTENDED[logdirs["anchor"]]:
            assert got[tag] == expected[tag], (run, tag)
    if kind in ("images", "audio", "histograms", "scalars"):
        assert any(_read(accumulator, kind) for accumulator in ours.values()), f"no {kind} read at all"
