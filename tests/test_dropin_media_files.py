"""compat.torch and compat.tensorboardX write images, figures and audio as the writers
they replace write them (issue 29): `Summary.Image` / `Summary.Audio` values, with no
metadata, under the same tags and steps, stating the same sizes, channels, sample rates
and frames, and decoding to the same pixels and samples (PNG and WAV bytes may differ).

Each program runs once through the real torch.utils.tensorboard or tensorboardX writer
and once through ours; both logdirs are read by TensorBoard's `EventAccumulator`
(`Images`, `Audio`: what readers written for torch's files use) and as raw protos.
Video is left out: both anchors need moviepy for it, which is not installed here (they
then write an empty value).
"""

from __future__ import annotations

import io
import os

import numpy as np
import pytest

pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")
pytest.importorskip("tensorboardX", reason="tensorboardX is not installed (the frameworks extra)")
pytest.importorskip("matplotlib", reason="matplotlib is not installed (the frameworks extra)")

import matplotlib
import soundfile
import tensorboardX
import torch
from PIL import Image
from tensorboard.backend.event_processing import event_file_loader
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from torch.utils.tensorboard import SummaryWriter as TorchWriter

from summarylib.compat.legacy_values import audio_entry, image_entry
from summarylib.compat.tensorboardX import SummaryWriter as OurTensorboardXWriter
from summarylib.compat.torch import SummaryWriter as OurTorchWriter
from summarylib.proto import summary_pb2

matplotlib.use("Agg")
import matplotlib.pyplot as plt

RNG = np.random.default_rng(29)
IMAGE_CHW = RNG.random((3, 12, 10), dtype=np.float32)
BATCH = RNG.random((11, 1, 6, 5))
RGBA = RNG.random((4, 5, 6))
CLIP = (RNG.random(800) * 2 - 1).astype(np.float32)
STEREO = RNG.random((700, 2)) * 2 - 1
BOXES = torch.tensor([[2.0, 2.0, 30.0, 20.0], [10.0, 15.0, 40.0, 38.0]])
CANVAS = torch.full((3, 48, 64), 0.5)


def figure(seed: int) -> plt.Figure:
    fig = plt.figure(figsize=(2, 1.5), dpi=50)
    plt.plot(np.arange(5) * seed)
    return fig


def images_program(writer) -> None:
    """The image methods both writers share, with the inputs people pass them."""
    writer.add_image("image/chw", torch.from_numpy(IMAGE_CHW), 1)
    writer.add_image(
        "image/hwc_uint8", (IMAGE_CHW.transpose(1, 2, 0) * 255).astype(np.uint8), 1, dataformats="HWC"
    )
    writer.add_image("image/hw", IMAGE_CHW[0], 2, dataformats="HW")
    writer.add_image("image/rgba", RGBA.astype(np.float32), 2)
    writer.add_images("images/nchw", torch.from_numpy(BATCH.astype(np.float32)), 3)
    writer.add_images("images/uint8", (BATCH * 255).astype(np.uint8)[:3].repeat(3, axis=1), 3)
    writer.add_image_with_boxes("boxes/plain", CANVAS, BOXES, 4)
    writer.add_image_with_boxes("boxes/labels", CANVAS, BOXES, 4, labels=["cat", "dog"])
    writer.add_image_with_boxes("boxes/rescaled", CANVAS, BOXES, 5, rescale=0.5)
    writer.add_figure("figure/one", figure(1), 6)
    writer.add_figure("figure/list", [figure(2), figure(3)], 6)


def torch_program(writer) -> None:
    images_program(writer)
    writer.add_image("image/float64_out_of_range", IMAGE_CHW.astype(np.float64) * 3 - 1, 7)
    writer.add_audio("audio/row", torch.from_numpy(CLIP).unsqueeze(0), 8, sample_rate=8000)
    writer.add_audio("audio/float64", CLIP.astype(np.float64), 9)
    writer.close()


def tensorboardx_program(writer) -> None:
    images_program(writer)
    writer.add_images("images/list", [IMAGE_CHW, IMAGE_CHW[::-1]], 7, dataformats="CHW")
    writer.add_audio("audio/mono", CLIP, 8, sample_rate=8000)
    writer.add_audio("audio/column", CLIP[:, np.newaxis].astype(np.float64), 8, sample_rate=16000)
    writer.add_audio("audio/stereo", STEREO, 9, sample_rate=22050)
    writer.add_audio("audio/stereo32", torch.from_numpy(STEREO.astype(np.float32)), 9)
    writer.close()


def accumulated(logdir: str) -> EventAccumulator:
    accumulator = EventAccumulator(logdir, size_guidance={"images": 0, "audio": 0})
    accumulator.Reload()
    return accumulator


def pixels(encoded: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(encoded)))


def samples(encoded: bytes) -> tuple[int, np.ndarray]:
    data, rate = soundfile.read(io.BytesIO(encoded), dtype="int16", always_2d=True)
    return rate, data


def accumulator_images(logdir: str) -> dict:
    """{tag: [(step, width, height, decoded pixels), ...]} from `EventAccumulator.Images`."""
    accumulator = accumulated(logdir)
    return {
        tag: [(e.step, e.width, e.height, pixels(e.encoded_image_string)) for e in accumulator.Images(tag)]
        for tag in accumulator.Tags()["images"]
    }


def accumulator_audio(logdir: str) -> dict:
    """{tag: [(step, sample rate, frames, content type, (WAV rate, samples)), ...]}."""
    accumulator = accumulated(logdir)
    return {
        tag: [
            (e.step, e.sample_rate, e.length_frames, e.content_type, samples(e.encoded_audio_string))
            for e in accumulator.Audio(tag)
        ]
        for tag in accumulator.Tags()["audio"]
    }


def raw_values(logdir: str) -> list[tuple]:
    """Every Summary value of the run's event file as (step, tag, kind, fields without the
    encoded bytes, metadata), in order."""
    (name,) = (name for name in os.listdir(logdir) if "tfevents" in name)
    values = []
    for event in event_file_loader.LegacyEventFileLoader(os.path.join(logdir, name)).Load():
        for value in event.summary.value:
            kind = value.WhichOneof("value")
            fields = getattr(value, kind) if kind else None
            if kind in ("image", "audio"):
                fields = [(f.name, v) for f, v in fields.ListFields() if not f.name.startswith("encoded")]
            values.append((event.step, value.tag, kind, fields, value.metadata.SerializeToString()))
    return values


def write_both(tmp_path, theirs_class, ours_class, program) -> tuple[str, str]:
    theirs, ours = str(tmp_path / "theirs"), str(tmp_path / "ours")
    program(theirs_class(theirs))
    program(ours_class(ours))
    return theirs, ours


def assert_same_images(theirs: str, ours: str) -> None:
    expected, got = accumulator_images(theirs), accumulator_images(ours)
    assert sorted(got) == sorted(expected)
    for tag, points in expected.items():
        assert len(got[tag]) == len(points), tag
        for (step, width, height, want), (our_step, our_width, our_height, have) in zip(
            points, got[tag], strict=True
        ):
            assert (our_step, our_width, our_height) == (step, width, height), tag
            np.testing.assert_array_equal(have, want, err_msg=tag)


def assert_same_audio(theirs: str, ours: str) -> None:
    expected, got = accumulator_audio(theirs), accumulator_audio(ours)
    assert sorted(got) == sorted(expected)
    for tag, points in expected.items():
        assert len(got[tag]) == len(points), tag
        for (*fields, (rate, want)), (*our_fields, (our_rate, have)) in zip(points, got[tag], strict=True):
            assert (our_fields, our_rate) == (fields, rate), tag
            np.testing.assert_array_equal(have, want, err_msg=tag)


@pytest.fixture(scope="module")
def torch_logdirs(tmp_path_factory) -> tuple[str, str]:
    return write_both(tmp_path_factory.mktemp("torch"), TorchWriter, OurTorchWriter, torch_program)


@pytest.fixture(scope="module")
def tensorboardx_logdirs(tmp_path_factory) -> tuple[str, str]:
    return write_both(
        tmp_path_factory.mktemp("tensorboardx"),
        tensorboardX.SummaryWriter,
        OurTensorboardXWriter,
        tensorboardx_program,
    )


def test_torch_values_are_the_same_kinds_fields_tags_steps_and_metadata(torch_logdirs):
    theirs, ours = map(raw_values, torch_logdirs)
    assert ours == theirs
    assert {kind for _, _, kind, _, _ in theirs} == {"image", "audio"}


def test_torch_images_read_by_event_accumulator_decode_to_the_same_pixels(torch_logdirs):
    assert_same_images(*torch_logdirs)


def test_torch_audio_read_by_event_accumulator_decodes_to_the_same_samples(torch_logdirs):
    assert_same_audio(*torch_logdirs)


def test_tensorboardx_values_are_the_same_kinds_fields_tags_steps_and_metadata(tensorboardx_logdirs):
    theirs, ours = map(raw_values, tensorboardx_logdirs)
    assert ours == theirs
    stereo = [fields for _, tag, _, fields, _ in theirs if tag.startswith("audio/stereo")]
    assert all(("num_channels", 2) in fields for fields in stereo) and len(stereo) == 2


def test_tensorboardx_images_read_by_event_accumulator_decode_to_the_same_pixels(tensorboardx_logdirs):
    assert_same_images(*tensorboardx_logdirs)


def test_tensorboardx_audio_mono_and_stereo_decode_to_the_same_samples(tensorboardx_logdirs):
    assert_same_audio(*tensorboardx_logdirs)


def test_tensorboardx_audio_rounds_where_torch_truncates(tmp_path):
    """The two anchors write other samples for one clip; each drop-in writes its own's."""
    clip = np.array([0.5 / 32767, -0.5 / 32767, 1.5 / 32768, -1.0, 1.0, 0.3], np.float32)
    written = {}
    for name, writer_class in (
        ("torch", TorchWriter),
        ("ours_torch", OurTorchWriter),
        ("tensorboardx", tensorboardX.SummaryWriter),
        ("ours_tensorboardx", OurTensorboardXWriter),
    ):
        with writer_class(str(tmp_path / name)) as writer:
            writer.add_audio("clip", clip, 0, sample_rate=8000)
        ((*_, (_, data)),) = accumulator_audio(str(tmp_path / name))["clip"]
        written[name] = data[:, 0].tolist()
    assert written["ours_torch"] == written["torch"]
    assert written["ours_tensorboardx"] == written["tensorboardx"]
    assert written["torch"] != written["tensorboardx"]


@pytest.mark.parametrize(
    ("shape", "problem"),
    [
        ((1, 800), "got shape [1, 800]"),
        ((800, 3), "got shape [800, 3]"),
        ((2, 400, 1), "got shape [2, 400, 1]"),
    ],
)
def test_tensorboardx_audio_of_other_shapes_is_a_clear_value_error(tmp_path, shape, problem):
    """tensorboardX fails an assert for these; ours names the method, tag, argument, the
    shapes it takes and the shape that came."""
    with OurTensorboardXWriter(str(tmp_path)) as writer, pytest.raises(ValueError) as raised:
        writer.add_audio("clip", np.zeros(shape, np.float32), 0)
    message = str(raised.value)
    assert message.startswith("summarylib.add_audio: tag 'clip': argument 'snd_tensor': expected [frames]")
    assert "1 or 2 channels" in message and problem in message


@pytest.mark.parametrize(
    ("tag", "size", "encoded"),
    [("a", 0, b""), ("ünï/cødé", 127, b"x"), ("t" * 300, 128, bytes(70_000)), ("big", 2**31 - 1, b"png")],
)
def test_hand_laid_values_are_the_bytes_protobuf_writes(tag, size, encoded):
    """The Summary.Image and Summary.Audio values laid out by hand (they hold megabytes
    that the generated code would copy per nesting level) are the generated code's bytes."""
    image = summary_pb2.Summary.Image(
        height=size, width=size // 2, colorspace=3, encoded_image_string=encoded
    )
    expected = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, image=image)])
    assert image_entry(tag, encoded, size, size // 2, 3) == expected.SerializeToString()
    audio = summary_pb2.Summary.Audio(
        sample_rate=size,
        num_channels=2,
        length_frames=size,
        encoded_audio_string=encoded,
        content_type="audio/wav",
    )
    expected = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, audio=audio)])
    assert audio_entry(tag, encoded, size, 2, size) == expected.SerializeToString()
