"""Reading event files back: values of every plugin from summarylib, tensorboardX and
hand-made files, the byte-level scalar path against protobuf, damaged files, follow mode."""

from __future__ import annotations

import io
import itertools
import math
import os
import random
import struct

import crc32c
import numpy as np
import pytest
import soundfile
from PIL import Image

import summarylib as sl
from summarylib.decoding import Audio, Images, PrCurve, decode_value, tensor_array
from summarylib.proto import event_pb2, histogram_pb2, plugin_data_pb2, summary_pb2, tensor_pb2, types_pb2
from summarylib.reader import (
    CORRUPT,
    TRUNCATED,
    ZERO_TAIL,
    CorruptRecordError,
    Reader,
    ReadStatus,
    find_runs,
    iter_events,
    iter_records,
    iter_values,
    load_table,
)
from summarylib.reading import file_scan, resync
from summarylib.writer import batch_crc, records

LEGACY_PLUGINS = {"simple_value": "scalars", "histo": "histograms", "image": "images", "audio": "audio"}


# Helpers -----------------------------------------------------------------------------------


def metadata(plugin: str, content: bytes = b"") -> summary_pb2.SummaryMetadata:
    meta = summary_pb2.SummaryMetadata()
    meta.plugin_data.plugin_name = plugin
    meta.plugin_data.content = content
    return meta


def scalar_tensor(value: float, dtype: int = types_pb2.DT_FLOAT) -> tensor_pb2.TensorProto:
    fmt = "<f" if dtype == types_pb2.DT_FLOAT else "<d"
    return tensor_pb2.TensorProto(dtype=dtype, tensor_shape={}, tensor_content=struct.pack(fmt, value))


def event(step: int, *values: summary_pb2.Summary.Value, wall_time: float = 1.5) -> event_pb2.Event:
    return event_pb2.Event(step=step, wall_time=wall_time, summary=summary_pb2.Summary(value=values))


def scalar_event(tag: str, step: int, value: float, wall_time: float = 1.5, plugin: str | None = "scalars"):
    summary_value = summary_pb2.Summary.Value(tag=tag, tensor=scalar_tensor(value))
    if plugin is not None:
        summary_value.metadata.CopyFrom(metadata(plugin))
    return event(step, summary_value, wall_time=wall_time)


def write_events(path: str, events, mode: str = "ab") -> None:
    """Frame events into a file by hand, as any writer would."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as file:
        file.write(b"".join(records.frame(e.SerializeToString()) for e in events))


def event_path(directory: str, name: str = "events.out.tfevents.1700000000.host.1.0") -> str:
    return os.path.join(directory, name)


def record_offsets(path: str) -> list[int]:
    """Start offsets of the complete records of a file, found without the reader."""
    with open(path, "rb") as file:
        data = file.read()
    offsets, position = [], 0
    while position + 12 <= len(data):
        (length,) = struct.unpack_from("<Q", data, position)
        if position + length + 16 > len(data):
            break
        offsets.append(position)
        position += length + 16
    return offsets


def write_scalars(logdir: str, count: int, tag: str = "loss") -> str:
    """A summarylib file with `count` scalars at steps 0..count-1, value step / 2."""
    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        for step in range(count):
            sl.scalar(tag, step / 2, step=step)
    writer.close()
    return writer.path


def reference_values(path: str) -> list[tuple]:
    """(run, tag, step, wall_time, plugin, value) of every value, parsed with protobuf, each
    tag's plugin taken from the first metadata of its run (legacy fields: their plugin)."""
    found = []
    for run, files in (find_runs(path) if os.path.isdir(path) else {".": [path]}).items():
        plugins: dict[str, str] = {}
        for file in files:
            for e in iter_events(file):
                for value in e.summary.value:
                    kind = value.WhichOneof("value")
                    claim = LEGACY_PLUGINS.get(kind)
                    if claim is None and value.HasField("metadata"):
                        claim = value.metadata.plugin_data.plugin_name
                    if claim is not None:
                        plugins.setdefault(value.tag, claim)
                    if kind is not None:
                        plugin = plugins.get(value.tag, "")
                        found.append(
                            (run, value.tag, e.step, e.wall_time, plugin, decode_value(value, plugin))
                        )
    return found


def same(a, b) -> bool:
    """Equality of decoded values: NaN equals NaN, arrays equal in dtype, shape and items."""
    if type(a) is not type(b):
        return False
    if isinstance(a, PrCurve):
        a, b = a.data, b.data
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return a == b


def same_values(got: list, expected: list) -> None:
    assert len(got) == len(expected)
    for have, want in zip(got, expected, strict=True):
        assert tuple(have[:5]) == tuple(want[:5]), (have, want)
        assert same(have[5], want[5]), (have, want)


# Values of every plugin ----------------------------------------------------------------------


def test_summarylib_scalars_with_run_tag_step_wall_time_and_plugin(logdir):
    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        for step in range(300):
            sl.scalar("train/loss", 1.0 / (step + 1), step=step)
            sl.scalar("train/acc", step / 300, step=step)
    writer.close()
    values = list(iter_values(logdir))
    assert [(v.run, v.tag, v.step, v.plugin) for v in values[:2]] == [
        (".", "train/loss", 0, "scalars"),
        (".", "train/acc", 0, "scalars"),
    ]
    loss = [v for v in values if v.tag == "train/loss"]
    assert [v.step for v in loss] == list(range(300))
    assert [v.value for v in loss] == [float(np.float32(1.0 / (s + 1))) for s in range(300)]
    assert all(isinstance(v.value, float) for v in values)
    same_values(values, reference_values(logdir))
    walls = [e.wall_time for e in iter_events(writer.path) if e.HasField("summary")]
    assert [v.wall_time for v in values] == walls


def test_byte_level_scalars_agree_with_protobuf_on_mixed_events(tmp_path):
    """Thousands of events of many shapes, in one file: equal-length tags, steps of every
    varint width (0 and negative too), wall time 0, simple values, doubles, float_val,
    metadata only on some values, multi-value events, non-summary events."""
    rng = random.Random(7)
    path = event_path(str(tmp_path / "run"))
    steps = [0, 1, 5, 127, 128, 300, 16383, 16384, 3_000_000, -5, 2**40]
    events = [event_pb2.Event(wall_time=1.0, file_version="brain.Event:2")]
    for i in range(4000):
        step, wall = rng.choice(steps), rng.choice([0.0, 1e9 + i / 7])
        kind = rng.random()
        if kind < 0.5:
            events.append(scalar_event(rng.choice(["loss", "acc1", "acc2"]), step, rng.uniform(-9, 9), wall))
        elif kind < 0.6:
            value = summary_pb2.Summary.Value(tag="legacy", simple_value=rng.uniform(-1, 1))
            events.append(event(step, value, wall_time=wall))
        elif kind < 0.7:
            value = summary_pb2.Summary.Value(
                tag="dbl", tensor=scalar_tensor(rng.random(), types_pb2.DT_DOUBLE)
            )
            value.metadata.CopyFrom(metadata("scalars"))
            events.append(event(step, value, wall_time=wall))
        elif kind < 0.8:
            tensor = tensor_pb2.TensorProto(
                dtype=types_pb2.DT_FLOAT, tensor_shape={}, float_val=[rng.random()]
            )
            value = summary_pb2.Summary.Value(tag="fv", tensor=tensor, metadata=metadata("scalars"))
            events.append(event(step, value, wall_time=wall))
        elif kind < 0.9:
            # Metadata only from the 2000th event on: earlier values have no plugin.
            plugin = "scalars" if i >= 2000 and rng.random() < 0.1 else None
            events.append(scalar_event("late", step, rng.random(), wall, plugin))
        elif kind < 0.95:
            pair = [summary_pb2.Summary.Value(tag=t, simple_value=rng.random()) for t in ("p1", "p2")]
            events.append(event(step, *pair, wall_time=wall))
        else:
            events.append(event_pb2.Event(step=step, session_log={"status": 1}))
    write_events(path, events)
    expected = reference_values(path)
    same_values(list(iter_values(path)), expected)
    assert {v[4] for v in expected if v[1] == "late"} == {"", "scalars"}
    same_values(
        list(iter_values(path, tags=["acc1", "late"])), [v for v in expected if v[1] in ("acc1", "late")]
    )
    same_values(list(iter_values(path, plugins="")), [v for v in expected if v[4] == ""])
    table = load_table(path, as_dataframe=False)
    scalars = [v for v in expected if v[4] == "scalars"]
    assert table["tag"].tolist() == [v[1] for v in scalars]
    assert table["step"].tolist() == [v[2] for v in scalars]
    assert table["value"].tolist() == [v[5] for v in scalars]


def test_scan_in_small_chunks_reads_the_same_records(tmp_path):
    path = write_scalars(str(tmp_path), 500)
    whole = list(iter_records(path))
    for chunk_size in (64, 100, 1000):
        status = ReadStatus()
        chunks = list(file_scan.scan(path, status, chunk_size=chunk_size))
        assert [chunk.payload(i) for chunk in chunks for i in range(len(chunk))] == whole
        assert status.next_offset == os.path.getsize(path) and not status.problems


def png(pixels: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(pixels.squeeze(-1) if pixels.shape[-1] == 1 else pixels).save(buffer, format="PNG")
    return buffer.getvalue()


def wav(samples: np.ndarray, rate: int) -> bytes:
    buffer = io.BytesIO()
    soundfile.write(buffer, samples, rate, format="WAV", subtype="PCM_16")
    return buffer.getvalue()


def test_v2_tensor_summaries_of_every_plugin(logdir):
    rng = np.random.default_rng(0)
    histogram = np.array([[0.0, 1.0, 3.0], [1.0, 2.5, 0.0], [2.5, 4.0, 7.0]])
    images = [
        rng.integers(0, 255, (4, 5, 3), dtype=np.uint8),
        rng.integers(0, 255, (4, 5, 1), dtype=np.uint8),
    ]
    clips = [np.sin(np.linspace(0, 20, 800)).reshape(-1, 1) * 0.5, np.zeros((800, 1))]
    curve = rng.random((6, 5)).astype(np.float32)
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=4):
        sl.write("h", histogram, metadata=metadata("histograms"))
        sl.write(
            "img",
            np.array([b"5", b"4", *(png(i) for i in images)], dtype=object),
            metadata=metadata("images"),
        )
        audio_meta = metadata("audio", plugin_data_pb2.AudioPluginData(encoding=1).SerializeToString())
        sl.write(
            "snd", np.array([[wav(c, 8000), b"a sine"] for c in clips], dtype=object), metadata=audio_meta
        )
        sl.write("txt", "hello *world*", metadata=metadata("text"))
        sl.write("table", np.array([["a", "b"], ["c", "d"]]), metadata=metadata("text"))
        pr_meta = metadata(
            "pr_curves", plugin_data_pb2.PrCurvePluginData(num_thresholds=5).SerializeToString()
        )
        sl.write("pr", curve, metadata=pr_meta)
        sl.write("generic", np.arange(6, dtype=np.int32).reshape(2, 3))
    writer.close()
    values = {v.tag: v for v in iter_values(logdir)}
    assert {tag: (v.plugin, v.step) for tag, v in values.items()} == {
        "h": ("histograms", 4),
        "img": ("images", 4),
        "snd": ("audio", 4),
        "txt": ("text", 4),
        "table": ("text", 4),
        "pr": ("pr_curves", 4),
        "generic": ("", 4),
    }
    assert values["h"].value.dtype == np.float64 and np.array_equal(values["h"].value, histogram)
    decoded_images = values["img"].value
    assert isinstance(decoded_images, Images) and (decoded_images.width, decoded_images.height) == (5, 4)
    assert all(np.array_equal(a, b) for a, b in zip(decoded_images.arrays(), images, strict=True))
    sound = values["snd"].value
    assert isinstance(sound, Audio) and sound.sample_rate == 8000 and sound.labels == ("a sine", "a sine")
    assert np.allclose(sound.samples(0), clips[0], atol=1 / 32767) and sound.samples(1).shape == (800, 1)
    assert values["txt"].value == "hello *world*"
    assert values["table"].value.tolist() == [["a", "b"], ["c", "d"]]
    pr = values["pr"].value
    assert isinstance(pr, PrCurve) and np.array_equal(pr.data, curve)
    assert np.array_equal(pr.as_dict()["recall"], curve[5]) and pr.thresholds.tolist() == [
        0,
        0.25,
        0.5,
        0.75,
        1,
    ]
    assert np.array_equal(values["generic"].value, np.arange(6).reshape(2, 3))


def test_legacy_v1_values(logdir):
    from tensorboard import data_compat
    from tensorboard.compat.proto import summary_pb2 as tb_summary_pb2
    from tensorboard.util import tensor_util

    histo = histogram_pb2.HistogramProto(
        min=-1.5, max=9.0, num=6, sum=10, bucket_limit=[-2, -1, 0, 5, 10, 1.7e308], bucket=[0, 1, 0, 2, 3, 0]
    )
    pixels = np.arange(24, dtype=np.uint8).reshape(2, 4, 3)
    clip = wav(np.linspace(-0.5, 0.5, 100).reshape(-1, 1), 16000)
    summary = summary_pb2.Summary(
        value=[
            summary_pb2.Summary.Value(tag="s", simple_value=0.25),
            summary_pb2.Summary.Value(tag="h", histo=histo),
            summary_pb2.Summary.Value(
                tag="i", image={"width": 4, "height": 2, "encoded_image_string": png(pixels)}
            ),
            summary_pb2.Summary.Value(tag="a", audio={"sample_rate": 16000, "encoded_audio_string": clip}),
        ]
    )
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=2):
        sl.write_raw_pb(summary)
    writer.close()
    values = {v.tag: v for v in iter_values(logdir)}
    assert {tag: v.plugin for tag, v in values.items()} == {
        "s": "scalars",
        "h": "histograms",
        "i": "images",
        "a": "audio",
    }
    assert values["s"].value == 0.25
    tb_value = tb_summary_pb2.Summary.Value.FromString(summary.value[1].SerializeToString())
    tensorboard_rows = tensor_util.make_ndarray(data_compat.migrate_value(tb_value).tensor)
    assert values["h"].value.tolist() == [[-1.5, -1, 1], [-1, 0, 0], [0, 5, 2], [5, 9, 3]]
    assert np.array_equal(values["h"].value.astype(np.float32), tensorboard_rows)
    assert np.array_equal(values["i"].value.array(), pixels)
    assert values["a"].value.sample_rate == 16000 and values["a"].value.samples().shape == (100, 1)


def test_files_written_by_tensorboardx(tmp_path):
    from tensorboardX import SummaryWriter

    image = np.arange(3 * 4 * 5, dtype=np.uint8).reshape(3, 4, 5)
    clip = np.sin(np.linspace(0, 10, 400)) * 0.5
    labels, predictions = np.array([1, 0, 1, 1]), np.array([0.9, 0.2, 0.4, 0.7])
    writer = SummaryWriter(str(tmp_path))
    for step in range(3):
        writer.add_scalar("loss", 1.0 / (step + 1), step)
    writer.add_histogram("weights", np.arange(10.0), 1)
    writer.add_image("image", image, 1)
    writer.add_audio("audio", clip, 1, sample_rate=8000)
    writer.add_text("note", "hello", 1)
    writer.add_pr_curve("pr", labels, predictions, 1, num_thresholds=5)
    writer.close()
    values = list(iter_values(str(tmp_path)))
    same_values(values, reference_values(str(tmp_path)))
    by_tag = {v.tag: v for v in values}
    assert [(v.step, v.value) for v in values if v.tag == "loss"] == [
        (0, 1.0),
        (1, 0.5),
        (2, float(np.float32(1 / 3))),
    ]
    assert by_tag["weights"].plugin == "histograms" and by_tag["weights"].value[:, 2].sum() == 10
    assert np.array_equal(by_tag["image"].value.array(), image.transpose(1, 2, 0))
    assert by_tag["audio"].value.sample_rate == 8000
    assert np.allclose(by_tag["audio"].value.samples()[:, 0], clip, atol=1 / 32767)
    assert by_tag["note/text_summary"].value.tolist() == ["hello"]
    curve = by_tag["pr"].value
    assert curve.data.shape == (6, 5) and curve.as_dict()["true_positives"][0] == 3


def test_metadata_on_a_tags_first_value_only_is_remembered_per_run(tmp_path):
    first = scalar_event("x", 1, 1.0)
    later = [scalar_event("x", step, float(step), plugin=None) for step in range(2, 40)]
    write_events(event_path(str(tmp_path / "a")), [first, *later])
    write_events(event_path(str(tmp_path / "a"), "events.out.tfevents.1700000001.host.1.0"), later[:3])
    write_events(event_path(str(tmp_path / "b")), later)  # another run: never told the plugin
    values = list(iter_values(str(tmp_path)))
    assert {v.plugin for v in values if v.run == "a"} == {"scalars"}
    assert [v.value for v in values if v.run == "a"][:3] == [1.0, 2.0, 3.0]
    others = [v for v in values if v.run == "b"]
    assert {v.plugin for v in others} == {""} and isinstance(others[0].value, np.ndarray)
    assert others[0].value.shape == () and others[0].value.dtype == np.float32


def test_filters_apply_before_values_are_decoded(logdir):
    broken = summary_pb2.Summary.Value(
        tag="bad",
        metadata=metadata("histograms"),
        tensor=tensor_pb2.TensorProto(
            dtype=types_pb2.DT_DOUBLE, tensor_shape={"dim": [{"size": 2}, {"size": 3}]}
        ),
    )
    broken.tensor.tensor_content = b"\0" * 8  # 1 value for 6 elements
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=1):
        sl.scalar("good", 2.0)
        sl.write_raw_pb(summary_pb2.Summary(value=[broken]))
    writer.close()
    assert [v.tag for v in iter_values(logdir, tags=["good"])] == ["good"]
    assert [v.tag for v in iter_values(logdir, plugins="scalars")] == ["good"]
    offset = record_offsets(writer.path)[2]
    with pytest.raises(
        CorruptRecordError, match=rf"byte offset {offset}: value of tag 'bad' cannot be decoded"
    ):
        list(iter_values(logdir))


def test_runs_are_found_as_tensorboard_finds_them(tmp_path):
    logdir = str(tmp_path)
    write_events(event_path(logdir), [scalar_event("t", 1, 1.0)])
    write_events(event_path(os.path.join(logdir, "train")), [scalar_event("t", 2, 2.0)])
    write_events(event_path(os.path.join(logdir, "train", "deep")), [scalar_event("t", 3, 3.0)])
    later = event_path(os.path.join(logdir, "train"), "events.out.tfevents.1800000000.host.1.0")
    write_events(later, [scalar_event("t", 4, 4.0)])
    write_events(os.path.join(logdir, "profile", "events.out.tfevents.1.profile-empty"), [])
    with open(os.path.join(logdir, "train", "notes.txt"), "w") as file:
        file.write("not an event file")
    assert find_runs(logdir) == {
        ".": [event_path(logdir)],
        "profile": [],
        "train": [event_path(os.path.join(logdir, "train")), later],
        os.path.join("train", "deep"): [event_path(os.path.join(logdir, "train", "deep"))],
    }
    values = [(v.run, v.step) for v in iter_values(logdir)]
    assert values == [(".", 1), ("train", 2), ("train", 4), (os.path.join("train", "deep"), 3)]
    assert [v.step for v in iter_values(logdir, runs=["train"])] == [2, 4]
    assert [v.run for v in iter_values(later)] == ["."]
    with pytest.raises(FileNotFoundError, match="no event file or directory"):
        iter_values(os.path.join(logdir, "missing"))


def read_tensor(dtype: int, shape: list[int], **values) -> np.ndarray:
    dims = {"dim": [{"size": size} for size in shape]}
    return tensor_array(tensor_pb2.TensorProto(dtype=dtype, tensor_shape=dims, **values))


def test_tensors_read_as_tensorflow_reads_them():
    assert read_tensor(types_pb2.DT_FLOAT, [2, 2], float_val=[1.5]).tolist() == [[1.5, 1.5], [1.5, 1.5]]
    assert read_tensor(types_pb2.DT_INT64, [2, 2], int64_val=[1, 2]).tolist() == [[1, 2], [2, 2]]
    assert read_tensor(types_pb2.DT_INT32, [2, 2]).tolist() == [[0, 0], [0, 0]]
    half = read_tensor(types_pb2.DT_HALF, [], half_val=[0x3C00])
    assert half.dtype == np.float16 and half == 1.0
    assert read_tensor(types_pb2.DT_BFLOAT16, [], half_val=[0x3FC0]) == 1.5
    assert read_tensor(types_pb2.DT_BOOL, [2], bool_val=[True, False]).tolist() == [True, False]
    assert read_tensor(types_pb2.DT_STRING, [2], string_val=[b"a", b"b"]).tolist() == [b"a", b"b"]
    with pytest.raises(ValueError, match="3 values for a tensor of shape"):
        read_tensor(types_pb2.DT_FLOAT, [2], float_val=[1, 2, 3])
    with pytest.raises(ValueError, match="tensor_content holds 1 values for a tensor of shape"):
        read_tensor(types_pb2.DT_FLOAT, [2], tensor_content=b"\0" * 4)


# Damaged files -----------------------------------------------------------------------------


@pytest.fixture
def sound_file(tmp_path):
    """A summarylib file of 200 scalars (steps 0..199) and the offsets of its 201 records."""
    path = write_scalars(str(tmp_path / "run"), 200)
    offsets = record_offsets(path)
    assert len(offsets) == 201
    return path, offsets


def damage(path: str, offset: int, data: bytes) -> None:
    with open(path, "r+b") as file:
        file.seek(offset)
        file.write(data)


def flip(path: str, offset: int) -> None:
    with open(path, "rb") as file:
        file.seek(offset)
        byte = file.read(1)
    damage(path, offset, bytes([byte[0] ^ 0x40]))


@pytest.mark.parametrize("cut", [7, 20])  # inside the header, inside the payload
def test_truncated_last_record_ends_reading_and_is_reported(sound_file, cut):
    path, offsets = sound_file
    os.truncate(path, offsets[-1] + cut)
    problems = []
    assert [v.step for v in iter_values(path, problems=problems)] == list(range(199))
    (problem,) = problems
    assert (problem.path, problem.offset, problem.kind, problem.size) == (path, offsets[-1], TRUNCATED, cut)
    assert f"at byte offset {offsets[-1]}" in str(problem)
    status = ReadStatus()
    assert len(list(iter_records(path, status))) == 200
    assert status.end_offset == offsets[-1]
    assert status.end_offset + status.truncated_bytes == os.path.getsize(path)


def test_zero_filled_tail_is_reported_as_such(sound_file):
    path, _ = sound_file
    size = os.path.getsize(path)
    with open(path, "ab") as file:
        file.write(bytes(5000))
    problems = []
    assert [v.step for v in iter_values(path, problems=problems)] == list(range(200))
    assert [(p.offset, p.kind, p.size) for p in problems] == [(size, ZERO_TAIL, 5000)]
    assert "zero-filled tail" in str(problems[0])


def test_flipped_byte_in_the_middle_raises_naming_file_and_offset(sound_file):
    path, offsets = sound_file
    flip(path, offsets[100] + 30)
    steps = []
    with pytest.raises(
        CorruptRecordError, match=rf"{path}: corrupt record at byte offset {offsets[100]}"
    ) as error:
        steps.extend(v.step for v in iter_values(path))
    assert steps == list(range(99)) and error.value.offset == offsets[100]
    with pytest.raises(CorruptRecordError, match="payload CRC mismatch"):
        list(iter_records(path))


@pytest.mark.parametrize(("where", "why"), [(2, "length CRC mismatch"), (30, "payload CRC mismatch")])
def test_tolerant_mode_skips_to_the_next_valid_record(sound_file, where, why):
    path, offsets = sound_file
    flip(path, offsets[100] + where)
    problems = []
    steps = [v.step for v in iter_values(path, tolerant=True, problems=problems)]
    assert steps == [s for s in range(200) if s != 99]
    (problem,) = problems
    assert (problem.offset, problem.kind, problem.size) == (
        offsets[100],
        CORRUPT,
        offsets[101] - offsets[100],
    )
    assert why in problem.detail


def test_zeros_in_the_middle_are_corruption_not_a_tail(sound_file):
    path, offsets = sound_file
    damage(path, offsets[50], bytes(offsets[52] - offsets[50]))
    with pytest.raises(
        CorruptRecordError, match=f"byte offset {offsets[50]}: zero bytes where a record header"
    ):
        list(iter_values(path))
    problems = []
    steps = [v.step for v in iter_values(path, tolerant=True, problems=problems)]
    assert steps == [s for s in range(200) if s not in (49, 50)]
    assert [(p.offset, p.kind) for p in problems] == [(offsets[50], CORRUPT)]


def test_garbage_tail_is_corruption(sound_file):
    path, _ = sound_file
    size = os.path.getsize(path)
    with open(path, "ab") as file:
        file.write(b"\xff" * 40)
    with pytest.raises(CorruptRecordError, match=f"byte offset {size}"):
        list(iter_values(path))
    problems = []
    assert len(list(iter_values(path, tolerant=True, problems=problems))) == 200
    assert [(p.offset, p.kind, p.size) for p in problems] == [(size, CORRUPT, 40)]


def test_crc_checking_can_be_skipped(sound_file):
    path, offsets = sound_file
    flip(path, offsets[100] + 12 + value_position(path, offsets[100]))
    values = list(iter_values(path, check_crc=False))
    assert [v.step for v in values] == list(range(200)) and values[99].value != 49.5


def value_position(path: str, offset: int) -> int:
    """Position of the value 49.5 in the payload of the scalar record at `offset`."""
    with open(path, "rb") as file:
        file.seek(offset)
        (length,) = struct.unpack("<Q", file.read(12)[:8])
        payload = file.read(length)
    return payload.index(struct.pack("<f", 49.5))


def test_resync_finds_a_record_across_windows(sound_file):
    path, offsets = sound_file
    with open(path, "rb") as file:
        assert resync.resync(file, offsets[3] + 1, os.path.getsize(path), window=32) == offsets[4]


def test_checking_crcs_of_many_records_at_once_matches_crc32c():
    rng = np.random.default_rng(1)
    rows = np.tile(rng.integers(0, 256, 56, dtype=np.uint8), (40, 1))
    rows[:, [3, 17, 50]] = rng.integers(0, 256, (40, 3), dtype=np.uint8)
    crcs = batch_crc.row_crcs(rows, 53)
    assert crcs.tolist() == [crc32c.crc32c(row[:53].tobytes()) for row in rows]
    noise = bytearray(rng.integers(0, 256, 300, dtype=np.uint8).tobytes())
    header = records.header(1234)
    noise[77:89] = header
    assert 77 in resync.header_candidates(noise, len(noise))


# Follow mode -------------------------------------------------------------------------------


def test_follow_mode_continues_where_it_stopped_and_picks_up_new_files_and_runs(tmp_path):
    logdir = str(tmp_path)
    path = event_path(os.path.join(logdir, "a"))
    write_events(path, [scalar_event("x", s, float(s)) for s in range(5)])
    follow = Reader(logdir)
    assert [v.step for v in follow] == [0, 1, 2, 3, 4]
    assert list(follow) == []
    complete = records.frame(scalar_event("x", 5, 5.0).SerializeToString())
    with open(path, "ab") as file:
        file.write(complete[:30])  # a record being written
    assert list(follow) == []
    assert [(p.offset, p.kind) for p in follow.problems] == [(os.path.getsize(path) - 30, TRUNCATED)]
    with open(path, "ab") as file:
        file.write(complete[30:])
    write_events(path, [scalar_event("x", 6, 6.0)])
    write_events(event_path(os.path.join(logdir, "b")), [scalar_event("y", 1, 1.0)])
    write_events(
        event_path(os.path.join(logdir, "a"), "events.out.tfevents.1800000000.h"), [scalar_event("x", 7, 7.0)]
    )
    assert [(v.run, v.step) for v in follow] == [("a", 5), ("a", 6), ("a", 7), ("b", 1)]
    assert follow.problems == []


def test_follow_mode_hands_out_nothing_twice_when_iteration_stops_early(tmp_path):
    path = event_path(str(tmp_path))
    values = [summary_pb2.Summary.Value(tag=t, simple_value=1.0) for t in ("p", "q", "r")]
    write_events(path, [event(0, *values), *(scalar_event("x", s, 0.0) for s in range(1, 40))])
    follow = Reader(path)
    seen = []
    for count in (2, 1, 5, 100):
        seen += [(v.tag, v.step) for v in itertools.islice(follow.values(), count)]
    assert seen == [("p", 0), ("q", 0), ("r", 0)] + [("x", s) for s in range(1, 40)]


def test_follow_mode_table_holds_only_new_values(tmp_path):
    path = event_path(str(tmp_path))
    write_events(path, [scalar_event("x", s, float(s)) for s in range(3)])
    follow = Reader(path)
    assert follow.table(as_dataframe=False)["step"].tolist() == [0, 1, 2]
    write_events(path, [scalar_event("x", 3, 3.0)])
    assert follow.table(as_dataframe=False)["value"].tolist() == [3.0]


# Tables ------------------------------------------------------------------------------------


def test_load_table_as_numpy_columns(tmp_path):
    write_scalars(str(tmp_path / "train"), 50, "loss")
    write_scalars(str(tmp_path / "eval"), 20, "acc")
    writer = sl.create_file_writer(str(tmp_path / "eval"))
    with writer.as_default(step=1):
        sl.write("h", np.ones((2, 3)), metadata=metadata("histograms"))
    writer.close()
    table = load_table(str(tmp_path), as_dataframe=False)
    assert list(table) == ["run", "tag", "step", "wall_time", "value"]
    assert table["run"].tolist() == ["eval"] * 20 + ["train"] * 50
    assert table["tag"].tolist() == ["acc"] * 20 + ["loss"] * 50
    assert table["step"].dtype == np.int64 and table["step"].tolist() == list(range(20)) + list(range(50))
    assert table["value"].dtype == np.float64 and table["value"][-1] == 24.5
    assert table["wall_time"].dtype == np.float64
    everything = load_table(str(tmp_path), plugins=None, as_dataframe=False)
    assert everything["value"].dtype == object and np.array_equal(everything["value"][20], np.ones((2, 3)))
    empty = load_table(str(tmp_path), tags="missing", as_dataframe=False)
    assert [len(column) for column in empty.values()] == [0] * 5


def test_load_table_as_pandas_dataframe(tmp_path):
    import pandas as pd

    write_scalars(str(tmp_path / "train"), 30, "loss")
    write_scalars(str(tmp_path / "eval"), 10, "acc")
    frame = load_table(str(tmp_path))  # pandas is installed: a DataFrame by default
    columns = load_table(str(tmp_path), as_dataframe=False)
    assert isinstance(frame, pd.DataFrame) and list(frame.columns) == [
        "run",
        "tag",
        "step",
        "wall_time",
        "value",
    ]
    assert isinstance(frame["run"].dtype, pd.CategoricalDtype)
    for name, column in columns.items():
        assert frame[name].tolist() == column.tolist()
    assert frame.groupby("run", observed=True)["step"].max().to_dict() == {"eval": 9, "train": 29}
