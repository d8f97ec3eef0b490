"""The embedding op: the files torch's `add_embedding` writes, TensorBoard's projector listing
and serving several embeddings of a logdir (both data loaders), files replaced atomically,
and bad input rejected at the call."""

from __future__ import annotations

import io
import os
import threading

import numpy as np
import pytest
from google.protobuf import text_format
from PIL import Image
from tensorboard.plugins.projector.projector_config_pb2 import ProjectorConfig

import summarylib as sl
from summarylib.ops.embedding import embedding
from summarylib.ops.embedding import encoding as embedding_encoding
from summarylib.proto import projector_config_pb2
from tests.helpers import ArrayLike
from tests.tensorboard_server import LOADERS, get, get_json, running_tensorboard, wait_for

RNG = np.random.default_rng(3)
POINTS = RNG.normal(size=(10, 4)).astype(np.float32)
LABELS = [f"point {i}" for i in range(10)]
# Pixels 0, 0.5 and 1: torch (x 255) and the image op (x 255.5) agree on them.
IMAGES = RNG.integers(0, 3, size=(10, 6, 6, 3)) / 2


def config_of(logdir: str) -> ProjectorConfig:
    """The projector config in `logdir`, parsed by TensorBoard's own message."""
    with open(os.path.join(logdir, "projector_config.pbtxt")) as file:
        return text_format.Parse(file.read(), ProjectorConfig())


def read(logdir: str, relative: str) -> bytes:
    with open(os.path.join(logdir, relative), "rb") as file:
        return file.read()


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def write_with_torch(logdir: str, calls: list[dict]) -> None:
    """The same embeddings through torch's `SummaryWriter.add_embedding` (NCHW images)."""
    pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")
    import torch
    from torch.utils.tensorboard import SummaryWriter

    writer = SummaryWriter(logdir)
    for call in calls:
        images = call.get("label_images")
        writer.add_embedding(
            call["data"],
            metadata=call.get("metadata"),
            label_img=None if images is None else torch.from_numpy(np.asarray(images).transpose(0, 3, 1, 2)),
            global_step=call["step"],
            tag=call["name"],
            metadata_header=call.get("metadata_header"),
        )
    writer.close()


def write_with_summarylib(logdir: str, calls: list[dict]) -> None:
    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        for call in calls:
            assert embedding(**call)
    writer.close()


TORCH_CALLS = [
    {"name": "points", "data": POINTS, "step": 0},
    {"name": "labelled/with images", "data": POINTS, "metadata": LABELS, "label_images": IMAGES, "step": 12},
    {
        "name": "columns",
        "data": POINTS.astype(np.float64) * 1e-7,
        "metadata": [[i, f"class {i % 3}", i / 4] for i in range(10)],
        "metadata_header": ["index", "class", "fraction"],
        "step": 3,
    },
    {"name": "integers", "data": np.arange(12).reshape(6, 2), "metadata": np.arange(6) % 2, "step": 123456},
]


def test_same_files_as_torch(tmp_path):
    ours, theirs = str(tmp_path / "ours"), str(tmp_path / "theirs")
    write_with_summarylib(ours, TORCH_CALLS)
    write_with_torch(theirs, TORCH_CALLS)
    config = config_of(ours)
    assert config == config_of(theirs)
    assert [e.tensor_name for e in config.embeddings] == [
        "points:00000",
        "labelled/with images:00012",
        "columns:00003",
        "integers:123456",
    ]
    assert config.embeddings[1].tensor_path == "00012/labelled%2fwith images/tensors.tsv"
    for entry in config.embeddings:
        for relative in (entry.tensor_path, entry.metadata_path):
            if relative:
                assert read(ours, relative) == read(theirs, relative), relative
        if entry.sprite.image_path:
            np.testing.assert_array_equal(
                pixels(read(ours, entry.sprite.image_path)), pixels(read(theirs, entry.sprite.image_path))
            )


def test_proto_matches_tensorboards():
    for name in ("SpriteMetadata", "EmbeddingInfo", "ProjectorConfig"):
        ours = projector_config_pb2.DESCRIPTOR.message_types_by_name[name]
        theirs = ProjectorConfig.DESCRIPTOR.file.message_types_by_name[name]
        assert {f.name: (f.number, f.type, f.is_repeated) for f in ours.fields} == {
            f.name: (f.number, f.type, f.is_repeated) for f in theirs.fields
        }


def test_sprite_grid_of_images_that_are_not_square():
    images = np.arange(5 * 2 * 3, dtype=np.uint8).reshape(5, 2, 3, 1) + 1
    grid = embedding_encoding.sprite(images)
    assert grid.shape == (3 * 2, 3 * 3, 1)  # 3 x 3 cells of 2 x 3 pixels
    np.testing.assert_array_equal(grid[2:4, 3:6], images[4])
    assert not grid[2:, 6:].any() and not grid[4:].any()


def test_encode_alone_matches_the_op(logdir):
    encoded = embedding_encoding.encode("e", POINTS, metadata=LABELS, label_images=IMAGES, step=4)
    write_with_summarylib(
        logdir, [{"name": "e", "data": POINTS, "metadata": LABELS, "label_images": IMAGES, "step": 4}]
    )
    assert config_of(logdir).embeddings[0].SerializeToString() == encoded.info.SerializeToString()
    for relative, content in encoded.files.items():
        assert read(logdir, relative) == content


def test_same_tag_and_step_is_replaced_other_writers_kept(logdir):
    first = sl.create_file_writer(logdir)
    with first.as_default(step=1):
        embedding("a", POINTS)
        embedding("b", POINTS)
        embedding("a", POINTS[:3] * 2)
    first.close()
    second = sl.create_file_writer(logdir)  # a later run of the program
    with second.as_default(step=2):
        embedding("a", POINTS[:5])
    second.close()
    config = config_of(logdir)
    assert [e.tensor_name for e in config.embeddings] == ["a:00001", "b:00001", "a:00002"]
    assert read(logdir, "00001/a/tensors.tsv").count(b"\n") == 3
    leftovers = [name for _, _, names in os.walk(logdir) for name in names if name.endswith(".tmp")]
    assert leftovers == []


def test_a_reader_never_sees_half_a_config(logdir):
    writer = sl.create_file_writer(logdir)
    done = threading.Event()
    seen = []

    def read_while_written():
        path = os.path.join(logdir, "projector_config.pbtxt")
        while not done.is_set():
            try:
                with open(path) as file:
                    text = file.read()
            except FileNotFoundError:
                continue
            config = text_format.Parse(text, ProjectorConfig())  # raises on half a config
            for entry in config.embeddings:
                assert os.path.exists(os.path.join(logdir, entry.tensor_path))
            seen.append(len(config.embeddings))

    reader = threading.Thread(target=read_while_written)
    reader.start()
    try:
        with writer.as_default(step=0):
            for index in range(30):
                embedding(f"tag {index}", POINTS, metadata=LABELS)
    finally:
        done.set()
        reader.join()
    writer.close()
    assert seen and seen == sorted(seen) and len(config_of(logdir).embeddings) == 30


def test_array_likes_and_labels(logdir):
    write_with_summarylib(
        logdir,
        [
            {
                "name": "e",
                "data": ArrayLike(POINTS[:3]),
                "metadata": ArrayLike(np.array([0.5, 1.0, 2.5], np.float32)),
                "step": 0,
            },
            {"name": "f", "data": POINTS[:2], "metadata": [b"caf\xc3\xa9", "x"], "step": 0},
            {
                "name": "g",
                "data": POINTS[:2],
                "metadata": np.array([["a", "1"], ["b", "2"]]),
                "metadata_header": ("k", "v"),
                "step": 0,
            },
        ],
    )
    assert read(logdir, "00000/e/metadata.tsv") == b"0.5\n1.0\n2.5\n"
    assert read(logdir, "00000/f/metadata.tsv") == "café\nx\n".encode()
    assert read(logdir, "00000/g/metadata.tsv") == b"k\tv\na\t1\nb\t2\n"
    np.testing.assert_array_equal(
        np.loadtxt(os.path.join(logdir, "00000/e/tensors.tsv"), dtype=np.float32, delimiter="\t"), POINTS[:3]
    )


def test_no_writer_or_not_recording(logdir):
    assert embedding("e", "not an array") is False
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0), sl.record_if(False):
        assert embedding("e", "not an array") is False
    writer.close()
    assert not os.path.exists(os.path.join(logdir, "projector_config.pbtxt"))


# (id, kwargs besides name and step, error type, words in the message)
INVALID = [
    ("data rank 1", {"data": np.zeros(4)}, ValueError, ["'data'", "[n, d]", "[4]"]),
    ("data rank 3", {"data": np.zeros((2, 2, 2))}, ValueError, ["'data'", "[2, 2, 2]"]),
    ("no points", {"data": np.zeros((0, 3))}, ValueError, ["'data'", "[0, 3]"]),
    ("strings", {"data": np.array([["a"]])}, TypeError, ["'data'", "<U1"]),
    ("bools", {"data": np.zeros((2, 2), bool)}, TypeError, ["'data'", "bool"]),
    ("complex", {"data": np.zeros((2, 2), complex)}, TypeError, ["'data'", "complex128"]),
    ("not an array", {"data": object()}, TypeError, ["'data'", "object"]),
    (
        "too few labels",
        {"data": POINTS, "metadata": LABELS[:9]},
        ValueError,
        ["'metadata'", "10 points", "got 9"],
    ),
    ("labels a str", {"data": POINTS, "metadata": "abc"}, TypeError, ["'metadata'", "sequence", "str"]),
    (
        "tab in label",
        {"data": POINTS[:2], "metadata": ["a\tb", "c"]},
        ValueError,
        ["'metadata'", "entry 0", "tab"],
    ),
    (
        "newline in label",
        {"data": POINTS[:2], "metadata": ["a", "b\n"]},
        ValueError,
        ["'metadata'", "entry 1"],
    ),
    (
        "rows without header",
        {"data": POINTS[:2], "metadata": [[1, 2], [3, 4]]},
        ValueError,
        ["metadata_header"],
    ),
    (
        "row too short",
        {"data": POINTS[:2], "metadata": [[1, 2], [3]], "metadata_header": ["a", "b"]},
        ValueError,
        ["'metadata'", "entry 1", "expected 2 values", "got 1 values"],
    ),
    (
        "row not a row",
        {"data": POINTS[:2], "metadata": [[1, 2], 3], "metadata_header": ["a", "b"]},
        ValueError,
        ["'metadata'", "entry 1", "int 3"],
    ),
    (
        "one-column header",
        {"data": POINTS[:2], "metadata": [[1], [2]], "metadata_header": ["a"]},
        ValueError,
        ["'metadata_header'", "two or more", "got 1"],
    ),
    (
        "header without metadata",
        {"data": POINTS, "metadata_header": ["a", "b"]},
        ValueError,
        ["'metadata_header'"],
    ),
    (
        "too few images",
        {"data": POINTS, "label_images": IMAGES[:9]},
        ValueError,
        ["'label_images'", "10 points", "got 9"],
    ),
    (
        "images rank 5",
        {"data": POINTS, "label_images": IMAGES[..., None]},
        ValueError,
        ["'label_images'", "[n, h, w, c]"],
    ),
    (
        "images 5 channels",
        {"data": POINTS[:1], "label_images": np.zeros((1, 2, 2, 5))},
        ValueError,
        ["[1, 2, 2, 5]"],
    ),
    (
        "empty images",
        {"data": POINTS[:1], "label_images": np.zeros((1, 0, 2, 3))},
        ValueError,
        ["[1, 0, 2, 3]"],
    ),
    (
        "string images",
        {"data": POINTS[:1], "label_images": np.array([[["a"]]])},
        TypeError,
        ["'label_images'"],
    ),
]


@pytest.mark.parametrize(("kwargs", "error", "words"), [c[1:] for c in INVALID], ids=[c[0] for c in INVALID])
def test_rejected_at_the_call(logdir, kwargs, error, words):
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0), pytest.raises(error) as raised:
        embedding("emb", **kwargs)
    writer.close()
    message = str(raised.value)
    assert message.startswith("summarylib.embedding: tag 'emb': argument ")
    for word in words:
        assert word in message
    assert os.listdir(logdir) == [os.path.basename(writer.path)]


@pytest.fixture(scope="module", params=LOADERS, ids=["python loader", "rust loader"])
def served_embeddings(request, tmp_path_factory):
    """A TensorBoard over a logdir holding embeddings in its root run and in run `train`."""
    logdir = str(tmp_path_factory.mktemp("projector"))
    write_with_summarylib(
        logdir,
        [
            {"name": "words", "data": POINTS, "metadata": LABELS, "label_images": IMAGES, "step": 5},
            {"name": "plain", "data": POINTS[:4, :2], "step": 5},
            {
                "name": "table",
                "data": POINTS[:3],
                "metadata": [["a", 1], ["b", 2], ["c", 3]],
                "metadata_header": ["letter", "number"],
                "step": 6,
            },
        ],
    )
    write_with_summarylib(os.path.join(logdir, "train"), [{"name": "trained", "data": POINTS[:2], "step": 9}])
    with running_tensorboard(logdir, load_fast=request.param) as base:
        yield base


@pytest.mark.slow
def test_projector_lists_and_serves_embeddings(served_embeddings):
    base = served_embeddings
    runs = wait_for(lambda: get_json(base, "data/plugin/projector/runs"), lambda r: len(r) == 2)
    assert sorted(runs) == [".", "train"]
    info = get_json(base, "data/plugin/projector/info", run=".")
    listed = {e["tensorName"]: e for e in info["embeddings"]}
    assert sorted(listed) == ["plain:00005", "table:00006", "words:00005"]
    assert listed["words:00005"]["tensorShape"] == [10, 4]
    assert listed["plain:00005"]["tensorShape"] == [4, 2]
    assert listed["words:00005"]["sprite"]["singleImageDim"] == [6, 6]
    assert "metadataPath" not in listed["plain:00005"]
    trained = get_json(base, "data/plugin/projector/info", run="train")["embeddings"]
    assert [(e["tensorName"], e["tensorShape"]) for e in trained] == [("trained:00009", [2, 4])]

    tensor = get(base, "data/plugin/projector/tensor", run=".", name="words:00005")
    np.testing.assert_array_equal(np.frombuffer(tensor, np.float32).reshape(10, 4), POINTS)
    tensor = get(base, "data/plugin/projector/tensor", run="train", name="trained:00009")
    np.testing.assert_array_equal(np.frombuffer(tensor, np.float32).reshape(2, 4), POINTS[:2])
    metadata = get(base, "data/plugin/projector/metadata", run=".", name="words:00005").decode()
    assert metadata.splitlines() == LABELS
    metadata = get(base, "data/plugin/projector/metadata", run=".", name="table:00006").decode()
    assert metadata == "letter\tnumber\na\t1\nb\t2\nc\t3\n"
    sprite = get(base, "data/plugin/projector/sprite_image", run=".", name="words:00005")
    grid = pixels(sprite)
    assert grid.shape == (4 * 6, 4 * 6, 3)
    np.testing.assert_array_equal(grid[6:12, 0:6], (IMAGES[4] * 255.5).astype(np.uint8))
