"""The image op: TensorFlow 2's encoding (decoded pixels, dimensions, metadata), TensorBoard's
images dashboard reading it, and every input the issue names, accepted or rejected at the call."""

from __future__ import annotations

import io
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from PIL import Image

import summarylib as sl
from summarylib.ops.image import encoding as image_encoding
from summarylib.proto import summary_pb2, types_pb2
from tests.helpers import ArrayLike, written_values
from tests.reference.cases_media import IMAGE_CASES
from tests.tensorboard_data import provider_for

REFERENCE = os.path.join(os.path.dirname(__file__), "reference", "tf2_image.tfevents")
_MODES = {"L": 1, "LA": 2, "RGB": 3, "RGBA": 4}


def decode_png(png: bytes) -> np.ndarray:
    """A PNG's pixels as a [h, w, c] uint8 array, c from its mode."""
    with Image.open(io.BytesIO(png)) as decoded:
        assert decoded.format == "PNG" and decoded.mode in _MODES
        pixels = np.asarray(decoded)
    return pixels.reshape(*pixels.shape[:2], _MODES[decoded.mode])


def decode_tensor(tensor) -> tuple[int, int, list[np.ndarray]]:
    """(width, height, [pixels]) of an image summary's [2 + n] string tensor."""
    assert tensor.dtype == types_pb2.DT_STRING
    assert [d.size for d in tensor.tensor_shape.dim] == [len(tensor.string_val)]
    width, height, *pngs = tensor.string_val
    return int(width), int(height), [decode_png(png) for png in pngs]


def encoded(data, max_outputs=3, tag="im"):
    tensor, metadata = image_encoding.encode(tag, data, max_outputs)
    assert metadata.plugin_data.plugin_name == "images"
    return decode_tensor(tensor)


def logged(logdir, data, max_outputs=3, tag="im"):
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=4):
        assert sl.image(tag, data, max_outputs=max_outputs)
    writer.close()
    ((step, value),) = written_values(writer.path)
    assert step == 4 and value.tag == tag
    assert value.metadata.plugin_data.plugin_name == "images"
    return decode_tensor(value.tensor)


PATHS = {"encode": lambda logdir, data, max_outputs: encoded(data, max_outputs), "op": logged}


def gray(values, dtype) -> np.ndarray:
    """One [1, 1, n, 1] image of `values` in `dtype`."""
    return np.array(values, dtype=dtype).reshape(1, 1, -1, 1)


def row(values) -> list[np.ndarray]:
    return [np.array(values, dtype=np.uint8).reshape(1, -1, 1)]


_NAN, _INF = float("nan"), float("inf")
_FLOATS = [0, 0.5, 1, 1.5, -0.5, _NAN, _INF, -_INF, 1 / 255, 0.998]
_FLOATS_AS_UINT8 = [0, 127, 255, 255, 0, 0, 255, 0, 1, 254]
_RGB = np.arange(2 * 3 * 4 * 3, dtype=np.uint8).reshape(2, 3, 4, 3)

# (id, data, max_outputs, (width, height, [expected pixels]))
BEHAVIOUR = [
    ("uint8 as it is", _RGB, 3, (4, 3, list(_RGB))),
    (
        "float32 scaled by 255.5, truncated, clipped",
        gray(_FLOATS, np.float32),
        3,
        (10, 1, row(_FLOATS_AS_UINT8)),
    ),
    ("float64 too", gray(_FLOATS, np.float64), 3, (10, 1, row(_FLOATS_AS_UINT8))),
    ("float16 rounds the product to float16", gray([0.998, 0.5], np.float16), 3, (2, 1, row([255, 127]))),
    ("int8 doubled", gray([-128, -1, 0, 1, 127], np.int8), 3, (5, 1, row([0, 0, 0, 2, 254]))),
    ("int16 top bits", gray([-32768, 0, 127, 128, 32767], np.int16), 3, (5, 1, row([0, 0, 0, 1, 255]))),
    ("uint16 top bits", gray([0, 255, 256, 65535], np.uint16), 3, (4, 1, row([0, 0, 1, 255]))),
    ("int32 top bits", gray([-1, 2**23 - 1, 2**23, 2**31 - 1], np.int32), 3, (4, 1, row([0, 0, 1, 255]))),
    (
        "int64 0..255 is black",
        gray([255, 2**55, 2**63 - 1, -(2**63)], np.int64),
        3,
        (4, 1, row([0, 1, 255, 0])),
    ),
    ("uint32 top bits", gray([2**24 - 1, 2**24, 2**32 - 1], np.uint32), 3, (3, 1, row([0, 1, 255]))),
    ("uint64 top bits", gray([2**56 - 1, 2**56, 2**64 - 1], np.uint64), 3, (3, 1, row([0, 1, 255]))),
    ("bool 0/255", gray([True, False], bool), 3, (2, 1, row([255, 0]))),
    ("nested lists (float64)", [[[[0.0], [0.25]]]], 3, (2, 1, row([0, 63]))),
    ("[h, w, c] is one image", _RGB[0], 3, (4, 3, [_RGB[0]])),
    ("[h, w] is one gray image", _RGB[0, :, :, 0], 3, (4, 3, [_RGB[0, :, :, :1]])),
    ("gray+alpha", _RGB[..., :2], 3, (4, 3, list(_RGB[..., :2]))),
    (
        "RGBA",
        np.concatenate([_RGB, _RGB[..., :1]], axis=-1),
        3,
        (4, 3, [*np.concatenate([_RGB, _RGB[..., :1]], -1)]),
    ),
    ("max_outputs keeps the first", _RGB, 1, (4, 3, [_RGB[0]])),
    ("max_outputs 0 keeps the dimensions", _RGB, 0, (4, 3, [])),
    ("max_outputs numpy int", _RGB, np.int32(1), (4, 3, [_RGB[0]])),
    ("empty batch keeps the dimensions", np.zeros((0, 5, 6, 3), np.uint8), 3, (6, 5, [])),
    ("no pixels and none written", np.zeros((2, 0, 6, 3), np.uint8), 0, (6, 0, [])),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(
    ("data", "max_outputs", "expected"), [b[1:] for b in BEHAVIOUR], ids=[b[0] for b in BEHAVIOUR]
)
def test_behaviour(logdir, path, data, max_outputs, expected):
    width, height, images = PATHS[path](logdir, data, max_outputs)
    assert (width, height) == expected[:2]
    assert len(images) == len(expected[2])
    for got, want in zip(images, expected[2], strict=True):
        np.testing.assert_array_equal(got, want)


def assert_same_images(ours, theirs) -> None:
    """Same tags, steps, metadata, tensor dtype and shape, dimensions and decoded pixels."""
    assert [(s, v.tag, v.metadata.SerializeToString()) for s, v in ours] == [
        (s, v.tag, v.metadata.SerializeToString()) for s, v in theirs
    ]
    for (_, our), (_, their) in zip(ours, theirs, strict=True):
        assert our.tensor.dtype == their.tensor.dtype
        assert our.tensor.tensor_shape == their.tensor.tensor_shape
        assert our.tensor.string_val[:2] == their.tensor.string_val[:2]
        for mine, tf in zip(our.tensor.string_val[2:], their.tensor.string_val[2:], strict=True):
            np.testing.assert_array_equal(decode_png(mine), decode_png(tf), err_msg=our.tag)


def test_same_summaries_as_tensorflow(logdir):
    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        for step, (tag, data, max_outputs, description) in enumerate(IMAGE_CASES):
            assert sl.image(tag, data, step=step, max_outputs=max_outputs, description=description)
    writer.close()
    theirs = written_values(REFERENCE)
    assert len(theirs) == len(IMAGE_CASES)
    assert_same_images(written_values(writer.path), theirs)


def test_encoder_matches_tensorflow():
    ours = []
    for step, (tag, data, max_outputs, description) in enumerate(IMAGE_CASES):
        tensor, metadata = image_encoding.encode(tag, data, max_outputs, description)
        value = summary_pb2.Summary.Value(tag=tag, tensor=tensor, metadata=metadata)
        ours.append((step, value))
    assert_same_images(ours, written_values(REFERENCE))


def test_tensorboard_images_dashboard_reads_it(logdir):
    from tensorboard import context
    from tensorboard.plugins.image import metadata as tb_metadata

    batches = {step: np.full((2, 3, 5, 3), step * 40, np.uint8) for step in range(3)}
    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        for step, batch in batches.items():
            sl.image("samples", batch, step=step, description="Samples.")
    writer.close()
    provider = provider_for(logdir)
    ctx = context.RequestContext()
    (series,) = provider.list_blob_sequences(ctx, experiment_id="", plugin_name="images")["."].values()
    assert series.max_length == 4 and series.description == "Samples."
    assert tb_metadata.parse_plugin_metadata(series.plugin_content).version == 0
    data = provider.read_blob_sequences(ctx, experiment_id="", plugin_name="images", downsample=100)
    blobs = [
        [provider.read_blob(ctx, blob_key=ref.blob_key) for ref in d.values] for d in data["."]["samples"]
    ]
    assert [d.step for d in data["."]["samples"]] == list(batches)
    for (width, height, *pngs), batch in zip(blobs, batches.values(), strict=True):
        assert (width, height) == (b"5", b"3")
        for png, image in zip(pngs, batch, strict=True):
            np.testing.assert_array_equal(decode_png(png), image)


def expected_uint8(images: np.ndarray) -> np.ndarray:
    """TF's saturating uint8 conversion, one Python number at a time."""
    dtype = images.dtype
    if dtype.kind == "b":
        return images.astype(np.uint8) * 255
    if dtype.kind == "f":
        scale = dtype.type(255.5)

        def convert(x):
            with np.errstate(over="ignore", invalid="ignore"):
                product = float(x * scale)  # in the images' dtype, as TF computes it
            return 0 if product != product else int(min(max(product, 0.0), 255.0))
    else:
        top = int(np.iinfo(dtype).max)

        def convert(x):
            x = int(x)
            if top < 255:
                return min(max(x, 0), top) * (256 // (top + 1))
            return min(max(x // ((top + 1) // 256), 0), 255)

    flat = [convert(x) for x in images.reshape(-1)]
    return np.array(flat, dtype=np.uint8).reshape(images.shape)


_DTYPES = [np.uint8, np.int8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64, bool]
_DTYPES += [np.float16, np.float32, np.float64]


@st.composite
def image_batches(draw):
    dtype = np.dtype(draw(st.sampled_from(_DTYPES)))
    shape = (
        draw(st.integers(0, 3)),
        draw(st.integers(1, 5)),
        draw(st.integers(1, 5)),
        draw(st.integers(1, 4)),
    )
    elements = st.floats(width=8 * dtype.itemsize) if dtype.kind == "f" else None
    return draw(hnp.arrays(dtype, shape, elements=elements))


def assert_summary_is_encoding(tag, data, max_outputs) -> None:
    """The op's Summary bytes (laid out by hand) are the encoder's, serialized by protobuf."""
    tensor, metadata = image_encoding.encode(tag, data, max_outputs)
    expected = summary_pb2.Summary(
        value=[summary_pb2.Summary.Value(tag=tag, tensor=tensor, metadata=metadata)]
    )
    assert (
        image_encoding.summary(*image_encoding.prepare(tag, data, max_outputs, None))
        == expected.SerializeToString()
    )


def test_any_batch_round_trips(logdir):
    """Every accepted batch: the encoder gives TF's pixels (hypothesis shrinks on that), and
    the op writes what the encoder gives (one writer for all examples, checked at the end)."""
    writer = sl.create_file_writer(logdir)
    encodings = []

    @settings(max_examples=60, deadline=None)
    @given(image_batches(), st.integers(0, 4))
    def check(batch, max_outputs):
        width, height, images = encoded(batch, max_outputs)
        assert_summary_is_encoding("im", batch, max_outputs)
        assert (width, height) == (batch.shape[2], batch.shape[1])
        kept = batch[:max_outputs]
        assert len(images) == len(kept)
        if len(kept):
            np.testing.assert_array_equal(np.stack(images), expected_uint8(kept))
        assert sl.image("im", batch, step=len(encodings), max_outputs=max_outputs)
        encodings.append((width, height, images))

    with writer.as_default():
        check()
    writer.close()
    written = written_values(writer.path)
    assert len(encodings) >= 60
    assert [step for step, _ in written] == list(range(len(encodings)))
    for (_, value), (width, height, images) in zip(written, encodings, strict=True):
        assert decode_tensor(value.tensor)[:2] == (width, height)
        for got, want in zip(decode_tensor(value.tensor)[2], images, strict=True):
            np.testing.assert_array_equal(got, want)


BAD_INPUTS = st.one_of(
    st.tuples(hnp.arrays(np.uint8, hnp.array_shapes(min_dims=5, max_dims=6, max_side=2)), st.just(3)).map(
        lambda t: (*t, ValueError, "shape")
    ),
    st.tuples(hnp.arrays(np.uint8, hnp.array_shapes(min_dims=0, max_dims=1, max_side=3)), st.just(3)).map(
        lambda t: (*t, ValueError, "shape")
    ),
    st.tuples(st.sampled_from([0, 5, 8]), st.integers(1, 3)).map(
        lambda t: (np.zeros((1, 2, 2, t[0]), np.uint8), t[1], ValueError, "channels")
    ),
    st.tuples(st.sampled_from([(1, 0, 3, 1), (2, 3, 0, 3), (1, 0, 3), (0, 2)]), st.integers(1, 3)).map(
        lambda t: (np.zeros(t[0], np.uint8), t[1], ValueError, "no pixels")
    ),
    st.sampled_from([np.complex64, "U3", object, "datetime64[s]"]).map(
        lambda dtype: (np.zeros((1, 2, 2, 1), dtype), 3, TypeError, "dtype")
    ),
    st.sampled_from([-1, np.int64(-5)]).map(lambda m: (np.zeros((1, 2, 2, 1)), m, ValueError, "max_outputs")),
    st.sampled_from([1.0, True, None, "3", np.float32(2), np.zeros(2, int)]).map(
        lambda m: (np.zeros((1, 2, 2, 1)), m, TypeError, "max_outputs")
    ),
    st.sampled_from([None, object(), {"a": 1}]).map(lambda d: (d, 3, TypeError, "data")),
)


def test_bad_input_rejected_at_the_call(logdir):
    writer = sl.create_file_writer(logdir)

    @settings(max_examples=50, deadline=None)
    @given(BAD_INPUTS)
    def check(bad):
        data, max_outputs, error, pattern = bad
        with pytest.raises(error, match=r"summarylib\.image: tag 'bad/im': argument '\w+': ") as raised:
            sl.image("bad/im", data, max_outputs=max_outputs)
        assert pattern in str(raised.value)
        assert sl.image("good", np.zeros((1, 1, 1, 1), np.uint8))  # the writer carries on

    with writer.as_default(step=1):
        check()
    writer.close()
    assert {v.tag for _, v in written_values(writer.path)} == {"good"}


def test_bad_name_and_description(logdir):
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0):
        with pytest.raises(
            TypeError, match=r"summarylib\.image: (tag .*: )?argument .name.: expected a non-empty str"
        ):
            sl.image(3, np.zeros((1, 1, 1, 1)))
        with pytest.raises(TypeError, match=r"summarylib\.image: tag 'im': argument 'description'"):
            sl.image("im", np.zeros((1, 1, 1, 1)), description=b"x")
    writer.close()
    assert written_values(writer.path) == []


@pytest.mark.parametrize(
    "make",
    [
        lambda a: a,
        lambda a: a[0],  # [h, w, c], a view
        lambda a: a[0, ..., 0],  # [h, w], a strided view
        ArrayLike,
    ],
    ids=["array", "rank3 view", "rank2 view", "array-like"],
)
def test_mutation_after_the_call_changes_nothing(logdir, make):
    array = np.arange(2 * 3 * 4 * 3, dtype=np.uint8).reshape(2, 3, 4, 3)
    data = make(array)
    expected = np.array(np.asarray(data))
    expected = expected[0] if expected.ndim == 4 else expected.reshape(3, 4, -1)
    writer = sl.create_file_writer(logdir, flush_millis=60_000)
    with writer.as_default(step=0):
        sl.image("im", data, max_outputs=1)
        array[...] = 255
    writer.close()
    ((_, value),) = written_values(writer.path)
    (pixels,) = decode_tensor(value.tensor)[2]
    np.testing.assert_array_equal(pixels, expected)


def test_nothing_recorded_without_a_writer_or_when_off(logdir):
    assert sl.image("im", object()) is False  # the input is not even looked at
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0), sl.record_if(False):
        assert sl.image("im", object()) is False
    writer.close()
    assert written_values(writer.path) == []
