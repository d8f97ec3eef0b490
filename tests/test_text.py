"""The text op: TensorFlow 2's exact encoding, TensorBoard's text dashboard reading it, and
every input the issue names, accepted or rejected at the call."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import summarylib as sl
from summarylib.ops.text import encoding as text_encoding
from summarylib.proto import summary_pb2, types_pb2
from tests.helpers import written_values
from tests.reference.cases_media import TEXT_CASES
from tests.tensorboard_data import read_tensors

REFERENCE = os.path.join(os.path.dirname(__file__), "reference", "tf2_text.tfevents")


def decode_tensor(tensor) -> tuple[list[int], list[bytes]]:
    assert tensor.dtype == types_pb2.DT_STRING and not tensor.tensor_content
    return [d.size for d in tensor.tensor_shape.dim], list(tensor.string_val)


def encoded(data, tag="notes"):
    tensor, metadata = text_encoding.encode(tag, data)
    assert metadata.plugin_data.plugin_name == "text"
    return decode_tensor(tensor)


def logged(logdir, data, tag="notes"):
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=4):
        assert sl.text(tag, data)
    writer.close()
    ((step, value),) = written_values(writer.path)
    assert step == 4 and value.tag == tag
    assert value.metadata.plugin_data.plugin_name == "text"
    return decode_tensor(value.tensor)


PATHS = {"encode": lambda logdir, data: encoded(data), "op": logged}

# (id, data, (shape, strings))
BEHAVIOUR = [
    ("str", "hello *world*", ([], [b"hello *world*"])),
    ("str as UTF-8", "héllo ✓ 🎉", ([], ["héllo ✓ 🎉".encode()])),
    ("bytes as they are", b"\xff\x00", ([], [b"\xff\x00"])),
    ("numpy str_", np.str_("a"), ([], [b"a"])),
    ("0-d array", np.array("a"), ([], [b"a"])),
    ("trailing NUL kept", "a\x00", ([], [b"a\x00"])),
    ("list", ["a", "b"], ([2], [b"a", b"b"])),
    ("tuple", ("a", b"b"), ([2], [b"a", b"b"])),
    ("table", [["a", "b", "c"], ["d", "e", "f"]], ([2, 3], [b"a", b"b", b"c", b"d", b"e", b"f"])),
    ("rank 3", np.array([[["a"], ["b"]]]), ([1, 2, 1], [b"a", b"b"])),
    ("numpy bytes", np.array([b"x", b"yz"]), ([2], [b"x", b"yz"])),
    ("numpy object", np.array(["x", b"y"], dtype=object), ([2], [b"x", b"y"])),
    ("transposed view", np.array([["a", "b"], ["c", "d"]]).T, ([2, 2], [b"a", b"c", b"b", b"d"])),
    ("empty list", [], ([0], [])),
    ("empty 2-d", np.zeros((0, 3), "U1"), ([0, 3], [])),
]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(("data", "expected"), [b[1:] for b in BEHAVIOUR], ids=[b[0] for b in BEHAVIOUR])
def test_behaviour(logdir, path, data, expected):
    assert PATHS[path](logdir, data) == expected


def test_same_summaries_as_tensorflow(logdir):
    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        for step, (tag, data, description) in enumerate(TEXT_CASES):
            assert sl.text(tag, data, step=step, description=description)
    writer.close()
    theirs = written_values(REFERENCE)
    assert len(theirs) == len(TEXT_CASES)
    ours = written_values(writer.path)
    assert [(s, v.SerializeToString()) for s, v in ours] == [(s, v.SerializeToString()) for s, v in theirs]


def test_encoder_matches_tensorflow():
    theirs = [v for _, v in written_values(REFERENCE)]
    for (tag, data, description), their in zip(TEXT_CASES, theirs, strict=True):
        tensor, metadata = text_encoding.encode(tag, data, description)
        ours = summary_pb2.Summary.Value(tag=tag, tensor=tensor, metadata=metadata)
        assert ours.SerializeToString() == their.SerializeToString()


@pytest.mark.filterwarnings("ignore:html5lib's sanitizer is deprecated:DeprecationWarning")
def test_tensorboard_text_dashboard_reads_it(logdir):
    from tensorboard.plugins.text import text_plugin

    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        sl.text("notes", "**bold** note", step=0)
        sl.text("notes", [["a", "b"], ["c", "d"]], step=1)
    writer.close()
    ((step0, note), (step1, table)) = read_tensors(logdir, "text")["."]["notes"]
    assert (step0, note.tolist()) == (0, b"**bold** note")
    assert (step1, table.tolist()) == (1, [[b"a", b"b"], [b"c", b"d"]])
    assert "<strong>bold</strong>" in text_plugin.text_array_to_html(note, enable_markdown=True)
    assert text_plugin.text_array_to_html(table, enable_markdown=True).count("<td>") == 4


_STRINGS = st.one_of(st.text(), st.binary())


def test_any_strings_round_trip(logdir):
    """Every array of str and bytes: the encoder keeps shape and UTF-8 strings (hypothesis
    shrinks on that), and the op writes what the encoder gives, checked at the end."""
    writer = sl.create_file_writer(logdir)
    encodings = []

    @settings(max_examples=60, deadline=None)
    @given(
        hnp.arrays(
            object, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3), elements=_STRINGS
        )
    )
    def check(data):
        shape, strings = encoded(data)
        assert shape == list(data.shape)
        assert strings == [s if isinstance(s, bytes) else s.encode("utf-8") for s in data.reshape(-1)]
        assert sl.text("t", data, step=len(encodings))
        encodings.append((shape, strings))

    with writer.as_default():
        check()
    writer.close()
    written = written_values(writer.path)
    assert len(encodings) >= 60
    assert [decode_tensor(v.tensor) for _, v in written] == encodings


BAD_INPUTS = st.one_of(
    st.sampled_from([3, 1.5, None, True, [1, 2], np.zeros(3), np.arange(2), object()]).map(
        lambda d: (d, TypeError)
    ),
    st.lists(st.one_of(st.integers(), st.none(), st.floats()), min_size=1).map(
        lambda d: (["ok", *d], TypeError)
    ),
    st.just(([["a", "b"], ["c"]], TypeError)),  # ragged: an element is a list
    st.just(([np.full((2, 2), "a"), np.full((2, 3), "b")], ValueError)),  # numpy cannot lay it out
    st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1).map(
        lambda d: (d, ValueError)
    ),
)


def test_bad_input_rejected_at_the_call(logdir):
    writer = sl.create_file_writer(logdir)

    @settings(max_examples=40, deadline=None)
    @given(BAD_INPUTS)
    def check(bad):
        data, error = bad
        with pytest.raises(error, match=r"summarylib\.text: tag 'bad/text': argument 'data': "):
            sl.text("bad/text", data)
        assert sl.text("good", "fine")  # the writer carries on

    with writer.as_default(step=1):
        check()
    writer.close()
    assert {v.tag for _, v in written_values(writer.path)} == {"good"}


def test_bad_name_and_description(logdir):
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0):
        with pytest.raises(
            TypeError, match=r"summarylib\.text: (tag .*: )?argument .name.: expected a non-empty str"
        ):
            sl.text(None, "x")
        with pytest.raises(TypeError, match=r"summarylib\.text: tag 'notes': argument 'description'"):
            sl.text("notes", "x", description=["x"])
    writer.close()
    assert written_values(writer.path) == []


def test_mutation_after_the_call_changes_nothing(logdir):
    lines = ["first", "second"]
    array = np.array(["x", "y"])
    writer = sl.create_file_writer(logdir, flush_millis=60_000)
    with writer.as_default(step=0):
        sl.text("list", lines)
        sl.text("array", array)
        lines[0] = "changed"
        array[0] = "z"
    writer.close()
    assert [decode_tensor(v.tensor)[1] for _, v in written_values(writer.path)] == [
        [b"first", b"second"],
        [b"x", b"y"],
    ]


def test_nothing_recorded_without_a_writer_or_when_off(logdir):
    assert sl.text("notes", object()) is False  # the input is not even looked at
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0), sl.record_if(False):
        assert sl.text("notes", object()) is False
    writer.close()
    assert written_values(writer.path) == []
