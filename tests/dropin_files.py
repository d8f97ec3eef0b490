"""What a logdir holds, read as raw protos, so a drop-in's files can be compared with the
files of the writer it replaces value for value: every run (a directory with event
files), every event's step and each of its Summary values, serialized (a proto's bytes
are the same when every field is).

Runs named by the time, as torch and tensorboardX name `add_hparams`'s runs, are named
`<time 0>`, `<time 1>`, ... in the order of their times, so two logdirs written at other
times compare."""

from __future__ import annotations

import hashlib
import io
import os
import re

import numpy as np
import soundfile
from PIL import Image, ImageSequence
from tensorboard.backend.event_processing import event_file_loader
from tensorboard.plugins.hparams import plugin_data_pb2 as hparams_plugin_data_pb2

from summarylib.proto import summary_pb2

_TIME_NAME = re.compile(r"^\d{9,}\.\d+$")


def _event_files(directory: str) -> list[str]:
    return sorted(name for name in os.listdir(directory) if "tfevents" in name)


def _canonical(value: summary_pb2.Summary.Value) -> bytes:
    """`value` serialized with its maps in key order (an hparams session's values are a
    map, whose order on the wire is the writer's hash order): equal values, equal bytes."""
    plugin = value.metadata.plugin_data
    if plugin.plugin_name == "hparams":
        content = hparams_plugin_data_pb2.HParamsPluginData.FromString(plugin.content)
        plugin.content = content.SerializeToString(deterministic=True)
    return value.SerializeToString(deterministic=True)


def run_values(logdir: str) -> dict[str, list[tuple[int, bytes]]]:
    """{run: [(step, serialized Summary.Value), ...]} in file and record order; the runs
    named by the time renamed as the module docstring says."""
    runs = {}
    for directory, _, _ in os.walk(logdir):
        files = _event_files(directory)
        if not files:
            continue
        values = []
        for name in files:
            loader = event_file_loader.LegacyEventFileLoader(os.path.join(directory, name))
            for event in loader.Load():
                values += [(event.step, _canonical(value)) for value in event.summary.value]
        runs[os.path.relpath(directory, logdir)] = values
    timed = sorted(
        (run for run in runs if _TIME_NAME.match(os.path.basename(run))),
        key=lambda r: float(os.path.basename(r)),
    )
    for index, run in enumerate(timed):
        runs[f"<time {index}>"] = runs.pop(run)
    return runs


def _decoded(blob: bytes) -> bytes:
    """A digest of what an image (every frame of a GIF) or a WAV clip holds: its pixels
    and mode, or its samples, rate and channels; not how the encoder packed them."""
    digest = hashlib.sha256()
    if blob[:4] == b"RIFF":
        samples, rate = soundfile.read(io.BytesIO(blob), dtype="int16", always_2d=True)
        digest.update(f"{rate} {samples.shape}".encode() + samples.tobytes())
        return digest.digest()
    image = Image.open(io.BytesIO(blob))
    for frame in ImageSequence.Iterator(image):
        pixels = np.asarray(frame.convert("RGBA" if "A" in frame.mode or frame.mode == "P" else frame.mode))
        digest.update(f"{frame.mode} {pixels.shape} {frame.info.get('duration')}".encode() + pixels.tobytes())
    return digest.digest()


def same_to_the_last_bits(sum_squares: float) -> float:
    """A histogram's sum of squares to 12 significant digits: torch's is BLAS's dot
    product, whose summation order is the BLAS build's, the CPU's and its thread count's,
    so files torch itself writes on two machines differ in the last bits there."""
    return float(f"{sum_squares:.12g}")


def decoded_values(values: list[tuple[int, bytes]]) -> list[tuple[int, bytes]]:
    """`run_values`' values with each image's and clip's encoded bytes replaced by the
    digest of what they hold (`_decoded`), so files that differ only in their encoder
    compare equal; histograms' sums of squares to the bits BLAS leaves alike."""
    compared = []
    for step, serialized in values:
        value = summary_pb2.Summary.Value.FromString(serialized)
        if value.HasField("image"):
            value.image.encoded_image_string = _decoded(value.image.encoded_image_string)
        elif value.HasField("audio"):
            value.audio.encoded_audio_string = _decoded(value.audio.encoded_audio_string)
        elif value.HasField("histo"):
            value.histo.sum_squares = same_to_the_last_bits(value.histo.sum_squares)
        compared.append((step, value.SerializeToString()))
    return compared


def run_metadata(logdir: str) -> dict[str, list[tuple[str, bytes]]]:
    """{run: [(tag, serialized RunMetadata), ...]}: the tagged run metadata events (torch
    writes the step stats of its graph so, tagged "step1")."""
    runs = {}
    for directory, _, _ in os.walk(logdir):
        for name in _event_files(directory):
            for event in event_file_loader.LegacyEventFileLoader(os.path.join(directory, name)).Load():
                if event.HasField("tagged_run_metadata"):
                    tagged = event.tagged_run_metadata
                    runs.setdefault(os.path.relpath(directory, logdir), []).append(
                        (tagged.tag, tagged.run_metadata)
                    )
    return runs
