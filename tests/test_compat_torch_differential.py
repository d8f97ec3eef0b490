"""The same program through torch.utils.tensorboard's SummaryWriter and through
summarylib.compat.torch's, compared through TensorBoard's data provider: what its
dashboards get from both logdirs (tests/test_dropin_differential_files.py compares the
same program's files as raw protos and through EventAccumulator).

Intended differences (the reason beside each):
- add_video: torch needs moviepy (not installed here) and without it writes an empty
  value; ours writes the GIF (tested in test_compat_torch_extras.py). Left out here.
- add_hparams: compared in test_dropin_hparams_files.py (torch writes each call into a
  run of its own, named by the time).
- add_graph: torch's node names come from TorchScript (`Net/Linear[fc1]/input.1`), ours
  from the traced calls (`Net/fc1/Linear`); compared: inputs and the module hierarchy.
- Scalars written with `new_style=True` carry the scalars plugin's metadata in both;
  v1 scalars none in both.
- PNG bytes differ (our encoder); decoded pixels are compared.
- add_tensor of bfloat16, float16 and uint8: torch's records cannot be read back
  (TORCH_TENSOR_UNREADABLE); ours are compared with the tensor (bfloat16 as float32).
"""

from __future__ import annotations

import glob
import io
import wave
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib", reason="matplotlib is not installed (the frameworks extra)")
pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")

import matplotlib
import torch
from PIL import Image
from tensorboard.backend.event_processing import event_file_loader
from tensorboard.util import tensor_util
from torch.utils.tensorboard import SummaryWriter as TorchWriter

from summarylib.compat.torch import SummaryWriter
from summarylib.proto import custom_scalar_pb2, graph_pb2
from tests.tensorboard_data import read_blob_sequences, read_scalars, read_tensors

matplotlib.use("Agg")
import matplotlib.pyplot as plt

RNG = np.random.default_rng(0)
VALUES = RNG.normal(size=1000).astype(np.float32)
IMAGE_CHW = RNG.random((3, 12, 10), dtype=np.float32)
BATCH = RNG.random((11, 1, 6, 5))
RGBA = RNG.random((4, 5, 6))
CLIP = (RNG.random(800) * 2 - 1).astype(np.float32)
LABELS = RNG.integers(0, 2, 200)
PREDICTIONS = RNG.random(200, dtype=np.float32)
TENSORFLOW_BINS = "hist/tensorflow"  # the tags of histograms with bins="tensorflow"


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(3, 4)
        self.act = torch.nn.ReLU()
        self.head = torch.nn.Sequential(torch.nn.Linear(4, 2))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.act(self.fc1(x)))


def figure(seed: int) -> plt.Figure:
    fig = plt.figure(figsize=(2, 1.5), dpi=50)
    plt.plot(np.arange(5) * seed)
    return fig


def program(writer) -> None:
    """Every method with realistic inputs (video and hparams: see the module docstring)."""
    for step in range(3):
        writer.add_scalar("loss", torch.tensor(0.5 / (step + 1), requires_grad=True), step)
        writer.add_scalar("acc", np.float64(step / 10), step)
        writer.add_scalar("one_element", torch.tensor([step * 2.0]), step)
        writer.add_scalar("new_style", step * 1.5, step, new_style=True)
        writer.add_scalar("double", step / 3, step, new_style=True, double_precision=True)
        writer.add_scalars("multi", {"a": step, "b": torch.tensor(2.0 * step)}, step)
    writer.add_scalar("no_step", 7.0)
    writer.add_tensor("tensor", torch.arange(6, dtype=torch.float32).reshape(2, 3), 1)
    writer.add_histogram(f"{TENSORFLOW_BINS}/float32", torch.from_numpy(VALUES), 1)
    writer.add_histogram("hist/ints", np.arange(100) % 7, 1, bins=10)
    for rule in ("auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt"):
        writer.add_histogram(f"hist/{rule}", VALUES.astype(np.float64), 2, bins=rule)
    writer.add_histogram("hist/max_bins", VALUES, 3, bins=100, max_bins=7)
    writer.add_histogram("hist/edges", VALUES, 3, bins=np.linspace(-1, 1, 9))
    writer.add_histogram_raw("hist/raw", 0.0, 10.0, 5, 20.0, 100.0, [2.0, 5.0, 10.0], [1, 2, 2], 1)
    writer.add_image("image/chw", torch.from_numpy(IMAGE_CHW), 1)
    writer.add_image(
        "image/hwc_uint8", (IMAGE_CHW.transpose(1, 2, 0) * 255).astype(np.uint8), 1, dataformats="HWC"
    )
    writer.add_image("image/hw", IMAGE_CHW[0].astype(np.float64), 1, dataformats="HW")
    writer.add_image("image/wh", IMAGE_CHW[0].T, 1, dataformats="WH")
    writer.add_image("image/cwh_gray", IMAGE_CHW[:1].transpose(0, 2, 1), 1, dataformats="CWH")
    writer.add_image("image/rgba", RGBA, 1)
    writer.add_image("image/out_of_range", IMAGE_CHW * 3 - 1, 1)
    writer.add_images("images/nchw", torch.from_numpy(BATCH), 1)
    writer.add_images(
        "images/nhwc", torch.from_numpy(BATCH.transpose(0, 2, 3, 1).repeat(3, axis=3)), 1, dataformats="NHWC"
    )
    writer.add_images("images/uint8", (BATCH * 255).astype(np.uint8)[:3].repeat(3, axis=1), 1)
    boxes = torch.tensor([[2.0, 2.0, 30.0, 20.0], [10.0, 15.0, 40.0, 38.0]])
    canvas = torch.full((3, 48, 64), 0.5)
    writer.add_image_with_boxes("boxes/plain", canvas, boxes, 1)
    writer.add_image_with_boxes("boxes/labels", canvas, boxes, 1, labels=["cat", "dog"])
    writer.add_image_with_boxes("boxes/rescaled", canvas, boxes, 1, rescale=0.5)
    writer.add_figure("figure/one", figure(1), 1)
    writer.add_figure("figure/list", [figure(2), figure(3)], 1)
    writer.add_audio("audio", torch.from_numpy(CLIP).unsqueeze(0), 1, sample_rate=8000)
    writer.add_audio("audio64", CLIP.astype(np.float64), 2)
    writer.add_text("text", "**bold** and `code`", 1)
    writer.add_text("text", "second", 2)
    writer.add_pr_curve("pr", LABELS, torch.from_numpy(PREDICTIONS), 1)
    writer.add_pr_curve("pr_weighted", LABELS, PREDICTIONS, 1, num_thresholds=50, weights=PREDICTIONS)
    raw = np.array([[5, 3, 1], [4, 1, 0], [0, 3, 4], [0, 2, 4], [0.55, 0.75, 1], [1, 0.6, 0.2]])
    writer.add_pr_curve_raw("pr_raw", *raw, 1, num_thresholds=3)
    writer.add_custom_scalars({"losses": {"both": ["Multiline", ["loss", "acc"]]}})
    vertices = torch.tensor([[[1.0, 1, 1], [-1, -1, 1], [1, -1, -1], [-1, 1, -1]]])
    colors = torch.tensor([[[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 0, 255]]], dtype=torch.int)
    faces = torch.tensor([[[0, 2, 3], [0, 3, 1], [0, 1, 2], [1, 3, 2]]], dtype=torch.int)
    writer.add_mesh("mesh", vertices, colors=colors, faces=faces, global_step=1)
    writer.add_mesh("cloud", vertices, global_step=2)
    torch.manual_seed(0)
    writer.add_graph(Net(), torch.randn(2, 3))
    writer.add_embedding(
        torch.from_numpy(BATCH.reshape(11, -1)), metadata=[f"p{i}" for i in range(11)], global_step=1
    )


@pytest.fixture(scope="module")
def logdirs(tmp_path_factory) -> dict[str, str]:
    """{"torch": logdir, "ours": logdir} of the program through each writer."""
    logdirs = {}
    for name, writer_class in (("torch", TorchWriter), ("ours", SummaryWriter)):
        logdir = str(tmp_path_factory.mktemp(name))
        with writer_class(logdir) as writer:
            program(writer)
        logdirs[name] = logdir
    return logdirs


def both(read, logdirs, *args):
    return read(logdirs["torch"], *args), read(logdirs["ours"], *args)


def shapes(data: dict) -> dict:
    """{run: {tag: [step, ...]}}."""
    return {
        run: {tag: [point[0] for point in points] for tag, points in tags.items()}
        for run, tags in data.items()
    }


def test_scalars_equal_in_the_same_runs_tags_and_steps(logdirs):
    theirs, ours = both(read_scalars, logdirs)
    assert set(ours) == {".", "multi_a", "multi_b"}
    assert ours == theirs


def tensor_values(logdir: str, tag: str) -> list[tuple[int, np.ndarray]]:
    """TensorBoard's own event loading and tensor decoding (no dashboard lists the `tensor`
    plugin name torch gives add_tensor)."""
    values = []
    for path in glob.glob(f"{logdir}/events.out.tfevents.*"):
        for event in event_file_loader.EventFileLoader(path).Load():
            values += [
                (event.step, tensor_util.make_ndarray(v.tensor)) for v in event.summary.value if v.tag == tag
            ]
    return values


def test_tensor_equal(logdirs):
    theirs, ours = both(tensor_values, logdirs, "tensor")
    assert len(ours) == len(theirs) == 1
    assert ours[0][0] == theirs[0][0] == 1
    np.testing.assert_array_equal(ours[0][1], theirs[0][1])


def assert_same_histograms(theirs: dict, ours: dict) -> None:
    """The same buckets, total and range, tag for tag."""
    assert shapes(ours) == shapes(theirs)
    for tag, points in theirs["."].items():
        for (_, expected), (_, got) in zip(points, ours["."][tag], strict=True):
            assert got[:, 2].sum() == expected[:, 2].sum(), tag
            assert (got[0, 0], got[-1, 1]) == (expected[0, 0], expected[-1, 1]), tag
            np.testing.assert_array_equal(got, expected, err_msg=tag)


def test_histograms_same_buckets_total_and_range(logdirs):
    assert_same_histograms(*both(read_tensors, logdirs, "histograms"))


def decoded(blobs: list[bytes]) -> list:
    """Each blob as pixels if it is an image, else the bytes (width and height strings)."""
    out = []
    for blob in blobs:
        try:
            out.append(np.asarray(Image.open(io.BytesIO(blob)).convert("RGBA")))
        except Exception:
            out.append(blob)
    return out


def assert_same_pixels(theirs: dict, ours: dict) -> None:
    """The images of each tag decode to the same pixels (and state the same sizes)."""
    assert shapes(ours) == shapes(theirs)
    for tag, points in theirs["."].items():
        for (_, expected), (_, got) in zip(points, ours["."][tag], strict=True):
            for want, have in zip(decoded(expected), decoded(got), strict=True):
                np.testing.assert_array_equal(have, want, err_msg=tag)


def test_images_decode_to_the_same_pixels(logdirs):
    assert_same_pixels(*both(read_blob_sequences, logdirs, "images"))


def pcm(blob: bytes) -> tuple[int, np.ndarray]:
    with wave.open(io.BytesIO(blob)) as clip:
        return clip.getframerate(), np.frombuffer(clip.readframes(clip.getnframes()), "<i2")


def test_audio_decodes_to_the_same_samples(logdirs):
    theirs, ours = both(read_blob_sequences, logdirs, "audio")
    assert shapes(ours) == shapes(theirs)
    for tag, points in theirs["."].items():
        for (_, expected), (_, got) in zip(points, ours["."][tag], strict=True):
            rate, samples = pcm(expected[0])
            our_rate, our_samples = pcm(got[0])
            assert our_rate == rate
            np.testing.assert_array_equal(our_samples, samples)


def test_text_equal(logdirs):
    theirs, ours = both(read_tensors, logdirs, "text")
    assert shapes(ours) == shapes(theirs) == {".": {"text/text_summary": [1, 2]}}
    for (_, expected), (_, got) in zip(
        theirs["."]["text/text_summary"], ours["."]["text/text_summary"], strict=True
    ):
        np.testing.assert_array_equal(got, expected)


def test_pr_curves_equal_rows(logdirs):
    theirs, ours = both(read_tensors, logdirs, "pr_curves")
    assert shapes(ours) == shapes(theirs)
    for tag, points in theirs["."].items():
        np.testing.assert_allclose(ours["."][tag][0][1], points[0][1], rtol=1e-6, err_msg=tag)


def test_custom_scalars_same_layout(logdirs):
    theirs, ours = both(read_tensors, logdirs, "custom_scalars")
    assert shapes(ours) == shapes(theirs)
    layouts = [
        custom_scalar_pb2.Layout.FromString(data["."]["custom_scalars__config__"][0][1].item())
        for data in (theirs, ours)
    ]
    assert layouts[0] == layouts[1]


def test_meshes_equal(logdirs):
    theirs, ours = both(read_tensors, logdirs, "mesh")
    assert shapes(ours) == shapes(theirs)
    for tag, points in theirs["."].items():
        np.testing.assert_array_equal(ours["."][tag][0][1].astype(np.float64), points[0][1], err_msg=tag)


def module_scopes(graph_def: graph_pb2.GraphDef, torchscript: bool) -> set[str]:
    """The module boxes the graphs dashboard draws, named by attribute path: torch's
    `Type[name]` scopes as `name`, ours as they are."""
    scopes = set()
    for node in graph_def.node:
        parts = node.name.split("/")[:-1]
        for end in range(1, len(parts) + 1):
            prefix = parts[:end]
            if torchscript and end > 1 and not prefix[-1].endswith("]"):
                continue
            scopes.add("/".join(part.split("[")[-1].rstrip("]") for part in prefix))
    return scopes - {"input", "output"}


def test_graph_same_inputs_and_module_hierarchy(logdirs):
    theirs, ours = both(read_blob_sequences, logdirs, "graphs")
    graphs = [graph_pb2.GraphDef.FromString(data["."]["__run_graph__"][0][1][0]) for data in (theirs, ours)]
    inputs = [{node.name for node in graph.node if node.name.startswith("input/")} for graph in graphs]
    assert inputs[0] == inputs[1] == {"input/x"}
    assert (
        module_scopes(graphs[1], False)
        == module_scopes(graphs[0], True)
        == {
            "Net",
            "Net/fc1",
            "Net/act",
            "Net/head",
            "Net/head/0",
        }
    )


def test_embedding_same_files(logdirs):
    files = {}
    for name, logdir in logdirs.items():
        folder = f"{logdir}/00001/default"
        files[name] = [Path(folder, file).read_text() for file in ("tensors.tsv", "metadata.tsv")]
    assert files["ours"] == files["torch"]


# Every dtype torch's writer takes, beyond float32/float64: mixed precision's halves and
# the integer types (issue 20).
DTYPES = (torch.bfloat16, torch.float16, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)


def dtype_values(dtype: torch.dtype) -> torch.Tensor:
    """The values dtype_program logs in `dtype`: normal floats, or integers in 0..96."""
    values = VALUES if dtype.is_floating_point else np.arange(-50, 200) % 97
    return torch.from_numpy(values).to(dtype)


def dtype_program(writer) -> None:
    """add_scalar (one element, 0-d and 1-d), add_histogram, add_image(s), add_tensor and
    add_embedding of a tensor of each of DTYPES."""
    for index, dtype in enumerate(DTYPES):
        name = str(dtype).removeprefix("torch.")
        floating = dtype.is_floating_point
        values = dtype_values(dtype)
        image = (
            torch.from_numpy(IMAGE_CHW) if floating else torch.from_numpy((IMAGE_CHW * 127).astype(np.int64))
        )
        writer.add_scalar(f"scalar/{name}", torch.tensor(3.25 if floating else 3).to(dtype), index)
        writer.add_scalar(f"scalar1/{name}", torch.tensor([-2.5 if floating else 7]).to(dtype), index)
        writer.add_histogram(f"{TENSORFLOW_BINS}/{name}", values.to(dtype), index)
        writer.add_histogram(f"hist/ten_bins/{name}", values.to(dtype), index, bins=10)
        writer.add_image(f"image/{name}", image.to(dtype), index)
        writer.add_images(f"images/{name}", image.to(dtype).unsqueeze(0), index)
        writer.add_tensor(f"tensor/{name}", values[:6].reshape(2, 3).to(dtype), index)
        writer.add_embedding(values[:12].reshape(4, 3).to(dtype), global_step=index, tag=name)


@pytest.fixture(scope="module")
def dtype_logdirs(tmp_path_factory) -> dict[str, str]:
    """{"torch": logdir, "ours": logdir} of dtype_program through each writer."""
    logdirs = {}
    for name, writer_class in (("torch", TorchWriter), ("ours", SummaryWriter)):
        logdir = str(tmp_path_factory.mktemp(f"dtypes_{name}"))
        with writer_class(logdir) as writer:
            dtype_program(writer)
        logdirs[name] = logdir
    return logdirs


def test_dtypes_scalars_equal(dtype_logdirs):
    theirs, ours = both(read_scalars, dtype_logdirs)
    assert len(ours["."]) == 2 * len(DTYPES)
    assert ours == theirs


def test_dtypes_histograms_equal(dtype_logdirs):
    assert_same_histograms(*both(read_tensors, dtype_logdirs, "histograms"))


def test_dtypes_images_equal(dtype_logdirs):
    assert_same_pixels(*both(read_blob_sequences, dtype_logdirs, "images"))


# add_tensor records of torch's that TensorBoard cannot read back: these compare ours with
# the tensor itself (bfloat16 as float32, the dtype it converts to without loss).
TORCH_TENSOR_UNREADABLE = {
    torch.bfloat16: "torch puts float32 bit patterns in half_val: make_ndarray overflows",
    torch.float16: "torch puts float32 bit patterns in half_val: make_ndarray overflows",
    torch.uint8: "torch writes a DT_UINT8 tensor without its values",
}


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_dtypes_tensor_equal(dtype_logdirs, dtype):
    name = str(dtype).removeprefix("torch.")
    index = DTYPES.index(dtype)
    ((step, got),) = tensor_values(dtype_logdirs["ours"], f"tensor/{name}")
    if dtype in TORCH_TENSOR_UNREADABLE:
        given = dtype_values(dtype)[:6].reshape(2, 3).to(dtype)
        expected = (given.float() if dtype is torch.bfloat16 else given).numpy()
    else:
        ((_, expected),) = tensor_values(dtype_logdirs["torch"], f"tensor/{name}")
    assert step == index
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_dtypes_embedding_same_files(dtype_logdirs):
    for index, dtype in enumerate(DTYPES):
        folder = f"{index:05d}/{str(dtype).removeprefix('torch.')}/tensors.tsv"
        theirs, ours = (Path(dtype_logdirs[name], folder).read_text() for name in ("torch", "ours"))
        assert ours == theirs, folder
