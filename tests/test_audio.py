"""The audio op: TensorFlow 2's encoding (decoded samples, WAV format, labels, metadata),
TensorBoard's audio dashboard reading it, and every input the issue names, accepted or
rejected at the call."""

from __future__ import annotations

import io
import itertools
import math
import os
import warnings

import numpy as np
import pytest
import soundfile
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import summarylib as sl
from summarylib.ops.audio import encoding as audio_encoding
from summarylib.proto import summary_pb2, types_pb2
from tests.helpers import ArrayLike, written_values
from tests.reference.cases_media import AUDIO_CASES
from tests.tensorboard_data import provider_for

REFERENCE = os.path.join(os.path.dirname(__file__), "reference", "tf2_audio.tfevents")
_unique = itertools.count()


def unique_tag(prefix: str) -> str:
    """A tag no other test has used in this process (the clipping warning is once per tag)."""
    return f"{prefix}/{next(_unique)}"


def decode_wav(wav: bytes) -> tuple[int, np.ndarray]:
    """(sample rate, [t, c] int16 samples) of a 16-bit PCM WAV file."""
    info = soundfile.info(io.BytesIO(wav))
    assert (info.format, info.subtype) == ("WAV", "PCM_16")
    samples, rate = soundfile.read(io.BytesIO(wav), dtype="int16", always_2d=True)
    return rate, samples


def decode_tensor(tensor) -> list[tuple[int, np.ndarray]]:
    """[(sample rate, samples)] of an audio summary's [n, 2] string tensor of (WAV, label)."""
    assert tensor.dtype == types_pb2.DT_STRING
    rows = len(tensor.string_val) // 2
    assert [d.size for d in tensor.tensor_shape.dim] == [rows, 2]
    assert list(tensor.string_val[1::2]) == [b""] * rows
    return [decode_wav(wav) for wav in tensor.string_val[::2]]


def encoded(data, sample_rate, max_outputs=3, tag="au"):
    tensor, metadata = audio_encoding.encode(tag, data, sample_rate, max_outputs)
    assert metadata.plugin_data.plugin_name == "audio"
    return decode_tensor(tensor)


def logged(logdir, data, sample_rate, max_outputs=3, tag="au"):
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=4):
        assert sl.audio(tag, data, sample_rate, max_outputs=max_outputs)
    writer.close()
    ((step, value),) = written_values(writer.path)
    assert step == 4 and value.tag == tag
    assert value.metadata.plugin_data.plugin_name == "audio"
    return decode_tensor(value.tensor)


PATHS = {
    "encode": lambda logdir, data, rate, max_outputs: encoded(data, rate, max_outputs),
    "op": logged,
}


def clip(*frames) -> np.ndarray:
    """One [t, c] int16 clip of the given frames (numbers or per-channel tuples)."""
    return np.array(frames, dtype=np.int16).reshape(len(frames), -1)


_STEREO = np.array([[[0.5, -0.5], [0.25, -0.25], [0, 1]], [[1, 1], [-1, -1], [0, 0]]], dtype=np.float32)
_STEREO_PCM = [
    clip((16384, -16384), (8192, -8192), (0, 32767)),
    clip((32767, 32767), (-32768, -32768), (0, 0)),
]
_HALF = 1 / 32768 / 2

# (id, data, sample_rate, max_outputs, expected [(rate, samples)])
BEHAVIOUR = [
    (
        "[t] is one mono clip",
        np.float32([0, 0.5, -0.5, 1, -1]),
        8000,
        3,
        [(8000, clip(0, 16384, -16384, 32767, -32768))],
    ),
    (
        "halves round away from zero",
        np.float32([_HALF, 3 * _HALF, -_HALF, 5 * _HALF]),
        8000,
        3,
        [(8000, clip(1, 2, -1, 3))],
    ),
    ("[t, c] is one clip", _STEREO[0], 16000, 3, [(16000, _STEREO_PCM[0])]),
    ("[k, t, c]", _STEREO, 44100, 3, list(zip([44100] * 2, _STEREO_PCM, strict=True))),
    ("max_outputs keeps the first", _STEREO, 8000, 1, [(8000, _STEREO_PCM[0])]),
    ("max_outputs 0", _STEREO, 8000, 0, []),
    ("max_outputs numpy int", _STEREO, 8000, np.int16(1), [(8000, _STEREO_PCM[0])]),
    ("empty batch", np.zeros((0, 5, 1), np.float32), 8000, 3, []),
    ("empty clips", np.zeros((2, 0, 3), np.float32), 8000, 3, [(8000, np.zeros((0, 3), np.int16))] * 2),
    ("float64 via float32", np.float64([0.5, 1 / 3]), 8000, 3, [(8000, clip(16384, 10923))]),
    ("float16", np.float16([0.5, -0.25]), 8000, 3, [(8000, clip(16384, -8192))]),
    ("nested lists", [[0.5], [-0.5]], 8000, 3, [(8000, clip(16384, -16384))]),
    ("integral float rate", np.float32([0.5]), 22050.0, 3, [(22050, clip(16384))]),
    ("numpy int rate", np.float32([0.5]), np.int32(48000), 3, [(48000, clip(16384))]),
    ("largest rate", np.float32([0.5]), 2**31 - 1, 3, [(2**31 - 1, clip(16384))]),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(
    ("data", "rate", "max_outputs", "expected"), [b[1:] for b in BEHAVIOUR], ids=[b[0] for b in BEHAVIOUR]
)
def test_behaviour(logdir, path, data, rate, max_outputs, expected):
    clips = PATHS[path](logdir, data, rate, max_outputs)
    assert [r for r, _ in clips] == [r for r, _ in expected]
    for (_, got), (_, want) in zip(clips, expected, strict=True):
        np.testing.assert_array_equal(got, want)


def test_explicit_wav_encoding_and_metadata():
    tensor, metadata = audio_encoding.encode("au", np.zeros(3, np.float32), 8000, encoding="wav")
    ((rate, samples),) = decode_tensor(tensor)
    assert rate == 8000
    np.testing.assert_array_equal(samples, clip(0, 0, 0))
    assert metadata.plugin_data.content == b"\x10\x0b"  # AudioPluginData{encoding: WAV}
    assert metadata == audio_encoding.create_metadata()


def assert_same_audio(ours, theirs) -> None:
    """Same tags, steps, metadata, tensor dtype and shape, labels, WAV format and samples."""
    assert [(s, v.tag, v.metadata.SerializeToString()) for s, v in ours] == [
        (s, v.tag, v.metadata.SerializeToString()) for s, v in theirs
    ]
    for (_, our), (_, their) in zip(ours, theirs, strict=True):
        assert our.tensor.dtype == their.tensor.dtype
        assert our.tensor.tensor_shape == their.tensor.tensor_shape
        for (our_rate, mine), (tf_rate, tf) in zip(
            decode_tensor(our.tensor), decode_tensor(their.tensor), strict=True
        ):
            assert our_rate == tf_rate
            np.testing.assert_array_equal(mine, tf, err_msg=our.tag)


def test_same_summaries_as_tensorflow(logdir):
    writer = sl.create_file_writer(logdir)
    with writer.as_default(), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a case is out of range on purpose
        for step, (tag, data, rate, max_outputs, description) in enumerate(AUDIO_CASES):
            assert sl.audio(tag, data, rate, step=step, max_outputs=max_outputs, description=description)
        writer.flush()
    writer.close()
    theirs = written_values(REFERENCE)
    assert len(theirs) == len(AUDIO_CASES)
    assert_same_audio(written_values(writer.path), theirs)


def test_encoder_matches_tensorflow():
    ours = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for step, (tag, data, rate, max_outputs, description) in enumerate(AUDIO_CASES):
            tensor, metadata = audio_encoding.encode(tag, data, rate, max_outputs, None, description)
            ours.append((step, summary_pb2.Summary.Value(tag=tag, tensor=tensor, metadata=metadata)))
    assert_same_audio(ours, written_values(REFERENCE))


def test_tensorboard_audio_dashboard_reads_it(logdir):
    from tensorboard import context
    from tensorboard.plugins.audio import metadata as tb_metadata

    clips = {step: np.full((2, 100, 1), step / 4, np.float32) for step in range(3)}
    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        for step, batch in clips.items():
            sl.audio("speech", batch, 16000, step=step, description="Speech.")
    writer.close()
    provider = provider_for(logdir)
    ctx = context.RequestContext()
    (series,) = provider.list_blob_sequences(ctx, experiment_id="", plugin_name="audio")["."].values()
    assert series.max_length == 2 and series.description == "Speech."
    content = tb_metadata.parse_plugin_metadata(series.plugin_content)
    assert content.encoding == tb_metadata.Encoding.Value("WAV")
    data = provider.read_blob_sequences(ctx, experiment_id="", plugin_name="audio", downsample=100)
    assert [d.step for d in data["."]["speech"]] == list(clips)
    for datum, batch in zip(data["."]["speech"], clips.values(), strict=True):
        for reference, samples in zip(datum.values, batch, strict=True):
            rate, decoded = decode_wav(provider.read_blob(ctx, blob_key=reference.blob_key))
            assert rate == 16000
            np.testing.assert_array_equal(decoded, np.round(samples * 32768).astype(np.int16))


def expected_pcm(samples: np.ndarray) -> np.ndarray:
    """TF's encode_wav samples, one Python number at a time: float32 x * 32768, NaN as 0,
    clamped, rounded half away from zero."""

    def convert(x):
        with np.errstate(over="ignore"):
            y = float(np.float32(x) * np.float32(32768))
        if y != y:
            return 0
        y = min(max(y, -32768.0), 32767.0)
        return int(math.copysign(math.floor(abs(y) + 0.5), y))

    flat = [convert(x) for x in samples.reshape(-1)]
    return np.array(flat, dtype=np.int16).reshape(samples.shape)


@pytest.mark.parametrize(
    "samples",
    [
        [1.0, -1.0, 0.0, -0.0],  # 1.0 is 32768, one past int16
        [32767.5 / 32768, 32767.49 / 32768, -32767.5 / 32768, 0.5 / 32768, -0.5 / 32768],
        [1.5 / 32768, 2.5 / 32768, -1.5 / 32768, 0.49999997 / 32768],  # halves away from zero
        [0.25, -0.75],  # no sample near 1: no clamping pass
        [1.0000001, np.nan, -2.0, np.inf, -np.inf],  # clipped
        [],
    ],
)
def test_pcm16_at_the_edges(samples):
    data = np.array(samples, np.float32).reshape(-1, 1)
    with np.errstate(invalid="ignore"):
        outside = bool(np.any(~(np.abs(data) <= 1)))
    pcm, clipped = audio_encoding.to_pcm16(data)
    np.testing.assert_array_equal(pcm, expected_pcm(data))
    assert clipped == outside


@st.composite
def audio_batches(draw):
    dtype = np.dtype(draw(st.sampled_from([np.float16, np.float32, np.float64])))
    shape = (draw(st.integers(0, 3)), draw(st.integers(0, 40)), draw(st.integers(1, 3)))
    values = st.one_of(st.floats(-1, 1, width=16), st.floats(width=8 * dtype.itemsize))
    if dtype == np.float64:  # keep most samples where float32 is exact, so halves appear
        values = st.one_of(st.integers(-65537, 65537).map(lambda n: n / 65536), values)
    return draw(hnp.arrays(dtype, shape, elements=values))


def assert_summary_is_encoding(tag, data, rate, max_outputs) -> None:
    """The op's Summary bytes (laid out by hand) are the encoder's, serialized by protobuf."""
    tensor, metadata = audio_encoding.encode(tag, data, rate, max_outputs, None, "Described.")
    expected = summary_pb2.Summary(
        value=[summary_pb2.Summary.Value(tag=tag, tensor=tensor, metadata=metadata)]
    )
    prepared = audio_encoding.prepare(tag, data, rate, max_outputs, None, "Described.")
    assert audio_encoding.summary(*prepared) == expected.SerializeToString()


def test_any_batch_round_trips(logdir):
    """Every accepted batch: the encoder gives TF's samples (hypothesis shrinks on that), and
    the op writes what the encoder gives (one writer for all examples, checked at the end)."""
    writer = sl.create_file_writer(logdir)
    encodings = []

    @settings(max_examples=60, deadline=None)
    @given(audio_batches(), st.integers(1, 2**32 // 8 - 1), st.integers(0, 4))
    def check(batch, rate, max_outputs):
        clips = encoded(batch, rate, max_outputs)
        assert_summary_is_encoding("au", batch, rate, max_outputs)
        kept = batch[:max_outputs]
        assert [r for r, _ in clips] == [rate] * len(kept)
        for (_, samples), want in zip(clips, kept, strict=True):
            np.testing.assert_array_equal(samples, expected_pcm(want.astype(np.float32)))
        assert sl.audio("au", batch, rate, step=len(encodings), max_outputs=max_outputs)
        encodings.append(clips)

    with writer.as_default(), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check()
        writer.flush()
    writer.close()
    written = written_values(writer.path)
    assert len(encodings) >= 60
    assert [step for step, _ in written] == list(range(len(encodings)))
    for (_, value), clips in zip(written, encodings, strict=True):
        for (rate, got), (want_rate, want) in zip(decode_tensor(value.tensor), clips, strict=True):
            assert rate == want_rate
            np.testing.assert_array_equal(got, want)


_FLOATS = np.zeros((1, 4, 1), np.float32)
BAD_INPUTS = st.one_of(
    st.sampled_from(["mp3", "WAV", 5, b"wav", np.array(["wav"])]).map(
        lambda e: (_FLOATS, 8000, 3, e, ValueError, "encoding")
    ),
    st.sampled_from([0, -1, 1.5, "44100", None, True, np.bool_(True), math.nan, math.inf, 2**32, [8000]]).map(
        lambda r: (_FLOATS, r, 3, None, ValueError, "sample_rate")
    ),
    hnp.arrays(np.float32, hnp.array_shapes(min_dims=4, max_dims=5, max_side=2)).map(
        lambda d: (d, 8000, 3, None, ValueError, "shape")
    ),
    st.just((np.float32(0.5), 8000, 3, None, ValueError, "shape")),
    st.just((np.zeros((1, 4, 0), np.float32), 8000, 3, None, ValueError, "channels")),
    st.just((np.zeros((4, 0), np.float32), 8000, 3, None, ValueError, "channels")),
    st.just((np.zeros((1, 4, 2), np.float32), 2**31, 3, None, ValueError, "too fast")),
    st.sampled_from([np.int16, np.int64, bool, np.complex64, "U2", object]).map(
        lambda dtype: (np.zeros((1, 4, 1), dtype), 8000, 3, None, TypeError, "dtype")
    ),
    st.just(([0, 1, 0], 8000, 3, None, TypeError, "dtype int64")),
    st.sampled_from([-1, np.int8(-2)]).map(lambda m: (_FLOATS, 8000, m, None, ValueError, "max_outputs")),
    st.sampled_from([1.0, False, None, "3"]).map(
        lambda m: (_FLOATS, 8000, m, None, TypeError, "max_outputs")
    ),
    st.sampled_from([None, object()]).map(lambda d: (d, 8000, 3, None, TypeError, "data")),
)


def test_bad_input_rejected_at_the_call(logdir):
    writer = sl.create_file_writer(logdir)

    @settings(max_examples=50, deadline=None)
    @given(BAD_INPUTS)
    def check(bad):
        data, rate, max_outputs, encoding, error, pattern = bad
        with pytest.raises(error, match=r"summarylib\.audio: tag 'bad/au': argument '\w+': ") as raised:
            sl.audio("bad/au", data, rate, max_outputs=max_outputs, encoding=encoding)
        assert pattern in str(raised.value)
        assert sl.audio("good", np.zeros(2, np.float32), 8000)  # the writer carries on

    with writer.as_default(step=1):
        check()
    writer.close()
    assert {v.tag for _, v in written_values(writer.path)} == {"good"}


def test_bad_name_and_description(logdir):
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0):
        with pytest.raises(
            ValueError, match=r"summarylib\.audio: (tag .*: )?argument .name.: expected a non-empty str"
        ):
            sl.audio("", np.zeros(2), 8000)
        with pytest.raises(TypeError, match=r"summarylib\.audio: tag 'au': argument 'description'"):
            sl.audio("au", np.zeros(2), 8000, description=1)
    writer.close()
    assert written_values(writer.path) == []


def test_clipping_warned_once_per_tag(logdir):
    loud, other = unique_tag("loud"), unique_tag("loud")
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0), pytest.warns(RuntimeWarning) as record:
        sl.audio(loud, np.float32([0.5, 1.5]), 8000)
        sl.audio(loud, np.float32([-2.0, math.nan]), 8000, step=1)
        sl.audio(other, np.float32([math.nan]), 8000)
        sl.flush()  # encoded on the writer's thread, warned on this one
    messages = [str(w.message) for w in record]
    assert sum(f"tag {loud!r}" in m for m in messages) == 1
    assert sum(f"tag {other!r}" in m for m in messages) == 1
    assert all("summarylib.audio" in m and "clipped" in m for m in messages)
    writer.close()
    samples = [decode_tensor(v.tensor)[0][1] for _, v in written_values(writer.path)]
    np.testing.assert_array_equal(samples[0], clip(16384, 32767))
    np.testing.assert_array_equal(samples[1], clip(-32768, 0))


def test_no_warning_within_range(logdir):
    sl.flush()  # warnings about earlier tests' data, left for a caller's thread: not ours
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0), warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        sl.audio(unique_tag("quiet"), np.float32([1.0, -1.0, 0.0]), 8000)
        sl.flush()
    writer.close()
    assert [str(w.message) for w in record] == []


@pytest.mark.parametrize(
    "make",
    [lambda a: a, lambda a: a[0], lambda a: a[0, :, 0], ArrayLike],
    ids=["array", "[t, c]", "[t]", "array-like"],
)
def test_mutation_after_the_call_changes_nothing(logdir, make):
    array = np.linspace(-1, 1, 2 * 6 * 2, dtype=np.float32).reshape(2, 6, 2)
    data = make(array)
    expected = expected_pcm(np.array(np.asarray(data)))
    expected = expected[0] if expected.ndim == 3 else expected.reshape(6, -1)
    writer = sl.create_file_writer(logdir, flush_millis=60_000)
    with writer.as_default(step=0):
        sl.audio("au", data, 8000, max_outputs=1)
        array[...] = 0
    writer.close()
    ((_, value),) = written_values(writer.path)
    ((_, samples),) = decode_tensor(value.tensor)
    np.testing.assert_array_equal(samples, expected)


def test_nothing_recorded_without_a_writer_or_when_off(logdir):
    assert sl.audio("au", object(), "not a rate") is False  # the input is not even looked at
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0), sl.record_if(False):
        assert sl.audio("au", object(), None) is False
    writer.close()
    assert written_values(writer.path) == []
