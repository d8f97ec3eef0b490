"""`summarylib.compat.v1`'s ops and `FileWriter`, and `summarylib.compat.contrib`'s ops,
driven with hostile values (tests/hostile_values.py; issue 19, items 13 and 15). The
contract: EITHER a ValueError/TypeError in the one shape at the call, OR (v1) a Summary
that `FileWriter.add_summary` writes, or (contrib) True, and then the file reads back
alike through TensorBoard's loader and summarylib's reader, with the valid scalars
before and after it and no writer error."""

from __future__ import annotations

import shutil
import tempfile
import warnings
from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from tensorboard.backend.event_processing import event_file_loader

import summarylib as sl
from summarylib.compat import contrib, v1
from summarylib.reader import iter_events
from tests.hostile_contract import check_error as check_error_shape
from tests.hostile_values import examples, hostile, steps, strings, tags

FEW = examples(12)
families = st.one_of(st.none(), strings, tags)
collections = st.one_of(st.none(), st.sampled_from([["mine"], [], "summaries", [5], None]))
counts = st.one_of(st.integers(-1, 4), st.sampled_from([1.5, None, "3", True]))
rates = st.one_of(st.integers(-1, 48000), st.sampled_from([44100.0, 0.5, "fast", None]))


def check_v1(op: str, call: Callable[[], Any]) -> None:
    """`call()` makes a Summary (bytes) or raises in the one shape; a made one is written."""
    v1.clear_collections()
    logdir = tempfile.mkdtemp(prefix="hostile_v1")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # names cleaned, NaN left out, audio clipped
            writer = v1.FileWriter(logdir)
            writer.add_summary(v1.scalar("before", 1.0), 0)
            try:
                summary = call()
            except (TypeError, ValueError) as error:
                check_error_shape(error, (op,), None)  # the tag: `name` cleaned, in its family
                summary = None
            if summary is not None:
                writer.add_summary(summary, 1)
            writer.add_summary(v1.scalar("after", 2.0), 2)
            writer.close()
        check_file(writer.get_logdir() if hasattr(writer, "get_logdir") else logdir)
    finally:
        v1.clear_collections()
        shutil.rmtree(logdir, ignore_errors=True)


def check_contrib(op: str, call: Callable[[], Any]) -> None:
    """`call()` returns True (or False when not recording) or raises in the one shape."""
    logdir = tempfile.mkdtemp(prefix="hostile_contrib")
    try:
        writer = contrib.create_file_writer(logdir)
        with warnings.catch_warnings(), writer.as_default(step=1), contrib.always_record_summaries():
            warnings.simplefilter("ignore")
            contrib.scalar("before", 1.0, step=0)
            try:
                assert call() in (True, False)
            except (TypeError, ValueError) as error:
                check_error_shape(error, (op,), None)
            contrib.scalar("after", 2.0, step=2)
        writer.close()  # raises WriterError for a failed background write
        check_file(logdir)
    finally:
        shutil.rmtree(logdir, ignore_errors=True)


def check_file(logdir: str) -> None:
    """TensorBoard's raw loader and summarylib's reader read the same events, the two
    valid scalars first and last."""
    (source,) = [path for path in __import__("glob").glob(f"{logdir}/events.out.tfevents.*")]
    loaded = list(event_file_loader.LegacyEventFileLoader(source).Load())
    ours = list(iter_events(source))
    assert [e.SerializeToString() for e in ours] == [e.SerializeToString() for e in loaded]
    tags_read = [value.tag for event in loaded for value in event.summary.value]
    assert tags_read[0] == "before" and tags_read[-1] == "after", tags_read


@settings(max_examples=FEW)
@given(name=tags, data=hostile(()), family=families, collections=collections)
def test_v1_scalar(name, data, family, collections):
    check_v1("scalar", lambda: v1.scalar(name, data, collections=collections, family=family))


@settings(max_examples=FEW)
@given(name=tags, data=hostile(st.tuples(st.integers(0, 8))), family=families)
def test_v1_histogram(name, data, family):
    check_v1("histogram", lambda: v1.histogram(name, data, family=family))


@settings(max_examples=FEW)
@given(
    name=tags,
    data=hostile(st.tuples(st.integers(0, 2), st.integers(0, 4), st.integers(1, 4), st.integers(1, 4))),
    max_outputs=counts,
    family=families,
)
def test_v1_image(name, data, max_outputs, family):
    check_v1("image", lambda: v1.image(name, data, max_outputs=max_outputs, family=family))


@settings(max_examples=FEW)
@given(name=tags, data=hostile(st.tuples(st.integers(0, 2), st.integers(0, 16))), rate=rates, family=families)
def test_v1_audio(name, data, rate, family):
    check_v1("audio", lambda: v1.audio(name, data, rate, family=family))


@settings(max_examples=FEW)
@given(name=tags, data=st.one_of(strings, hostile(st.tuples(st.integers(0, 3)))))
def test_v1_text(name, data):
    check_v1("text", lambda: v1.text(name, data))


@settings(max_examples=FEW)
@given(
    name=tags,
    data=hostile(st.tuples(st.integers(0, 3))),
    description=strings,
    display_name=strings,
    metadata=st.one_of(st.none(), st.sampled_from([b"", b"\xff\x00", 5, "metadata"])),
    family=families,
)
def test_v1_tensor_summary(name, data, description, display_name, metadata, family):
    check_v1(
        "tensor_summary",
        lambda: v1.tensor_summary(
            name,
            data,
            summary_description=description,
            summary_metadata=metadata,
            family=family,
            display_name=display_name,
        ),
    )


@settings(max_examples=FEW)
@given(
    inputs=st.lists(st.one_of(st.sampled_from([b"", b"\xff\x00", 5, None, "x"]), st.just(b"ok")), max_size=3)
)
def test_v1_merge(inputs):
    made = [v1.scalar("m", 1.0) if item == b"ok" else item for item in inputs]
    check_v1("merge", lambda: v1.merge(made))


@settings(max_examples=FEW)
@given(name=tags, data=hostile(()), family=families, step=steps)
def test_contrib_scalar(name, data, family, step):
    check_contrib("scalar", lambda: contrib.scalar(name, data, family=family, step=step))


@settings(max_examples=FEW)
@given(name=tags, data=hostile(st.tuples(st.integers(0, 8))), family=families, step=steps)
def test_contrib_histogram(name, data, family, step):
    check_contrib("histogram", lambda: contrib.histogram(name, data, family=family, step=step))


@settings(max_examples=FEW)
@given(
    name=tags,
    data=hostile(st.tuples(st.integers(0, 2), st.integers(0, 4), st.integers(1, 4), st.integers(1, 4))),
    bad_color=st.one_of(st.none(), st.sampled_from([(255, 0, 0, 255), (1,), "red", [300, 0, 0, 0]])),
    max_images=counts,
    family=families,
)
def test_contrib_image(name, data, bad_color, max_images, family):
    check_contrib(
        "image",
        lambda: contrib.image(name, data, bad_color=bad_color, max_images=max_images, family=family, step=1),
    )


@settings(max_examples=FEW)
@given(name=tags, data=hostile(st.tuples(st.integers(0, 2), st.integers(0, 16))), rate=rates, outputs=counts)
def test_contrib_audio(name, data, rate, outputs):
    check_contrib("audio", lambda: contrib.audio(name, data, rate, outputs, step=1))


@settings(max_examples=FEW)
@given(
    name=tags,
    data=hostile(st.tuples(st.integers(0, 3))),
    metadata=st.one_of(st.none(), st.sampled_from([b"", b"\xff\x00", 5, "metadata"])),
    family=families,
)
def test_contrib_generic(name, data, metadata, family):
    check_contrib("generic", lambda: contrib.generic(name, data, metadata=metadata, family=family, step=1))


def test_the_writers_are_real():
    """The contract's writers write: a sanity check that the suite cannot pass vacuously."""
    logdir = tempfile.mkdtemp(prefix="hostile_v1")
    try:
        writer = sl.create_file_writer(logdir)
        with writer.as_default(step=0):
            sl.scalar("before", 1.0)
            sl.scalar("after", 2.0)
        writer.close()
        check_file(logdir)
    finally:
        shutil.rmtree(logdir, ignore_errors=True)
