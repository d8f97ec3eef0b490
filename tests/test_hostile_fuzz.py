"""Every public v2 op, dashboard, the hparams API, set_step and record_if driven with hostile
values (tests/hostile_values.py; issue 19, item 15). The contract, for each call: EITHER a
ValueError/TypeError in the one shape, `summarylib.<op>: tag '<tag>': argument '<arg>':
...` (no tag part for APIs without one), OR the call returns True and after the writer's
close the event is on disk, readable by TensorBoard's loader and summarylib's reader;
either way the valid scalars logged just before and after are written and the writer
counts no error. SUMMARYLIB_HYPOTHESIS=long runs 20 times as many examples."""

from __future__ import annotations

import os
import shutil
import tempfile
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from google.protobuf import text_format
from hypothesis import given, settings
from hypothesis import strategies as st
from tensorboard.backend.event_processing import event_file_loader

import summarylib as sl
from summarylib import hparams as hp
from summarylib.proto import graph_pb2, projector_config_pb2, summary_pb2
from summarylib.reader import iter_events
from tests.hostile_values import examples, hostile, laid_out, numeric_arrays, steps, strings, tags

FEW, SOME = examples(25), examples(50)


def _check_error(error: Exception, apis: tuple[str, ...], tag: Any) -> None:
    """The one shape: one of `apis` first, the tag (when the call has a str tag that is
    short enough to be shown whole), then an argument (its repr: in single quotes, or
    double ones when it holds a quote)."""
    message = str(error)
    api = next((api for api in apis if message.startswith(f"summarylib.{api}: ")), None)
    assert api is not None, f"{type(error).__name__} not naming {apis}: {message[:300]}"
    rest = message[len(f"summarylib.{api}: ") :]
    if api == apis[0] and isinstance(tag, str) and tag and len(tag) <= 200:
        assert rest.startswith(f"tag {tag!r}: "), message[:300]
        rest = rest[len(f"tag {tag!r}: ") :]
    elif rest.startswith("tag "):
        rest = rest[rest.index(": argument ") + 2 :]
    assert rest.startswith(("argument '", 'argument "')), message[:300]


def check_contract(
    call: Callable[[], Any],
    apis: tuple[str, ...],
    tag: Any = None,
    events: int = 1,
    may_skip: bool = False,
    inspect: Callable[[str, bool], None] | None = None,
) -> None:
    """Run `call` between two valid scalars in a fresh run and assert the contract: an
    error in the one shape, or True and `events` more events on disk (`may_skip`: or
    False and none, for a recording condition that is off). `inspect(logdir, wrote)`
    checks what else the call wrote."""
    logdir = tempfile.mkdtemp(prefix="hostile")
    try:
        writer = sl.create_file_writer(logdir)
        wrote = False
        with warnings.catch_warnings(), writer.as_default(step=1):
            warnings.simplefilter("ignore", RuntimeWarning)  # NaN left out, audio clipped
            sl.scalar("before", 1.0)
            try:
                wrote = call()
            except (TypeError, ValueError) as error:
                _check_error(error, apis, tag)
            else:
                assert wrote is True or (may_skip and wrote is False), wrote
            sl.scalar("after", 2.0)
            writer.close()
        stats = writer.stats()
        assert (stats.errors, stats.events_dropped, stats.events_lost) == (0, 0, 0), stats.last_error
        # TensorBoard's loader as the dashboards use it (which adds a "__run_graph__"
        # summary after a graph), its raw loader, and summarylib's reader agree.
        migrated = list(event_file_loader.EventFileLoader(writer.path).Load())
        loaded = list(event_file_loader.LegacyEventFileLoader(writer.path).Load())
        ours = list(iter_events(writer.path))
        assert [event.SerializeToString() for event in ours] == [e.SerializeToString() for e in loaded]
        for events_read in (migrated, loaded):
            tags_read = [value.tag for event in events_read for value in event.summary.value]
            assert tags_read[0] == "before" and tags_read[-1] == "after"
            assert tags_read.count("before") == tags_read.count("after") == 1
        assert len(loaded) - 3 == (events if wrote else 0)  # less the file version and the scalars
        if inspect is not None:
            inspect(logdir, wrote)
    finally:
        shutil.rmtree(logdir, ignore_errors=True)


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


hparam_values = st.one_of(
    st.booleans(),
    st.integers(-(2**1100), 2**1100),
    st.floats(),
    strings,
    st.sampled_from([np.float32(1.5), np.longdouble(2), np.array([1, 2]), [1]]),
)


@settings(max_examples=SOME)
@given(
    values=st.dictionaries(st.one_of(strings, st.integers()), hparam_values, max_size=3),
    trial_id=strings,
    start=st.one_of(st.none(), st.floats(), st.integers(-(2**1100), 2**1100), strings),
)
def test_hparams(values, trial_id, start):
    check_contract(
        lambda: hp.hparams(values, trial_id=trial_id, start_time_secs=start),
        ("hparams",),
        "_hparams_/session_start_info",
    )


@settings(max_examples=SOME)
@given(
    name=strings,
    domain=st.deferred(lambda: domains_or_errors),
    display_name=strings,
    metric=st.tuples(
        strings,
        strings,
        strings,
        st.one_of(st.none(), st.integers(-1, 3), st.sampled_from([1.0, "x", np.array([1, 2])])),
    ),
    time_created=st.one_of(st.none(), st.floats(), strings),
)
def test_hparams_config(name, domain, display_name, metric, time_created):
    apis = (
        "hparams_config",
        "hparams.HParam",
        "hparams.Metric",
        "hparams.Discrete",
        "hparams.IntInterval",
        "hparams.RealInterval",
    )

    def call():
        if isinstance(domain, Exception):
            raise domain
        tag, group, description, dataset_type = metric
        hparam = hp.HParam(name, domain, display_name=display_name)
        measure = hp.Metric(tag, group=group, description=description, dataset_type=dataset_type)
        return hp.hparams_config([hparam], [measure], time_created_secs=time_created)

    check_contract(call, apis, "_hparams_/experiment")


def _domain_or_error(make: Callable[[], Any]) -> Any:
    """A domain, or the error its construction raised (checked by the test's contract)."""
    try:
        return make()
    except (TypeError, ValueError) as error:
        return error


domains_or_errors = st.one_of(
    st.none(),
    st.sampled_from([[1, 2], "domain"]),
    st.builds(
        lambda v: _domain_or_error(lambda: hp.Discrete(v)),
        st.one_of(st.lists(hparam_values, max_size=3), hparam_values),
    ),
    st.builds(lambda a, b: _domain_or_error(lambda: hp.IntInterval(a, b)), hparam_values, hparam_values),
    st.builds(lambda a, b: _domain_or_error(lambda: hp.RealInterval(a, b)), hparam_values, hparam_values),
)


@settings(max_examples=FEW)
@given(
    status=st.one_of(strings, st.integers(-1, 5), st.sampled_from(["success", "FAILURE", 1.0])),
    end=st.one_of(st.none(), st.floats(), strings),
)
def test_session_end(status, end):
    check_contract(
        lambda: hp.session_end(status, end_time_secs=end), ("session_end",), "_hparams_/session_end_info"
    )


conditions = st.one_of(
    st.booleans(),
    st.sampled_from([np.bool_(True), np.array([True, False]), None, "yes", 1]),
    st.builds(
        lambda value: lambda: value, st.sampled_from([True, False, np.bool_(False), np.array([1, 2]), 0, "x"])
    ),
)


@settings(max_examples=FEW)
@given(default_step=steps, condition=conditions)
def test_set_step_and_record_if(default_step, condition):
    def call():
        try:
            sl.set_step(default_step)
            with sl.record_if(condition):
                return sl.scalar("x", 3.0, step=7)
        finally:
            sl.set_step(1)

    check_contract(call, ("set_step", "record_if"), None, may_skip=True)
