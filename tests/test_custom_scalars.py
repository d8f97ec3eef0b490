"""Custom scalars: the layout record as TensorBoard's `custom_scalar.summary.pb` and torch's
`add_custom_scalars` write it, a real TensorBoard's Custom Scalars plugin (both loaders)
returning it, and bad layouts rejected at the call."""

from __future__ import annotations

import pytest
from tensorboard.compat.proto import summary_pb2 as tb_summary_pb2
from tensorboard.compat.proto import types_pb2 as tb_types_pb2
from tensorboard.plugins.custom_scalar import layout_pb2 as tb_layout_pb2
from tensorboard.plugins.custom_scalar import metadata as tb_metadata
from tensorboard.util import tensor_util

import summarylib as sl
from summarylib.ops.custom_scalars import custom_scalars, encoding
from summarylib.ops.summary import summary_bytes
from summarylib.proto import custom_scalar_pb2
from tests.helpers import written_values
from tests.tensorboard_server import LOADERS, get_json, running_tensorboard, wait_for

TAG = "custom_scalars__config__"

# torch's dict form, and the same layout as summarylib's Layout proto.
TORCH_LAYOUT = {
    "losses": {
        "train and eval": ["Multiline", ["loss/train", "loss/eval"]],
        "all losses": ["Multiline", [r"loss/.*"]],
    },
    "bands": {"loss ± std": ["Margin", ["loss/mean", "loss/low", "loss/high"]]},
}


def proto_layout() -> custom_scalar_pb2.Layout:
    margin = custom_scalar_pb2.MarginChartContent.Series(
        value="loss/mean", lower="loss/low", upper="loss/high"
    )
    return custom_scalar_pb2.Layout(
        category=[
            custom_scalar_pb2.Category(
                title="losses",
                chart=[
                    custom_scalar_pb2.Chart(
                        title="train and eval",
                        multiline=custom_scalar_pb2.MultilineChartContent(tag=["loss/train", "loss/eval"]),
                    ),
                    custom_scalar_pb2.Chart(
                        title="all losses",
                        multiline=custom_scalar_pb2.MultilineChartContent(tag=[r"loss/.*"]),
                    ),
                ],
            ),
            custom_scalar_pb2.Category(
                title="bands",
                chart=[
                    custom_scalar_pb2.Chart(
                        title="loss ± std", margin=custom_scalar_pb2.MarginChartContent(series=[margin])
                    )
                ],
            ),
        ]
    )


def ours(layout) -> tb_summary_pb2.Summary.Value:
    """Our record (from `encode`), read with TensorBoard's classes."""
    return tb_summary_pb2.Summary.FromString(summary_bytes(TAG, *encoding.encode(layout))).value[0]


def tensorboard_record(layout: tb_layout_pb2.Layout) -> tb_summary_pb2.Summary.Value:
    """What `custom_scalar.summary.pb(layout)` writes (it needs TensorFlow; these are its parts)."""
    return tb_summary_pb2.Summary.Value(
        tag=tb_metadata.CONFIG_SUMMARY_TAG,
        metadata=tb_metadata.create_summary_metadata(),
        tensor=tensor_util.make_tensor_proto(layout.SerializeToString(), dtype=tb_types_pb2.DT_STRING),
    )


def test_layout_proto_as_tensorboard_writes_it():
    theirs = tb_layout_pb2.Layout.FromString(proto_layout().SerializeToString())
    assert ours(proto_layout()) == tensorboard_record(theirs)


def test_tensorboards_layout_proto_is_accepted():
    theirs = tb_layout_pb2.Layout.FromString(proto_layout().SerializeToString())
    assert ours(theirs) == ours(proto_layout())


def test_dict_layout_as_torch_writes_it():
    torch_summary = pytest.importorskip("torch.utils.tensorboard.summary")
    (theirs,) = torch_summary.custom_scalars(TORCH_LAYOUT).value
    assert ours(TORCH_LAYOUT) == theirs
    assert ours(TORCH_LAYOUT) == ours(proto_layout())


def test_op_writes_the_layout_at_the_default_step_else_0(logdir):
    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        assert custom_scalars(TORCH_LAYOUT)
        sl.set_step(5)
        assert custom_scalars(proto_layout())
        assert custom_scalars(TORCH_LAYOUT, step=9)
    writer.close()
    written = written_values(writer.path)
    assert [(step, value.tag) for step, value in written] == [(0, TAG), (5, TAG), (9, TAG)]
    for _, value in written:
        assert value.metadata.plugin_data.plugin_name == "custom_scalars"
        assert custom_scalar_pb2.Layout.FromString(value.tensor.string_val[0]) == proto_layout()


def test_layout_is_snapshotted_at_the_call(logdir):
    layout = {"c": {"chart": ["Multiline", ["a"]]}}
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0):
        assert custom_scalars(layout)
        layout["c"]["chart"][1].append("b")
    writer.close()
    ((_, value),) = written_values(writer.path)
    assert list(
        custom_scalar_pb2.Layout.FromString(value.tensor.string_val[0]).category[0].chart[0].multiline.tag
    ) == ["a"]


def test_returns_false_without_writer_or_recording(logdir):
    assert not custom_scalars(TORCH_LAYOUT)
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0), sl.record_if(False):
        assert not custom_scalars("not even looked at")
    writer.close()


BAD_LAYOUTS = [
    ("not a layout", ["Multiline", ["a"]], TypeError, "expected a summarylib Layout proto or a dict"),
    ("category not a dict", {"c": ["Multiline", ["a"]]}, TypeError, "layout['c']"),
    ("category title", {1: {}}, TypeError, "category titles"),
    ("chart title", {"c": {2: ["Multiline", ["a"]]}}, TypeError, "chart titles"),
    ("chart not a pair", {"c": {"t": ["Multiline"]}}, ValueError, "layout['c']['t']"),
    ("chart a string", {"c": {"t": "Multiline"}}, ValueError, "layout['c']['t']"),
    ("unknown kind", {"c": {"t": ["Lines", ["a"]]}}, ValueError, "layout['c']['t'][0]"),
    ("margin of two", {"c": {"t": ["Margin", ["a", "b"]]}}, ValueError, "expected 3 tags"),
    ("empty multiline", {"c": {"t": ["Multiline", []]}}, ValueError, "at least one tag"),
    ("tags a string", {"c": {"t": ["Multiline", "loss"]}}, TypeError, "layout['c']['t'][1]"),
    ("tag not a str", {"c": {"t": ["Multiline", ["a", 3]]}}, TypeError, "layout['c']['t'][1][1]"),
]


@pytest.mark.parametrize(
    ("layout", "error", "names"), [b[1:] for b in BAD_LAYOUTS], ids=[b[0] for b in BAD_LAYOUTS]
)
def test_bad_layouts_are_rejected_at_the_call(logdir, layout, error, names):
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=0), pytest.raises(error, match=r"summarylib\.custom_scalars: ") as raised:
        custom_scalars(layout)
    writer.close()
    assert names in str(raised.value)
    assert writer.path is None or written_values(writer.path) == []


@pytest.mark.parametrize("load_fast", LOADERS, ids=["python-loader", "rust-loader"])
@pytest.mark.slow
def test_custom_scalars_plugin_returns_the_layouts(tmp_path, load_fast):
    """Run `a` writes a Layout proto, then a newer one; run `b` the dict form: the plugin
    merges the newest layout of each run, category by title."""
    logdir = str(tmp_path)
    writer = sl.create_file_writer(f"{logdir}/a")
    with writer.as_default(step=0):
        assert custom_scalars({"old": {"gone": ["Multiline", ["x"]]}})
        assert custom_scalars(proto_layout(), step=1)
        for step in range(2):
            for tag in ("loss/train", "loss/eval", "loss/mean", "loss/low", "loss/high"):
                assert sl.scalar(tag, 1.0 / (step + 1), step=step)
    writer.close()
    writer = sl.create_file_writer(f"{logdir}/b")
    with writer.as_default(step=0):
        assert custom_scalars(
            {"losses": {"b only": ["Multiline", ["loss/b"]]}, "extra": TORCH_LAYOUT["bands"]}
        )
    writer.close()
    with running_tensorboard(logdir, load_fast=load_fast) as base:
        layout = wait_for(
            lambda: get_json(base, "data/plugin/custom_scalars/layout"),
            lambda answer: {c["title"] for c in answer.get("category", [])} == {"losses", "bands", "extra"},
        )
    losses, bands, extra = layout["category"]
    assert losses == {
        "title": "losses",
        "closed": False,
        "chart": [
            {"title": "train and eval", "multiline": {"tag": ["loss/train", "loss/eval"]}},
            {"title": "all losses", "multiline": {"tag": ["loss/.*"]}},
            {"title": "b only", "multiline": {"tag": ["loss/b"]}},
        ],
    }
    margin = {"series": [{"value": "loss/mean", "lower": "loss/low", "upper": "loss/high"}]}
    assert bands == {"title": "bands", "closed": False, "chart": [{"title": "loss ± std", "margin": margin}]}
    assert extra == {"title": "extra", "closed": False, "chart": [{"title": "loss ± std", "margin": margin}]}
