"""The PNG encoder: files about as small as pillow's at its default compression (what TF's and
tensorboardX's event files hold) for every kind of image people log (real photographs, charts,
gradients, text, antialiased and two-level, parameter maps, the weights of a trained model,
noise), pixels that decode back exactly through pillow and TensorBoard, and every row filter
right on the edge cases."""

from __future__ import annotations

import ast
import functools
import importlib.util
import io
import os
import pathlib
import subprocess
import sys
import zlib

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from PIL import Image, ImageDraw, ImageFont

import summarylib as sl
from summarylib.compat import v1
from summarylib.ops.image import encoding as image_encoding
from summarylib.ops.image import png, png_deflate
from summarylib.proto import summary_pb2
from tests.images import photo, real_photos, smooth_map, trained_weights
from tests.tensorboard_data import provider_for
from tests.test_image import decode_png, decode_tensor

# Our PNG may be at most this much larger than pillow's default one.
SIZE_TOLERANCE = 1.1


def plot(height: int = 256, width: int = 320) -> np.ndarray:
    """A line chart rendered by matplotlib (Agg), as RGB."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    figure = plt.figure(figsize=(width / 100, height / 100), dpi=100)
    axes = figure.add_subplot()
    t = np.linspace(0, 10, 200)
    axes.plot(t, np.sin(t), label="sin")
    axes.plot(t, np.exp(-t / 4) * np.cos(3 * t), label="damped")
    axes.legend()
    axes.set_title("loss")
    axes.grid(True)
    figure.canvas.draw()
    pixels = np.asarray(figure.canvas.buffer_rgba())[..., :3].copy()
    plt.close(figure)
    return pixels


def gradient(height: int = 256, width: int = 256) -> np.ndarray:
    y, x = np.mgrid[0:height, 0:width]
    channels = [x * 255 // (width - 1), y * 255 // (height - 1), (x + y) * 255 // (height + width - 2)]
    return np.stack(channels, axis=-1).astype(np.uint8)


def text(height: int = 256, width: int = 256) -> np.ndarray:
    """Black words on white, one channel."""
    canvas = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(canvas)
    words = ("the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog")
    words += ("loss", "accuracy", "epoch", "step")
    rng = np.random.default_rng(1)
    for line in range(height // 12):
        draw.text((4, 2 + 12 * line), " ".join(rng.choice(words, 6)), fill=0)
    return np.asarray(canvas)[..., None].copy()


def two_level_text(height: int = 256, width: int = 256, mode: str = "L", seed: int = 1) -> np.ndarray:
    """Black words on white in pillow's bitmap font, pixels 0 or 255 only: text as pillow
    10's default font draws it (later pillows' default font is antialiased; the bitmap font
    is the same in every version), the two-level kind masks and binary plots share."""
    font = getattr(ImageFont, "load_default_imagefont", ImageFont.load_default)()
    canvas = Image.new(mode, (width, height), "white")
    draw = ImageDraw.Draw(canvas)
    words = ("the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog")
    words += ("loss", "accuracy", "epoch", "step")
    rng = np.random.default_rng(seed)
    for line in range(height // 12):
        draw.text((4, 2 + 12 * line), " ".join(rng.choice(words, 6)), fill="black", font=font)
    pixels = np.asarray(canvas)
    return (pixels[..., None] if pixels.ndim == 2 else pixels).copy()


def parameter_map(height: int = 256, width: int = 256) -> np.ndarray:
    """A one-channel float map in [0, 1]: a smooth pattern under noise, as weights look."""
    rng = np.random.default_rng(2)
    y, x = np.mgrid[0:height, 0:width] / 64
    values = np.sin(x) * np.cos(0.7 * y) + 0.3 * rng.normal(size=(height, width))
    return ((values - values.min()) / np.ptp(values)).astype(np.float32)[..., None]


def noise(height: int = 256, width: int = 256, channels: int = 3) -> np.ndarray:
    return np.random.default_rng(3).integers(0, 256, (height, width, channels), dtype=np.uint8)


KINDS = {
    "photo": photo,
    "photo as float": lambda: photo(200, 300, seed=5).astype(np.float32) / 255,
    "plot": plot,
    "gradient": gradient,
    "large gray gradient": lambda: (np.add.outer(np.arange(1000), np.arange(1000)) // 8).astype(np.uint8)[
        ..., None
    ],
    "text": text,
    "two-level text": two_level_text,
    "two-level text, RGB": lambda: two_level_text(mode="RGB"),
    "two-level text, 512x512": lambda: two_level_text(512, 512),
    "parameter map (float)": parameter_map,
    "noise": noise,
    "large gray noise": lambda: noise(1000, 1000, 1),
    "smooth parameter map (float, 1000x1000)": lambda: smooth_map()[..., None],
    # A torch model's trained weights, where torch is installed (the frameworks extra).
    **(
        {"trained weights (float, 1000x1000)": functools.cache(lambda: trained_weights()[..., None])}
        if importlib.util.find_spec("torch")
        else {}
    ),
    **{f"real photo, {name}": functools.partial(np.copy, pixels) for name, pixels in real_photos().items()},
}


def pillow_png(pixels: np.ndarray) -> bytes:
    """What pillow writes at its default compression."""
    buffer = io.BytesIO()
    Image.fromarray(pixels[..., 0] if pixels.shape[-1] == 1 else pixels).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.mark.parametrize("kind", KINDS)
def test_as_small_as_pillow_and_exact(kind):
    data = KINDS[kind]()
    pixels = image_encoding.to_uint8(data)
    tensor, _ = image_encoding.encode("im", data)
    _, _, (decoded,) = decode_tensor(tensor)
    np.testing.assert_array_equal(decoded, pixels)
    ours, theirs = len(tensor.string_val[2]), len(pillow_png(pixels))
    assert ours <= SIZE_TOLERANCE * theirs, f"{kind}: {ours} bytes, pillow {theirs}"


def test_tensorboard_reads_every_kind(logdir):
    from tensorboard import context

    batches = {kind: make()[None] for kind, make in KINDS.items()}
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0):
        for kind, batch in batches.items():
            assert sl.image(kind, batch)
    writer.close()
    provider = provider_for(logdir)
    ctx = context.RequestContext()
    data = provider.read_blob_sequences(ctx, experiment_id="", plugin_name="images", downsample=10)
    assert set(data["."]) == set(batches)
    for kind, batch in batches.items():
        ((datum,),) = [data["."][kind]]
        _, _, png_bytes = (provider.read_blob(ctx, blob_key=ref.blob_key) for ref in datum.values)
        np.testing.assert_array_equal(decode_png(png_bytes), image_encoding.to_uint8(batch[0]))


def test_v1_images_use_the_same_encoder():
    pixels = gradient()
    summary = summary_pb2.Summary.FromString(v1.image("g", pixels[None]))
    assert summary.value[0].image.encoded_image_string == png.encode_png(pixels)


EDGE_CASES = {
    "1x1": np.array([[[200]]], np.uint8),
    "one row": np.arange(0, 250, 10, dtype=np.uint8).reshape(1, -1, 1),
    "one column": np.arange(0, 250, 10, dtype=np.uint8).reshape(-1, 1, 1),
    "gray+alpha": noise(7, 5, 2),
    "RGBA": noise(6, 9, 4),
    "RGB 1x1": np.array([[[1, 128, 255]]], np.uint8),
    "all zero": np.zeros((5, 6, 3), np.uint8),
    "all 255": np.full((5, 6, 4), 255, np.uint8),
    "extremes alternating": np.indices((6, 7, 3)).sum(axis=0).astype(np.uint8) % 2 * 255,
}


@pytest.mark.parametrize("filter_type", [*png.FILTERS, None])
@pytest.mark.parametrize("case", EDGE_CASES)
def test_every_filter_round_trips(case, filter_type):
    pixels = EDGE_CASES[case]
    np.testing.assert_array_equal(decode_png(png.encode_png(pixels, filter_type)), pixels)


@given(
    hnp.arrays(
        np.uint8,
        st.tuples(st.integers(1, 9), st.integers(1, 9), st.integers(1, 4)),
        elements=st.sampled_from([0, 1, 2, 127, 128, 129, 254, 255]) | st.integers(0, 255),
    ),
    st.sampled_from([*png.FILTERS, None]),
)
def test_any_image_round_trips_under_any_filter(pixels, filter_type):
    np.testing.assert_array_equal(decode_png(png.encode_png(pixels, filter_type)), pixels)


@given(
    st.integers(8, 96),
    st.integers(8, 96),
    st.sampled_from([1, 3, 4]),
    st.sampled_from([0, 1, 4, 32, 256]),
    st.sampled_from([0.05, 1.0]),
    st.integers(0, 2**32 - 1),
)
def test_every_deflate_route_round_trips(height, width, channels, noise_range, noisy, seed):
    # Ramps under noise of a chosen range on a chosen fraction of the pixels: from none
    # (ISA-L, then zlib), through a little (libdeflate) and photo-like (ISA-L), to all
    # noise (stored).
    rng = np.random.default_rng(seed)
    ramp = np.add.outer(np.arange(height), np.arange(width))[..., None] * rng.integers(1, 4, channels)
    noise = rng.integers(0, noise_range + 1, (height, width, channels))
    pixels = ((ramp + noise * (rng.random((height, width, 1)) < noisy)) % 256).astype(np.uint8)
    np.testing.assert_array_equal(decode_png(png.encode_png(pixels)), pixels)


@pytest.mark.parametrize("ratio", [None, 0.01, 0.2, 0.5, 0.99])
def test_each_deflate_route_is_a_zlib_stream_of_the_data(ratio):
    data = np.add.outer(np.arange(300), np.arange(400)).astype(np.uint8) // 3
    assert zlib.decompress(b"".join(png_deflate.deflate(data, ratio))) == data.tobytes()


@pytest.mark.parametrize("size", [0, 1, 65534, 65535, 65536, 2 * 65535, 2 * 65535 + 1])
def test_stored_streams_split_into_blocks_where_deflate_says(size):
    # Stored blocks hold at most 65535 bytes each, the last one marked final.
    data = np.random.default_rng(size).integers(0, 256, size, dtype=np.uint8)
    assert zlib.decompress(b"".join(png_deflate.stored(data))) == data.tobytes()


def test_noise_is_stored_and_smooth_images_are_filtered():
    # On noise no filter predicts and deflate finds nothing: stored, unfiltered, costs a copy.
    for seed in range(10):
        pixels = np.random.default_rng(seed).integers(0, 256, (64, 64, 3), dtype=np.uint8)
        filter_type, ratio = png.choose_filter(pixels.reshape(64, -1), 3)
        assert filter_type == png.NONE and ratio > png_deflate.INCOMPRESSIBLE
        # Stored: the pixels, a filter byte per row, 68 bytes of PNG and zlib framing.
        assert len(png.encode_png(pixels)) == pixels.nbytes + 64 + 68
    filter_type, ratio = png.choose_filter(gradient(64, 64).reshape(64, -1), 3)
    assert filter_type != png.NONE and ratio < png_deflate.INCOMPRESSIBLE


@pytest.mark.parametrize("filter_type", png.FILTERS)
def test_noise_is_stored_under_a_given_filter_too(filter_type):
    # The watch's grids come with their filter; a grid of noisy weights is stored, not
    # deflated for nothing (ISA-L's output of noise is larger than its input).
    pixels = np.random.default_rng(filter_type).integers(0, 256, (200, 300, 1), dtype=np.uint8)
    encoded = png.encode_png(pixels, filter_type)
    assert len(encoded) == pixels.nbytes + 200 + 68  # the stored size (see above)
    np.testing.assert_array_equal(decode_png(encoded), pixels)
    smooth = gradient(64, 64)
    assert len(png.encode_png(smooth, filter_type)) < smooth.nbytes + 64 + 68  # deflated, not stored


_WITHOUT = """
import warnings

warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    import numpy as np

    import summarylib as sl
    from summarylib.ops.image import png, png_deflate
    from tests.images import photo, smooth_map
    from tests.test_image import decode_png

    images = [photo(), photo(64, 96, seed=1)[..., :1], (smooth_map(200) * 255).astype(np.uint8)[..., None]]
    for pixels in images:
        np.testing.assert_array_equal(decode_png(png.encode_png(pixels)), pixels)
    print(repr(png.encode_png(images[0])))
print("WARNINGS", [f"{w.category.__name__}: {w.message}" for w in caught])
"""


@pytest.mark.slow
@pytest.mark.parametrize("missing", [["isal"], ["deflate"], ["isal", "deflate"]])
def test_encodes_the_same_pixels_without_isal_or_libdeflate(tmp_path, missing):
    # Each missing package is shadowed by one whose import fails, as on a platform without
    # its wheel: summarylib still imports, every PNG decodes to the same pixels, and one
    # warning says what is missing.
    for package in missing:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text(f"raise ImportError('no {package} here')\n")
    root = pathlib.Path(__file__).resolve().parent.parent
    result = subprocess.run(
        [sys.executable, "-c", _WITHOUT],
        cwd=root,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(root)])},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    *_, encoded, warned = result.stdout.splitlines()
    assert decode_png(ast.literal_eval(encoded)).shape == (256, 256, 3)
    messages = ast.literal_eval(warned.removeprefix("WARNINGS "))
    assert len(messages) == len(missing), messages
    for package, message in zip(missing, messages, strict=True):
        assert message.startswith(f"RuntimeWarning: summarylib: {package} cannot be imported")


def test_two_level_text_is_two_level():
    # What the two-level kinds above stand for: only black and white, whatever pillow's version.
    assert set(np.unique(two_level_text())) == {0, 255}
