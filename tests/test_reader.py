"""Reading event files back: values of every plugin from summarylib, tensorboardX and
hand-made files, and the byte-level scalar path against protobuf.

Damaged files: tests/test_reader_damage.py; following live runs and tables:
tests/test_reader_follow.py."""

from __future__ import annotations

import io
import os
import random

import numpy as np
import pytest
import soundfile
from PIL import Image

import summarylib as sl
from summarylib.decoding import Audio, Images, PrCurve, tensor_array
from summarylib.proto import event_pb2, histogram_pb2, plugin_data_pb2, summary_pb2, tensor_pb2, types_pb2
from summarylib.reader import (
    CorruptRecordError,
    ReadStatus,
    find_runs,
    iter_events,
    iter_records,
    iter_values,
    load_table,
)
from summarylib.reading import file_scan
from tests.event_files import (
    event,
    event_path,
    metadata,
    record_offsets,
    reference_values,
    same_values,
    scalar_event,
    scalar_tensor,
    write_events,
    write_scalars,
)

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
    pytest.importorskip("tensorboardX", reason="tensorboardX is not installed (the frameworks extra)")
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
