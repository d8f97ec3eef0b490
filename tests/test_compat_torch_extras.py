"""What the differential suite cannot compare: add_video (torch needs moviepy), read back
through TensorBoard's data provider (add_hparams: tests/test_dropin_hparams_files.py)."""

from __future__ import annotations

import io

import numpy as np
import pytest

pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")

import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from PIL import Image, ImageSequence

from summarylib.compat import legacy_histogram
from summarylib.compat.torch import SummaryWriter
from tests.hostile_values import examples
from tests.tensorboard_data import read_blob_sequences


def gif_frames(blob: bytes) -> tuple[list[np.ndarray], list[int]]:
    image = Image.open(io.BytesIO(blob))
    frames = [np.asarray(frame.convert("RGB")) for frame in ImageSequence.Iterator(image)]
    durations = [frame.info["duration"] for frame in ImageSequence.Iterator(Image.open(io.BytesIO(blob)))]
    return frames, durations


def test_add_video_writes_an_animated_gif_of_the_batch_on_a_grid(tmp_path):
    # Three 2-frame videos of flat colours (exact in a GIF palette), padded to four: one row
    # (torch's rule: 2**((bit_length(3) - 1) // 2) = 1 row).
    videos = np.zeros((3, 2, 3, 4, 5), np.uint8)
    for index in range(3):
        videos[index, :, index] = 200
        videos[index, 1, :] += 40
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_video("clip", torch.from_numpy(videos), 7, fps=5)
        writer.add_video("float_clip", videos.astype(np.float32) / 255, 7)
    blobs = read_blob_sequences(str(tmp_path), "images")["."]
    ((step, values),) = blobs["clip"]
    assert step == 7 and values[:2] == [b"20", b"4"]
    frames, durations = gif_frames(values[2])
    assert len(frames) == 2 and durations == [200, 200]
    for time_index, frame in enumerate(frames):
        assert frame.shape == (4, 20, 3)
        for index, (row, column) in enumerate([(0, 0), (0, 1), (0, 2)]):
            cell = frame[row * 4 : row * 4 + 4, column * 5 : column * 5 + 5]
            np.testing.assert_array_equal(
                cell, np.broadcast_to(videos[index, time_index].transpose(1, 2, 0), cell.shape)
            )
        assert not frame[:, 15:].any()  # the padding video is black
    assert [len(f) for f in [gif_frames(blobs["float_clip"][0][1][2])[0]]] == [2]


def test_add_image_with_boxes_and_add_video_snapshot_their_input(tmp_path):
    image = np.full((3, 8, 8), 50, np.uint8)
    video = np.full((1, 2, 1, 8, 8), 50, np.uint8)
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_image_with_boxes("boxed", image, np.zeros((0, 4)), 0)
        writer.add_video("video", video, 0)
        image[:] = 200
        video[:] = 200
    blobs = read_blob_sequences(str(tmp_path), "images")["."]
    boxed = np.asarray(Image.open(io.BytesIO(blobs["boxed"][0][1][2])))
    assert boxed.max() == 50
    frames = Image.open(io.BytesIO(blobs["video"][0][1][2]))
    assert all(np.asarray(frame.convert("L")).max() == 50 for frame in ImageSequence.Iterator(frames))


# TF 1.x's own buckets (compat.v1's and contrib's histograms; compat.torch counts torch's
# edges, tests/test_torch_histogram_buckets.py) are found from a value's top bits and a
# fix-up against the exact limits, not a search: each value must land where the search puts it.
_LIMITS = legacy_histogram.BUCKET_LIMITS


def _searched_buckets(values: np.ndarray) -> np.ndarray:
    """The bucket TF gives each value: the first limit greater than it, else the last."""
    return np.minimum(np.searchsorted(_LIMITS, values, side="right"), _LIMITS.size - 1)


def _next_to(limit: float, direction: float) -> float:
    """The float next to `limit` towards `direction`; ±DBL_MAX itself where that is ±inf
    (bucket_indices takes finite values: the writer leaves the others out)."""
    with np.errstate(over="ignore"):
        step = float(np.nextafter(limit, direction))
    return step if np.isfinite(step) else limit


_EDGE_VALUES = st.one_of(
    st.sampled_from(_LIMITS.tolist()),  # on a limit: the next bucket
    st.sampled_from(_LIMITS.tolist()).map(lambda v: _next_to(v, np.inf)),
    st.sampled_from(_LIMITS.tolist()).map(lambda v: _next_to(v, -np.inf)),
    st.sampled_from([0.0, -0.0, 5e-324, -5e-324, 1e-300, -1e-300, 1e300, -1e300, 3.5e38, -3.5e38]),
    st.floats(allow_nan=False, allow_infinity=False),  # any magnitude, tiny to huge
    st.floats(-1e3, 1e3, width=32),
)


@settings(max_examples=examples(1000), deadline=None)
@given(hnp.arrays(np.float64, st.integers(1, 50), elements=_EDGE_VALUES))
def test_tensorflow_buckets_place_each_value_as_the_exact_search(values):
    np.testing.assert_array_equal(legacy_histogram.bucket_indices(values), _searched_buckets(values))


def test_tensorflow_buckets_of_every_limit_and_its_neighbours():
    with np.errstate(over="ignore"):
        edges = np.concatenate([_LIMITS, np.nextafter(_LIMITS, np.inf), np.nextafter(_LIMITS, -np.inf)])
    edges = edges[np.isfinite(edges)]
    np.testing.assert_array_equal(legacy_histogram.bucket_indices(edges), _searched_buckets(edges))
