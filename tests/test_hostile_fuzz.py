"""Every public v2 op and dashboard driven with hostile values (tests/hostile_values.py;
issue 19, item 15), each call held to the contract of tests/hostile_contract.py (a clear
error at the call, or written and readable; neighbours kept, no writer error); the hparams
API, set_step and record_if are in test_hostile_fuzz_hparams.py. SUMMARYLIB_HYPOTHESIS=long
runs 20 times as many examples."""

from __future__ import annotations

import os

import numpy as np
from google.protobuf import text_format
from hypothesis import given, settings
from hypothesis import strategies as st

import summarylib as sl
from summarylib.proto import graph_pb2, projector_config_pb2, summary_pb2
from tests.hostile_contract import check_contract
from tests.hostile_values import examples, hostile, laid_out, numeric_arrays, steps, strings, tags

FEW, SOME = examples(25), examples(50)


@settings(max_examples=SOME)
@given(tag=tags, data=hostile(()), step=steps, description=strings)
def test_scalar(tag, data, step, description):
    check_contract(lambda: sl.scalar(tag, data, step=step, description=description), ("scalar",), tag)


@settings(max_examples=SOME)
@given(
    tag=tags,
    data=hostile(st.tuples(st.integers(0, 8))),
    step=steps,
    buckets=st.one_of(st.none(), st.integers(-2, 40), st.sampled_from([2**31, 1.5, "fd"])),
    description=strings,
)
def test_histogram(tag, data, step, buckets, description):
    check_contract(
        lambda: sl.histogram(tag, data, step=step, buckets=buckets, description=description),
        ("histogram",),
        tag,
    )


@settings(max_examples=SOME)
@given(
    tag=tags,
    data=hostile(st.tuples(st.integers(0, 2), st.integers(0, 4), st.integers(1, 4), st.integers(1, 4))),
    step=steps,
    max_outputs=st.one_of(st.integers(-1, 3), st.sampled_from([1.5, None, np.int64(2)])),
    description=strings,
)
def test_image(tag, data, step, max_outputs, description):
    check_contract(
        lambda: sl.image(tag, data, step=step, max_outputs=max_outputs, description=description),
        ("image",),
        tag,
    )


@settings(max_examples=SOME)
@given(
    tag=tags,
    data=hostile(
        st.tuples(st.integers(0, 2), st.integers(0, 16), st.integers(1, 2)), [np.float32, np.float64]
    ),
    sample_rate=st.one_of(st.integers(-1, 2**33), st.sampled_from([44100.0, 0.5, "fast", None])),
    step=steps,
    encoding=st.sampled_from([None, "wav", "mp3", 3]),
)
def test_audio(tag, data, sample_rate, step, encoding):
    check_contract(lambda: sl.audio(tag, data, sample_rate, step=step, encoding=encoding), ("audio",), tag)


@settings(max_examples=SOME)
@given(
    tag=tags,
    data=st.one_of(strings, st.lists(strings, max_size=4), hostile(st.tuples(st.integers(0, 3)))),
    step=steps,
)
def test_text(tag, data, step):
    check_contract(lambda: sl.text(tag, data, step=step), ("text",), tag)


@settings(max_examples=SOME)
@given(
    tag=tags,
    labels=hostile((4,), [np.bool_, np.int8, np.float32]),
    predictions=hostile((4,), [np.float16, np.float32, np.float64]),
    step=steps,
    num_thresholds=st.one_of(st.integers(-1, 50), st.sampled_from([2**31, 2**20 + 1, 3.0, None])),
    weights=st.one_of(st.none(), hostile((4,), [np.float32, np.float64])),
)
def test_pr_curve(tag, labels, predictions, step, num_thresholds, weights):
    check_contract(
        lambda: sl.pr_curve(
            tag, labels, predictions, step=step, num_thresholds=num_thresholds, weights=weights
        ),
        ("pr_curve",),
        tag,
    )


metadata = st.one_of(
    st.none(),
    st.just(summary_pb2.SummaryMetadata()),
    st.builds(lambda d: summary_pb2.SummaryMetadata(summary_description=d), st.text(max_size=10)),
    st.binary(max_size=8),
    st.sampled_from([3, "metadata"]),
)


@settings(max_examples=SOME)
@given(
    tag=tags,
    tensor=st.one_of(hostile(st.tuples(st.integers(0, 3))), strings, st.lists(strings, max_size=3)),
    step=steps,
    metadata=metadata,
    lazily=st.booleans(),
)
def test_write(tag, tensor, step, metadata, lazily):
    value = (lambda: tensor) if lazily else tensor
    check_contract(lambda: sl.write(tag, value, step=step, metadata=metadata), ("write",), tag)


raw_summaries = st.one_of(
    st.builds(
        lambda tag, value: summary_pb2.Summary(
            value=[summary_pb2.Summary.Value(tag=tag, simple_value=value)]
        ),
        st.text(max_size=10),
        st.floats(),
    ).map(lambda summary: summary.SerializeToString()),
    st.binary(max_size=12),
    st.sampled_from([None, "summary", 3]),
)


@settings(max_examples=FEW)
@given(summary=raw_summaries, step=steps)
def test_write_raw_pb(summary, step):
    check_contract(lambda: sl.write_raw_pb(summary, step=step), ("write_raw_pb",))


class FailingGraph:
    def as_graph_def(self):
        raise RuntimeError("not a graph")


graphs = st.one_of(
    st.builds(
        lambda names: graph_pb2.GraphDef(node=[graph_pb2.NodeDef(name=n) for n in names]),
        st.lists(st.text(max_size=5), max_size=3),
    ),
    st.binary(max_size=12),
    st.sampled_from([None, "graph", FailingGraph()]),
)


@settings(max_examples=FEW)
@given(graph=graphs, step=st.one_of(st.just(0), steps))
def test_graph(graph, step):
    check_contract(lambda: sl.graph(graph, step=step), ("graph",))


odd_text = st.one_of(st.text(max_size=4), st.sampled_from(["\ud800", 3]))
layouts = st.one_of(
    st.dictionaries(
        odd_text,
        st.dictionaries(
            odd_text,
            st.one_of(
                st.tuples(st.sampled_from(["Multiline", "Margin", "Pie"]), st.lists(odd_text, max_size=3)),
                st.sampled_from(["Multiline", None]),
            ),
            max_size=2,
        ),
        max_size=2,
    ),
    st.sampled_from([None, "layout", []]),
)


@settings(max_examples=FEW)
@given(layout=layouts, step=st.one_of(st.none(), steps))
def test_custom_scalars(layout, step):
    check_contract(
        lambda: sl.custom_scalars(layout, step=step), ("custom_scalars",), "custom_scalars__config__"
    )


@settings(max_examples=FEW)
@given(
    tag=tags,
    data=hostile((3, 2)),
    metadata=st.one_of(st.none(), st.lists(strings, min_size=3, max_size=3), strings),
    label_images=st.one_of(st.none(), hostile((3, 2, 2, 3), [np.uint8, np.float32])),
    step=steps,
)
def test_embedding(tag, data, metadata, label_images, step):
    def files_written(logdir: str, wrote: bool) -> None:
        config_path = os.path.join(logdir, "projector_config.pbtxt")
        assert os.path.exists(config_path) == wrote
        if wrote:
            with open(config_path) as file:
                config = text_format.Parse(file.read(), projector_config_pb2.ProjectorConfig())
            (info,) = config.embeddings
            assert os.path.isfile(os.path.join(logdir, info.tensor_path))

    check_contract(
        lambda: sl.embedding(tag, data, metadata=metadata, label_images=label_images, step=step),
        ("embedding",),
        tag,
        events=0,
        inspect=files_written,
    )


@settings(max_examples=FEW)
@given(
    tag=tags,
    vertices=hostile((1, 3, 3), [np.float32, np.float64, np.int32]),
    faces=st.one_of(st.none(), laid_out(numeric_arrays((1, 2, 3), [np.int32, np.int64]))),
    colors=st.one_of(st.none(), laid_out(numeric_arrays((1, 3, 3), [np.uint8, np.int64]))),
    config=st.one_of(
        st.none(),
        st.dictionaries(strings.filter(lambda s: isinstance(s, str)), strings, max_size=2),
        st.just("config"),
    ),
    step=steps,
)
def test_mesh(tag, vertices, faces, colors, config, step):
    components = 1 + (faces is not None) + (colors is not None)
    check_contract(
        lambda: sl.mesh(tag, vertices, faces=faces, colors=colors, config_dict=config, step=step),
        ("mesh",),
        tag,
        events=components,
    )
