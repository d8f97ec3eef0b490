"""compat.v1 and compat.contrib: TF 1.x's values, checked against TF 1.x's own output
(tests/reference/tf1_summaries.tfevents) over both layers, and TF 1.x-shaped scripts."""

from __future__ import annotations

import io
import os

import numpy as np
import pytest
import soundfile
from hypothesis import given
from hypothesis import strategies as st
from PIL import Image

import summarylib as sl
from summarylib.compat import contrib, v1
from summarylib.compat.legacy_histogram import BUCKET_LIMITS, bucket_counts
from summarylib.proto import summary_pb2
from summarylib.reader import iter_events
from tests.reference.cases_v1 import V1_CASES
from tests.tensorboard_data import provider_for, read_scalars

REFERENCE = os.path.join(os.path.dirname(__file__), "reference", "tf1_summaries.tfevents")


def reference_summaries() -> list[summary_pb2.Summary]:
    return [e.summary for e in iter_events(REFERENCE) if e.HasField("summary")]


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)))


def samples(wav: bytes) -> np.ndarray:
    return soundfile.read(io.BytesIO(wav), dtype="int16", always_2d=True)[0]


def assert_same_value(ours: summary_pb2.Summary.Value, theirs: summary_pb2.Summary.Value) -> None:
    """Equal as TF 1.x's value, except PNG and WAV bytes, whose decoded content must be equal."""
    assert ours.tag == theirs.tag
    kind = theirs.WhichOneof("value")
    assert ours.WhichOneof("value") == kind, ours.tag
    if kind == "image":
        np.testing.assert_array_equal(
            pixels(ours.image.encoded_image_string), pixels(theirs.image.encoded_image_string)
        )
        ours.image.ClearField("encoded_image_string")
        theirs.image.ClearField("encoded_image_string")
    if kind == "audio":
        np.testing.assert_array_equal(
            samples(ours.audio.encoded_audio_string), samples(theirs.audio.encoded_audio_string)
        )
        ours.audio.ClearField("encoded_audio_string")
        theirs.audio.ClearField("encoded_audio_string")
    assert ours == theirs, ours.tag


def v1_summary(op: str, name: str, data, options: dict) -> summary_pb2.Summary:
    options = dict(options)
    if op == "audio":
        return summary_pb2.Summary.FromString(v1.audio(name, data, options.pop("sample_rate"), **options))
    return summary_pb2.Summary.FromString(getattr(v1, op)(name, data, **options))


@pytest.fixture(autouse=True)
def _fresh_collections():
    v1.clear_collections()
    yield
    v1.clear_collections()


@pytest.mark.filterwarnings("ignore:summary name")
@pytest.mark.parametrize("index", range(len(V1_CASES)), ids=[f"{c[0]}-{c[1]}" for c in V1_CASES])
def test_v1_ops_match_tf1(index):
    theirs = reference_summaries()[index]
    ours = v1_summary(*V1_CASES[index])
    assert len(ours.value) == len(theirs.value)
    for mine, reference in zip(ours.value, theirs.value, strict=True):
        assert_same_value(mine, reference)


CONTRIB_OPS = {"scalar", "histogram", "image", "audio", "tensor_summary"}


@pytest.mark.filterwarnings("ignore:summary name")
def test_contrib_ops_match_tf1(logdir):
    writer = contrib.create_file_writer(logdir)
    cases = [(i, case) for i, case in enumerate(V1_CASES) if case[0] in CONTRIB_OPS]
    with writer.as_default(), contrib.always_record_summaries():
        for step, (op, name, data, options) in cases:
            options = dict(options)
            if op == "image":
                options["max_images"] = options.pop("max_outputs", 3)
            if op == "audio":
                assert contrib.audio(
                    name,
                    data,
                    options.pop("sample_rate"),
                    options.pop("max_outputs", 3),
                    step=step,
                    **options,
                )
            elif op == "tensor_summary":
                metadata = summary_pb2.SummaryMetadata(
                    display_name=options.pop("display_name", ""),
                    summary_description=options.pop("summary_description", ""),
                )
                assert contrib.generic(name, data, metadata=metadata, step=step, **options)
            else:
                assert getattr(contrib, op)(name, data, step=step, **options)
    writer.close()
    ours = {e.step: e.summary for e in iter_events(writer.path) if e.HasField("summary")}
    references = reference_summaries()
    assert sorted(ours) == [step for step, _ in cases]
    for step, summary in ours.items():
        for mine, reference in zip(summary.value, references[step].value, strict=True):
            assert_same_value(mine, reference)


def test_histogram_bucket_limits_are_tf1s():
    positive = BUCKET_LIMITS[BUCKET_LIMITS > 0]
    assert BUCKET_LIMITS[0] == -BUCKET_LIMITS[-1] == -np.finfo(np.float64).max
    assert positive[0] == 1e-12 and positive[-2] < 1e20 <= positive[-2] * 1.1
    np.testing.assert_array_equal(BUCKET_LIMITS, -BUCKET_LIMITS[::-1])
    assert (np.diff(BUCKET_LIMITS) > 0).all()


def test_histogram_non_finite_values_left_out_with_a_warning():
    with pytest.warns(RuntimeWarning, match="left out 2"):
        histo = v1_summary("histogram", "nan_histogram", [1.0, np.nan, np.inf, 2.0], {}).value[0].histo
    assert (histo.num, histo.min, histo.max, histo.sum) == (2, 1.0, 2.0, 3.0)


# Collections and merging ----------------------------------------------------------------


def test_ops_inside_the_loop_merge_all_does_not_re_emit_earlier_steps():
    merged = []
    for step in range(3):
        v1.scalar("loss", float(step))
        v1.histogram("weights", np.arange(step + 1.0))
        merged.append(summary_pb2.Summary.FromString(v1.merge_all()))
    assert [[v.tag for v in m.value] for m in merged] == [["loss", "weights"]] * 3
    assert [m.value[0].simple_value for m in merged] == [0.0, 1.0, 2.0]
    assert v1.merge_all() is None


def test_ops_created_once_on_callables_are_re_evaluated_by_each_merge_all():
    state = {"loss": 5.0}
    first = v1.scalar("loss", lambda: state["loss"])
    v1.text("note", "constant", collections=["extra"])
    assert summary_pb2.Summary.FromString(first.eval()).value[0].simple_value == 5.0
    values = []
    for step in range(3):
        state["loss"] = float(step)
        values.append(summary_pb2.Summary.FromString(v1.merge_all()).value[0].simple_value)
    assert values == [0.0, 1.0, 2.0]
    assert [v.tag for v in summary_pb2.Summary.FromString(v1.merge_all("extra")).value] == ["note"]
    assert v1.merge_all("extra") is None


LAZY_OPS = [
    ("scalar", lambda read: v1.scalar("s", read), lambda: 1.5),
    ("histogram", lambda read: v1.histogram("h", read), lambda: np.arange(4.0)),
    ("image", lambda read: v1.image("i", read), lambda: np.zeros((1, 2, 2, 3), np.uint8)),
    ("audio", lambda read: v1.audio("a", read, 8000), lambda: np.zeros((1, 4), np.float32)),
    ("text", lambda read: v1.text("t", read), lambda: "hello"),
    ("tensor_summary", lambda read: v1.tensor_summary("g", read), lambda: np.ones(3)),
]


@pytest.mark.parametrize(("op", "create", "value"), LAZY_OPS, ids=[case[0] for case in LAZY_OPS])
def test_an_op_on_a_callable_calls_nothing_until_evaluated(logdir, op, create, value):
    """TF 1.x code builds its ops before any value exists: creating one must not call
    the callable, and each evaluation (merge_all, merge, eval, add_summary) calls it."""
    v1.clear_collections()
    state: dict = {}
    calls = []

    def read():
        calls.append(1)
        return state["value"]

    lazy = create(read)
    assert isinstance(lazy, v1.LazySummary) and calls == []
    state["value"] = value()
    expected = lazy.eval()
    assert len(calls) == 1
    assert v1.merge_all() == expected and v1.merge([lazy]) == expected and len(calls) == 3
    with v1.FileWriter(logdir) as writer:
        writer.add_summary(lazy, 1)
        writer.add_summary(v1.merge_all(), 2)
        path = writer._writer.path
    assert len(calls) == 5
    written = [(e.step, e.summary) for e in iter_events(path) if e.HasField("summary")]
    assert [step for step, _ in written] == [1, 2]
    assert all(len(summary.value) == 1 for _, summary in written)


def test_the_loop_shape_of_tf1_graph_code_writes_each_steps_value(logdir):
    v1.clear_collections()
    current: dict = {}
    v1.scalar("loss", lambda: current["loss"])  # nothing to read yet: must not raise
    v1.histogram("weights", lambda: current["weights"])
    with v1.FileWriter(logdir) as writer:
        for step in range(4):
            current["loss"] = 1.0 / 2**step
            current["weights"] = np.full(3, float(step))
            writer.add_summary(v1.merge_all(), step)
        path = writer._writer.path
    written = [e for e in iter_events(path) if e.HasField("summary")]
    assert [e.step for e in written] == [0, 1, 2, 3]
    assert [e.summary.value[0].simple_value for e in written] == [1.0, 0.5, 0.25, 0.125]
    assert [e.summary.value[1].histo.max for e in written] == [0.0, 1.0, 2.0, 3.0]


def test_merge_mixes_lazy_ops_serialized_summaries_and_protos():
    v1.clear_collections()
    lazy = v1.scalar("lazy", lambda: 2.0, collections=[])
    serialized = v1.scalar("bytes", 3.0, collections=[])
    proto = summary_pb2.Summary.FromString(v1.scalar("proto", 4.0, collections=[]))
    merged = summary_pb2.Summary.FromString(v1.merge([lazy, serialized, None, proto], collections=["m"]))
    assert [(v.tag, v.simple_value) for v in merged.value] == [("lazy", 2.0), ("bytes", 3.0), ("proto", 4.0)]
    assert v1.merge_all("m") == merged.SerializeToString()
    assert v1.merge_all("m") == merged.SerializeToString()  # a merge of a lazy op stays lazy


def test_an_error_in_the_callable_surfaces_at_evaluation_naming_op_and_tag():
    v1.clear_collections()
    lazy = v1.scalar("loss", lambda: {}["loss"], family="train")
    with pytest.raises(
        v1.LazySummaryError, match=r"compat\.v1\.scalar: tag 'train/train/loss'.*KeyError"
    ) as info:
        v1.merge_all()
    assert isinstance(info.value.__cause__, KeyError)
    with pytest.raises(v1.LazySummaryError, match="train/train/loss"):
        lazy.eval()
    with pytest.raises(TypeError, match=r"summarylib\.scalar: tag 'bad'"):
        v1.scalar("bad", lambda: "not a number").eval()


def test_merge_and_duplicate_tags():
    a, b = v1.scalar("a", 1.0), v1.scalar("b", 2.0)
    assert [v.tag for v in summary_pb2.Summary.FromString(v1.merge([a, b])).value] == ["a", "b"]
    with pytest.raises(ValueError, match="argument 'inputs': expected each tag once"):
        v1.merge([a, a])
    assert v1.merge_all("nothing here") is None


# FileWriter -----------------------------------------------------------------------------


class TFGraphLike:
    """What TF 1.x tutorials pass as `sess.graph`: an object with `as_graph_def()`."""

    def __init__(self, *names: str) -> None:
        self.names = names

    def as_graph_def(self):
        from tensorboard.compat.proto import graph_pb2 as tb_graph_pb2

        return tb_graph_pb2.GraphDef(node=[{"name": name, "op": "Const"} for name in self.names])


GRAPH_G = TFGraphLike("g").as_graph_def().SerializeToString()
GRAPH_A = TFGraphLike("a").as_graph_def().SerializeToString()


def test_file_writer_names_metadata_and_tensorboard(tmp_path):
    logdir = str(tmp_path)
    with v1.FileWriter(logdir, graph=TFGraphLike("g")) as writer:
        for step in range(3):
            writer.add_summary(v1.text("note", f"step {step}"), global_step=step)
            writer.add_summary(summary_pb2.Summary.FromString(v1.scalar("loss", step * 0.5)), step)
        writer.add_session_log(v1.SessionLog(status=v1.SessionLog.START), 3)
        writer.add_graph(GRAPH_A)
        writer.add_event(v1.Event(step=9, wall_time=5.0, file_version="custom"))
        assert writer.get_logdir() == logdir
    (name,) = os.listdir(logdir)
    assert name.startswith("events.out.tfevents.") and name.count(".") == 4  # seconds.hostname
    events = list(iter_events(os.path.join(logdir, name)))
    notes = [v for e in events for v in e.summary.value if v.tag == "note"]
    assert [n.HasField("metadata") for n in notes] == [True, False, False]  # first value only
    assert [e.session_log.status for e in events if e.HasField("session_log")] == [v1.SessionLog.START]
    assert [e.graph_def for e in events if e.HasField("graph_def")] == [GRAPH_G, GRAPH_A]
    assert read_scalars(logdir) == {".": {"loss": [(0, 0.0), (1, 0.5), (2, 1.0)]}}


def test_file_writer_graphs_reach_the_graphs_dashboard_and_bad_graphs_are_rejected(tmp_path):
    from summarylib.proto import graph_pb2

    logdir = str(tmp_path)
    with v1.FileWriter(logdir, TFGraphLike("input", "dense/MatMul")) as writer:
        with pytest.raises(TypeError, match=r"compat\.v1\.FileWriter\.add_graph.*graph_def"):
            writer.add_graph(42)
        with pytest.raises(ValueError, match=r"compat\.v1\.FileWriter\.add_graph"):
            writer.add_graph(b"\n\x01g")
        writer.add_graph(graph_pb2.GraphDef(node=[graph_pb2.NodeDef(name="ours", op="Add")]), global_step=2)
    multiplexer = provider_for(logdir)._multiplexer
    graph = multiplexer.Graph(".")
    assert [node.name for node in graph.node] == ["ours"]  # the newest graph of the run


def test_file_writer_never_overwrites_and_reopens(tmp_path):
    logdir = str(tmp_path)
    first = v1.FileWriter(logdir)
    first.add_summary(v1.scalar("x", 1.0), 1)
    first.close()
    second = v1.FileWriter(logdir)  # maybe the same second: must not reuse the name
    second.add_summary(v1.scalar("x", 2.0), 2)
    second.close()
    second.reopen()
    second.add_summary(v1.scalar("x", 3.0), 3)
    second.close()
    names = sorted(os.listdir(logdir))
    assert len(names) == 3
    steps = sorted(
        e.step for n in names for e in iter_events(os.path.join(logdir, n)) if e.HasField("summary")
    )
    assert steps == [1, 2, 3]


def test_file_writer_cache(tmp_path):
    writer = v1.FileWriterCache.get(tmp_path)
    assert v1.FileWriterCache.get(str(tmp_path)) is writer
    v1.FileWriterCache.clear()
    assert v1.FileWriterCache.get(tmp_path) is not writer
    v1.FileWriterCache.clear()


TF1_SCRIPT = """
import numpy as np
from summarylib.compat import v1 as summary  # was: import tensorflow as tf; tf.summary

def train(logdir, steps=20):
    rng = np.random.default_rng(0)
    weights = rng.normal(size=(784, 10)).astype(np.float32)
    writer = summary.FileWriter(logdir)
    for step in range(steps):
        images = rng.uniform(size=(8, 28, 28, 1)).astype(np.float32)
        labels = rng.integers(0, 10, size=8)
        logits = images.reshape(8, -1) @ weights
        loss = float(np.mean((logits - np.eye(10)[labels]) ** 2))
        weights -= 1e-4 * images.reshape(8, -1).T @ (logits - np.eye(10)[labels])
        summary.scalar("loss", loss, family="train")
        summary.histogram("weights", weights)
        summary.image("input", images, max_outputs=2)
        merged = summary.merge_all()
        writer.add_summary(merged, step)
    writer.close()
"""


def test_tf1_style_training_script(tmp_path):
    namespace: dict = {}
    exec(TF1_SCRIPT, namespace)
    namespace["train"](str(tmp_path))
    scalars = read_scalars(str(tmp_path))["."]
    assert [s for s, _ in scalars["train/train/loss"]] == list(range(20))
    from tensorboard import context

    provider = provider_for(str(tmp_path))
    histograms = provider.read_tensors(
        context.RequestContext(), experiment_id="", plugin_name="histograms", downsample=100
    )
    assert len(histograms["."]["weights"]) == 20
    images = provider.read_blob_sequences(
        context.RequestContext(), experiment_id="", plugin_name="images", downsample=100
    )
    assert set(images["."]) == {"input/image/0", "input/image/1"}


CONTRIB_SCRIPT = """
import numpy as np
from summarylib.compat import contrib as summary  # was: tf.contrib.summary

def train(logdir, steps=30):
    writer = summary.create_file_writer(logdir, flush_millis=10000)
    global_step = summary.get_or_create_global_step()
    with writer.as_default(), summary.record_summaries_every_n_global_steps(10):
        for _ in range(steps):
            summary.scalar("loss", 1.0 / (1 + int(global_step)))
            summary.histogram("activations", np.linspace(-1, 1, 50) * int(global_step))
            global_step.assign_add(1)
    with writer.as_default(), summary.always_record_summaries():
        summary.scalar("final", 0.5)
    summary.flush(writer)
    writer.close()
"""


def test_contrib_style_script(tmp_path):
    contrib.get_or_create_global_step().assign(0)
    namespace: dict = {}
    exec(CONTRIB_SCRIPT, namespace)
    namespace["train"](str(tmp_path))
    scalars = read_scalars(str(tmp_path))["."]
    assert [s for s, _ in scalars["loss"]] == [0, 10, 20]
    assert scalars["final"] == [(30, 0.5)]


def test_contrib_recording_is_off_by_default(logdir):
    writer = contrib.create_file_writer(logdir)
    with writer.as_default(step=1):
        assert not contrib.should_record_summaries()
        assert contrib.scalar("x", 1.0) is False
        with contrib.always_record_summaries():
            assert contrib.should_record_summaries()
            with contrib.never_record_summaries():
                assert contrib.scalar("x", 1.0) is False
            with sl.record_if(False):  # the v2 condition applies too
                assert contrib.scalar("x", 1.0) is False
    writer.close()
    assert contrib.create_file_writer(None).close() is None  # a no-op writer


def test_global_step_methods():
    step = contrib.get_or_create_global_step()
    assert contrib.get_global_step() is step is contrib.get_or_create_global_step()
    step.assign(5).assign_add(2)
    assert (int(step), step.numpy(), step.value(), [0, 1, 2, 3, 4, 5, 6, 7][step]) == (7, 7, 7, 7)
    with pytest.raises(
        TypeError, match=r"^summarylib\.compat\.contrib\.GlobalStep\.assign: argument 'value'"
    ):
        step.assign(True)
    assert contrib.eval_dir("/m") == "/m/eval" and contrib.eval_dir("/m", "x") == "/m/eval_x"
    assert contrib.summary_writer_initializer_op() == [] and contrib.all_summary_ops() == []


def test_tensorboard_dashboards_read_every_legacy_value(tmp_path):
    from tensorboard import context as tb_context

    rng = np.random.default_rng(1)
    images = rng.uniform(0, 1, size=(2, 8, 8, 3)).astype(np.float32)
    clips = np.sin(np.linspace(0, 50, 800, dtype=np.float32)).reshape(1, 800, 1) * 0.5
    with v1.FileWriter(str(tmp_path / "v1")) as writer:
        writer.add_summary(v1.merge([v1.image("img", images), v1.audio("snd", clips, 8000)]), 3)
        writer.add_summary(v1.histogram("hist", rng.normal(size=500)), 3)
    contrib_writer = contrib.create_file_writer(str(tmp_path / "contrib"))
    with contrib_writer.as_default(), contrib.always_record_summaries():
        contrib.image("img", images, step=4)
        contrib.audio("snd", clips, 8000, 1, step=4)
        contrib.histogram("hist", rng.normal(size=500), step=4)
    contrib_writer.close()
    provider = provider_for(str(tmp_path))
    ctx = tb_context.RequestContext()
    blobs = {
        plugin: provider.read_blob_sequences(ctx, experiment_id="", plugin_name=plugin, downsample=10)
        for plugin in ("images", "audio")
    }
    assert set(blobs["images"]["v1"]) == {"img/image/0", "img/image/1"}
    assert set(blobs["images"]["contrib"]) == {"img/image/0", "img/image/1"}
    assert set(blobs["audio"]["v1"]) == {"snd/audio/0"} and set(blobs["audio"]["contrib"]) == {"snd/audio"}
    for run, step in (("v1", 3), ("contrib", 4)):
        (datum,) = blobs["images"][run]["img/image/1"]
        width, height, png = (provider.read_blob(ctx, blob_key=ref.blob_key) for ref in datum.values)
        assert (datum.step, width, height) == (step, b"8", b"8")
        np.testing.assert_array_equal(pixels(png), legacy_uint8_reference(images[1]))
        (audio_datum,) = next(iter(blobs["audio"][run].values()))
        wav = provider.read_blob(ctx, blob_key=audio_datum.values[0].blob_key)
        np.testing.assert_array_equal(samples(wav)[:, 0], np.round(clips[0, :, 0] * 32768).astype(np.int16))
    histograms = provider.read_tensors(ctx, experiment_id="", plugin_name="histograms", downsample=10)
    for run in ("v1", "contrib"):
        (datum,) = histograms[run]["hist"]
        assert datum.numpy[:, 2].sum() == 500  # TensorBoard's conversion of the legacy histo


def legacy_uint8_reference(image: np.ndarray) -> np.ndarray:
    """TF 1.x's rescaling of a non-negative float image: 255 / max, truncated."""
    return (image * (np.float32(255) / image.max())).astype(np.uint8)


@given(
    st.lists(
        st.one_of(
            st.floats(allow_nan=False, allow_infinity=False),
            st.sampled_from(BUCKET_LIMITS.tolist()),  # values on a limit go to the next bucket
        ),
        min_size=1,
        max_size=200,
    )
)
def test_legacy_histogram_buckets_place_each_value_as_tf_does(values):
    values = np.array(values)
    first_greater_limit = np.minimum(
        np.searchsorted(BUCKET_LIMITS, values, side="right"), BUCKET_LIMITS.size - 1
    )
    expected = np.bincount(first_greater_limit, minlength=BUCKET_LIMITS.size)
    assert (bucket_counts(np.sort(values)) == expected).all()
