"""tbparse's static helpers, on `SummaryReader`: TensorFlow 2's histogram, image and audio
tensors as tbparse's dicts, and a histogram's cumulative distribution, density and re-binning
(the re-binning as TensorBoard's histogram dashboard draws it). Images and audio decode with
pillow and soundfile (see summarylib.reading.tbparse_media), not TensorFlow.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from summarylib.reading.tbparse_media import decode_image, decode_wav


class Helpers:
    """The static methods of tbparse's SummaryReader."""

    @staticmethod
    def tensor_to_histogram(tensor: np.ndarray) -> dict[str, Any]:
        """A `[k, 3]` (left, right, count) tensor as {limits, counts, min, max, num, sum,
        sum_squares}: limits are the first left edge and every right edge, counts a 0 and every
        count; sum and sum_squares are NaN (a tensor histogram has none)."""
        limits = [tensor[0][0], *(row[1] for row in tensor)]
        counts = [0, *(row[2] for row in tensor)]
        return {
            "limits": np.array(limits),
            "counts": np.array(counts),
            "min": limits[0],
            "max": limits[-1],
            "num": np.sum(counts),
            "sum": np.nan,
            "sum_squares": np.nan,
        }

    @staticmethod
    def buckets_to_histogram_dict(lst: np.ndarray) -> dict[str, Any]:
        """`tensor_to_histogram` under its older name."""
        return Helpers.tensor_to_histogram(lst)

    @staticmethod
    def tensor_to_image(tensor: np.ndarray) -> dict[str, Any]:
        """An images tensor (width, height, encoded images...) as {image, width, height}: the
        images stacked, or the one image itself."""
        image = np.stack([decode_image(encoded) for encoded in tensor[2:]], axis=0)
        if image.shape[0] == 1:
            image = image.squeeze(axis=0)
        return {"image": image, "width": int(tensor[0]), "height": int(tensor[1])}

    @staticmethod
    def tensor_to_audio(tensor: np.ndarray) -> dict[str, Any]:
        """An audio tensor (`[k, 2]` WAV bytes and empty labels) as {audio, content_type,
        length_frames, sample_rate}: clips stacked, or the one clip itself."""
        import io

        import soundfile

        if tensor[:, 1].tolist() != [b""] * tensor.shape[0]:
            raise ValueError("audio labels are not supported")
        audio = np.stack([decode_wav(clip) for clip in tensor[:, 0]], axis=0)
        rates = np.stack(
            [np.int32(soundfile.info(io.BytesIO(clip)).samplerate) for clip in tensor[:, 0]], axis=0
        )
        length = audio.shape[1]
        if audio.shape[0] == 1:
            audio, rates = audio.squeeze(axis=0), rates.squeeze(axis=0)
        return {"audio": audio, "content_type": "audio/wav", "length_frames": length, "sample_rate": rates}

    @staticmethod
    def histogram_to_cdf(counts: np.ndarray, limits: np.ndarray, x: np.ndarray) -> np.ndarray:
        """The cumulative share of values at each of the increasing `x`: 0 up to the first
        limit, interpolated linearly between limits, 1 past the last."""
        counts, limits, x = np.asarray(counts), np.asarray(limits), np.asarray(x)
        if len(counts) != len(limits) or not np.all(np.diff(x) > 0):
            raise ValueError("counts and limits differ in length, or x is not increasing")
        cumulative = np.cumsum(counts)
        y = np.where(x <= limits[0], 0.0, np.interp(x, limits, cumulative))
        return y / np.sum(counts)

    @staticmethod
    def histogram_to_pdf(
        counts: np.ndarray, limits: np.ndarray, x: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(centres of the intervals of `x`, the density of values in each)."""
        x = np.asarray(x)
        y = Helpers.histogram_to_cdf(counts, limits, x)
        return (x[1:] + x[:-1]) / 2, (y[1:] - y[:-1]) / (x[1:] - x[:-1])

    @staticmethod
    def histogram_to_bins(
        counts: np.ndarray,
        limits: np.ndarray,
        lower_bound: float | None = None,
        upper_bound: float | None = None,
        n_bins: int = 30,
    ) -> tuple[list[float], list[float]]:
        """(bin centres, counts) of `n_bins` equal bins over [lower_bound, upper_bound]: each
        bucket's count shared among the bins it overlaps in proportion to the overlap, a bucket
        of no width counted in the bin it falls in. A range of no width is widened (to
        [lower / 1.1 - 1, lower * 1.1 + 1]) as TensorBoard's dashboard does."""
        if len(counts) != len(limits) or counts[0] != 0:
            raise ValueError("counts and limits differ in length, or counts[0] is not 0")
        lower = 0.0 if lower_bound is None or upper_bound is None else lower_bound
        upper = 0.0 if lower_bound is None or upper_bound is None else upper_bound
        if upper == lower:
            lower, upper = lower / 1.1 - 1, lower * 1.1 + 1
        width = (upper - lower) / n_bins
        bucket, centres, bins = 1, [], []
        for i in range(n_bins):
            left = lower + i * width
            right = left + width
            total: Any = 0
            while bucket < len(counts):
                bucket_right = min(upper, limits[bucket])
                bucket_left = max(lower, limits[bucket - 1])
                if bucket_right - bucket_left > 0:
                    overlap = min(bucket_right, right) - max(bucket_left, left)
                    share = overlap / (bucket_right - bucket_left) * counts[bucket]
                    total += share if overlap > 0 else 0
                else:
                    inside = bucket_right <= right if right >= upper else bucket_right < right
                    total += counts[bucket] if bucket_left >= left and inside else 0
                if bucket_right > right:
                    break
                bucket += 1
            centres.append(left + width / 2)
            bins.append(total)
        return centres, bins
