"""Every public method of `summarylib.compat.torch.SummaryWriter` (found with
`inspect.getmembers`, so a new method is fuzzed too) and the Keras callback's constructor,
driven with hostile values (tests/hostile_values.py; issue 19, item 15).

The contract, for each call: EITHER a ValueError/TypeError in the one shape,
`summarylib.<method or the op it calls>: tag '<tag>': argument '<arg>': ...`, OR the call
returns and, after the writer's close, everything under the log dir is readable by
TensorBoard's loaders and summarylib's reader. Either way the valid `add_scalar`s just
before and after are written, the writer counts no error, and nothing is written outside
the log dir. SUMMARYLIB_HYPOTHESIS=long runs 20 times as many examples.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import shutil
import tempfile
import warnings
from typing import Any

import numpy as np
import pytest

pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")

import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from tensorboard.backend.event_processing import event_file_loader

from summarylib.compat.torch import SummaryWriter
from summarylib.proto import event_pb2, summary_pb2
from summarylib.reader import iter_events
from tests.hostile_contract import check_error as check_error_shape
from tests.hostile_values import SURROGATE, examples, hostile, steps, strings, tags
from tests.tensorboard_data import read_scalars

# Methods that are documented to raise NotImplementedError, and the writer's lifecycle.
NOT_FUZZED = {"export_scalars_to_json", "add_onnx_graph", "flush", "close", "get_logdir"}
METHODS = sorted(
    name
    for name, _ in inspect.getmembers(SummaryWriter, inspect.isfunction)
    if not name.startswith("_") and name not in NOT_FUZZED
)

# The ops a method hands its arguments to, whose names its errors may carry instead.
DELEGATES = {
    "add_audio": ("audio",),
    "add_custom_scalars": ("custom_scalars",),
    "add_custom_scalars_marginchart": ("add_custom_scalars", "custom_scalars"),
    "add_custom_scalars_multilinechart": ("add_custom_scalars", "custom_scalars"),
    "add_embedding": ("embedding",),
    "add_graph": ("integrations.torch.trace_graph", "graph"),
    "add_hparams": ("hparams", "hparams_config", "hparams.HParam", "hparams.Metric", "hparams.Discrete"),
    "add_image": ("image",),
    "add_image_with_boxes": ("image",),
    "add_images": ("image",),
    "add_figure": ("image",),
    "add_mesh": ("mesh",),
    "add_pr_curve": ("pr_curve",),
    "add_pr_curve_raw": ("pr_curve",),
    "add_tensor": ("tensor", "write"),
    "add_text": ("text",),
}

FEW = examples(8)

walltimes = st.one_of(
    st.none(),
    st.floats(),
    st.integers(-(2**70), 2**70),
    st.sampled_from(
        [np.float32(1.7e9), np.int64(5), np.longdouble(3.5), "yesterday", True, np.array([1.0, 2.0])]
    ),
    st.just(None).map(lambda _: torch.tensor(1.5)),
)
flags = st.one_of(st.booleans(), st.sampled_from([None, "yes", 1, np.array([True, False]), np.bool_(True)]))
numbers = st.one_of(
    st.floats(), st.integers(-(2**65), 2**65), st.sampled_from([None, "4", np.float32(2.5), np.array([1, 2])])
)
string_lists = st.one_of(
    st.lists(strings, max_size=4), st.lists(tags, max_size=4), strings, st.sampled_from([5, {"a": 1}])
)
hparam_values = st.one_of(
    st.floats(),
    st.integers(-(2**65), 2**65),
    st.booleans(),
    strings,
    st.sampled_from([np.float32(0.5), np.array([1.0, 2.0]), torch.tensor(3.0), [1, 2], object()]),
)
hparam_dicts = st.one_of(
    st.dictionaries(st.one_of(tags, st.integers(0, 3)), hparam_values, max_size=4),
    st.sampled_from([None, [("a", 1)], "lr=1"]),
)


class Doubler(torch.nn.Module):
    """A model that runs on any tensor or on nothing: add_graph's hostile part is its
    arguments, not the model's own failures (which propagate unchanged, as in torch)."""

    def forward(self, x: Any = None) -> Any:
        return torch.ones(1) if x is None else x * 2


def _figure(kind: str) -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure = plt.figure(figsize=(1, 1), dpi=20)
    return [figure, figure] if kind == "list" else figure


def _layouts() -> st.SearchStrategy[Any]:
    charts = st.one_of(
        st.tuples(st.sampled_from(["Multiline", "Margin", "Other", 3]), string_lists).map(list),
        st.sampled_from([None, 5, "Multiline"]),
    )
    return st.one_of(
        st.dictionaries(strings, st.dictionaries(strings, charts, max_size=2), max_size=2),
        st.sampled_from([None, 5, ["a"], {"c": 5}]),
    )


small_image = st.tuples(st.integers(0, 3), st.integers(0, 4), st.integers(0, 4))
PARAMETERS: dict[str, st.SearchStrategy[Any]] = {
    "tag": tags,
    "main_tag": tags,
    "global_step": steps,
    "step": steps,
    "walltime": walltimes,
    "scalar_value": hostile(()),
    "new_style": flags,
    "double_precision": flags,
    "tag_scalar_dict": st.one_of(
        st.dictionaries(
            st.one_of(tags, st.sampled_from(["/../x", "..", "a/../../b"])), hostile(()), max_size=3
        ),
        st.sampled_from([None, [1.0], "loss"]),
    ),
    "tensor": hostile(st.tuples(st.integers(0, 3))),
    "values": hostile(st.tuples(st.integers(0, 8))),
    "bins": st.one_of(
        st.sampled_from(["tensorflow", "fd", "auto", "scott", "sqrt", "nope", 2**31, 10**8, 1.5, None, True]),
        st.integers(-2, 40),
        hostile(st.tuples(st.integers(0, 5))),
    ),
    "max_bins": st.one_of(st.none(), st.integers(-1, 10), st.sampled_from([1.5, np.int64(3), "3"])),
    "min": numbers,
    "max": numbers,
    "num": numbers,
    "sum": numbers,
    "sum_squares": numbers,
    "bucket_limits": hostile(st.tuples(st.integers(0, 5))),
    "bucket_counts": hostile(st.tuples(st.integers(0, 5))),
    "img_tensor": hostile(
        st.one_of(
            small_image, st.tuples(st.integers(0, 2), st.integers(0, 3), st.integers(0, 4), st.integers(0, 4))
        )
    ),
    "dataformats": st.one_of(
        st.sampled_from(["CHW", "HWC", "NCHW", "NHWC", "HW", "WH", "chw", "XYZ", "", "CCHW"]),
        st.sampled_from([None, 3, np.array(["CHW"]), b"CHW"]),
    ),
    "box_tensor": hostile(st.tuples(st.integers(0, 3), st.just(4))),
    "rescale": numbers,
    "labels": st.one_of(st.none(), string_lists, hostile(st.tuples(st.integers(0, 8)))),
    "figure": st.one_of(
        st.sampled_from([5, None, "figure", [], [5], np.zeros((2, 2))]),
        st.sampled_from(["one", "list"]).map(_figure),
    ),
    "close": flags,
    "vid_tensor": hostile(
        st.tuples(st.integers(0, 2), st.integers(0, 3), st.integers(1, 3), st.just(2), st.just(2))
    ),
    "fps": numbers,
    "snd_tensor": hostile(st.tuples(st.integers(0, 16)), [np.float32, np.float64, np.int16]),
    "sample_rate": numbers,
    "text_string": strings,
    "mat": hostile(st.tuples(st.integers(0, 4), st.integers(0, 3))),
    "metadata": st.one_of(st.none(), string_lists, st.lists(string_lists, max_size=3)),
    "metadata_header": st.one_of(st.none(), string_lists),
    "label_img": st.one_of(
        st.none(), hostile(st.tuples(st.integers(0, 4), st.integers(1, 3), st.just(2), st.just(2)))
    ),
    "predictions": hostile(st.tuples(st.integers(0, 8))),
    "num_thresholds": st.one_of(
        st.integers(-1, 300), st.sampled_from([2**31, 1.5, None, np.array([3, 4]), "5"])
    ),
    "weights": st.one_of(st.none(), hostile(st.tuples(st.integers(0, 8)))),
    "true_positive_counts": hostile(st.tuples(st.integers(0, 5))),
    "false_positive_counts": hostile(st.tuples(st.integers(0, 5))),
    "true_negative_counts": hostile(st.tuples(st.integers(0, 5))),
    "false_negative_counts": hostile(st.tuples(st.integers(0, 5))),
    "precision": hostile(st.tuples(st.integers(0, 5))),
    "recall": hostile(st.tuples(st.integers(0, 5))),
    "layout": _layouts(),
    "tags": string_lists,
    "category": strings,
    "title": strings,
    "vertices": hostile(st.tuples(st.integers(0, 2), st.integers(0, 4), st.just(3))),
    "colors": st.one_of(st.none(), hostile(st.tuples(st.integers(0, 2), st.integers(0, 4), st.just(3)))),
    "faces": st.one_of(st.none(), hostile(st.tuples(st.integers(0, 2), st.integers(0, 4), st.just(3)))),
    "config_dict": st.one_of(st.none(), st.sampled_from([5, "x", {"camera": {"fov": 60}}, {SURROGATE: 1}])),
    "hparam_dict": hparam_dicts,
    "metric_dict": st.one_of(
        st.dictionaries(st.one_of(tags, st.integers(0, 3)), hostile(()), max_size=3),
        st.sampled_from([None, [1]]),
    ),
    "hparam_domain_discrete": st.one_of(
        st.none(),
        st.dictionaries(tags, st.one_of(st.lists(hparam_values, max_size=3), hparam_values), max_size=2),
        st.sampled_from([5, "lr", [1, 2]]),
    ),
    "run_name": st.one_of(
        st.none(), strings, st.sampled_from(["trial/1", "../x", "/abs", "a/../../b", "t\0", "x" * 300])
    ),
    "event": st.one_of(
        st.sampled_from([b"", b"\xff\x00garbage", None, 5, "event"]),
        st.builds(
            lambda tag: event_pb2.Event(summary=summary_pb2.Summary(value=[{"tag": tag}])),
            st.text(max_size=5),
        ),
    ),
    "summary": st.one_of(
        st.sampled_from([b"", b"\xff\x00garbage", None, 5, "summary"]),
        st.builds(
            lambda tag: summary_pb2.Summary(value=[{"tag": tag, "simple_value": 1.0}]), st.text(max_size=5)
        ),
    ),
    "model": st.one_of(
        st.sampled_from([None, 5, "model", np.zeros(2)]), st.just(None).map(lambda _: Doubler())
    ),
    "input_to_model": st.one_of(
        st.none(),
        st.sampled_from([(), []]),
        st.sampled_from(["float", "bfloat16", "int8", "grad", "empty", "strided"]).map(
            lambda kind: {
                "float": lambda: torch.ones(1, 2),
                "bfloat16": lambda: torch.ones(3, dtype=torch.bfloat16),
                "int8": lambda: torch.ones(2, dtype=torch.int8),
                "grad": lambda: torch.ones(2, requires_grad=True),
                "empty": lambda: torch.ones(0, 5),
                "strided": lambda: torch.arange(6.0)[::2],
            }[kind]()
        ),
    ),
    "verbose": st.just(False),  # printing the graph is not what is under test
    "use_strict_trace": flags,
}
GENERIC = st.one_of(st.none(), flags, numbers, strings, hostile(st.tuples(st.integers(0, 3))))


def arguments(method: str) -> st.SearchStrategy[dict[str, Any]]:
    """Keyword arguments for `method`: each parameter left at its default or given a
    hostile value of its kind (GENERIC for a parameter not in PARAMETERS)."""
    parameters = list(inspect.signature(getattr(SummaryWriter, method)).parameters.values())[1:]
    fixed = {}
    for parameter in parameters:
        strategy = PARAMETERS.get(parameter.name, GENERIC)
        if parameter.default is inspect.Parameter.empty:
            fixed[parameter.name] = strategy
        else:
            fixed[parameter.name] = st.one_of(st.just(parameter.default), strategy)
    return st.fixed_dictionaries(fixed)


def tree(root: str) -> set[str]:
    return {
        os.path.relpath(os.path.join(folder, name), root)
        for folder, dirs, files in os.walk(root)
        for name in dirs + files
    }


def check_contract(method: str, kwargs: dict[str, Any]) -> None:
    """Call `writer.<method>(**kwargs)` between two valid `add_scalar`s in a fresh log dir
    and assert the contract of the module docstring."""
    root = tempfile.mkdtemp(prefix="hostile_torch")
    logdir = os.path.join(root, "logs")
    writer = SummaryWriter(logdir)
    try:
        inner = writer._writer
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # NaN left out, audio clipped, names cleaned
            writer.add_scalar("ok", 1.0, 0)
            try:
                getattr(writer, method)(**kwargs)
            except (TypeError, ValueError) as error:
                tag = kwargs.get("tag", kwargs.get("main_tag"))
                check_error_shape(error, (method, *DELEGATES.get(method, ())), tag)
            writer.add_scalar("ok", 2.0, 1)
            writer.flush()  # raises WriterError for a failed background write
            stats = inner.stats()
            writer.close()
        assert (stats.errors, stats.events_dropped, stats.events_lost) == (0, 0, 0), stats.last_error
        assert os.listdir(root) == ["logs"], tree(root)  # nothing outside the log dir
        # Every event file of every run (add_scalars series, hparams runs): TensorBoard's
        # raw loader and summarylib's reader read the same events.
        for path in sorted(tree(logdir)):
            full = os.path.join(logdir, path)
            if os.path.isfile(full) and ".tfevents." in path:
                loaded = list(event_file_loader.LegacyEventFileLoader(full).Load())
                ours = list(iter_events(full))
                assert [e.SerializeToString() for e in ours] == [e.SerializeToString() for e in loaded]
        # TensorBoard's data provider loads the whole log dir, neighbours included.
        assert read_scalars(logdir)["."]["ok"] == [(0, 1.0), (1, 2.0)]
    finally:
        with contextlib.suppress(Exception):  # a failed example: its writer is closed anyway
            writer.close()
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("method", METHODS)
def test_method_contract(method):
    @settings(max_examples=FEW)
    @given(kwargs=arguments(method))
    def run(kwargs):
        check_contract(method, kwargs)

    run()


def test_every_public_method_is_fuzzed_with_known_parameters():
    """A new method or parameter gets a strategy of its kind, not only the generic one."""
    unknown = {
        (method, name)
        for method in METHODS
        for name in list(inspect.signature(getattr(SummaryWriter, method)).parameters)[1:]
        if name not in PARAMETERS
    }
    assert not unknown
