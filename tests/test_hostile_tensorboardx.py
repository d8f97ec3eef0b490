"""The methods `summarylib.compat.tensorboardX.SummaryWriter` defines itself (found in its
class dict, so a new override is fuzzed too), driven with hostile values (issue 19's
contract, issue 20's class): EITHER a ValueError/TypeError in the one shape, OR the call
returns; either way the valid scalars before and after are written, the writer counts no
error, and nothing is written outside the log dir. torch's methods it inherits are
fuzzed by tests/test_hostile_torch.py."""

from __future__ import annotations

import inspect
import os
import shutil
import tempfile
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from summarylib.compat.tensorboardx_writer import SummaryWriter
from tests.hostile_contract import check_error
from tests.hostile_values import examples, hostile, steps, strings, tags
from tests.tensorboard_data import read_scalars

NOT_FUZZED = {"export_scalars_to_json", "add_onnx_graph", "add_openvino_graph", "use_metadata", "logdir"}
METHODS = sorted(
    name
    for name, value in vars(SummaryWriter).items()
    if not name.startswith("_") and callable(value) and name not in NOT_FUZZED
)
DELEGATES = {
    "add_hparams": ("hparams",),
    "add_images": ("image",),
    "add_image_with_boxes": ("image",),
    "add_audio": ("audio",),
}

numbers = st.one_of(st.floats(), st.integers(-(2**65), 2**65), st.sampled_from([None, "4", np.array([1, 2])]))
formats = st.sampled_from(["CHW", "HWC", "NCHW", "NTCHW", "NTHWC", "TNCHW", "NTCH", "", None, 3, b"CHW"])
image = hostile(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)))
PARAMETERS: dict[str, st.SearchStrategy[Any]] = {
    "tag": tags,
    "main_tag": tags,
    "global_step": steps,
    "walltime": st.one_of(st.none(), st.floats(), st.sampled_from(["now", np.float32(1.7e9)])),
    "scalar_value": hostile(()),
    "display_name": st.one_of(strings, st.sampled_from([None, 3, b"x"])),
    "summary_description": st.one_of(strings, st.sampled_from([None, 3, b"x"])),
    "tag_scalar_dict": st.one_of(
        st.dictionaries(st.one_of(tags, st.sampled_from([".."])), hostile(()), max_size=3),
        st.sampled_from([None, "loss"]),
    ),
    "hparam_dict": st.one_of(
        st.dictionaries(tags, st.one_of(st.floats(), strings, st.booleans()), max_size=3),
        st.sampled_from([None, "lr"]),
    ),
    "metric_dict": st.one_of(st.dictionaries(tags, hostile(()), max_size=2), st.sampled_from([None, [1]])),
    "name": st.one_of(st.none(), strings, st.sampled_from(["../x", "/abs", "t\0", "x" * 300])),
    "img_tensor": image,
    "dataformats": formats,
    "vid_tensor": hostile(
        st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(1, 3), st.just(2), st.integers(1, 3))
    ),
    "fps": numbers,
    "box_tensor": hostile(st.tuples(st.integers(0, 2), st.just(4))),
    "snd_tensor": hostile(
        st.tuples(st.integers(0, 16), st.integers(1, 3)), [np.float32, np.float64, np.int16]
    ),
    "sample_rate": numbers,
    "labels": st.one_of(st.none(), st.lists(strings, max_size=2)),
    "kwargs": st.one_of(st.just({}), st.fixed_dictionaries({"rescale": numbers}), st.just({"bogus": 1})),
}


# Where one method takes more than the others under the same name.
METHOD_PARAMETERS = {"add_images": {"img_tensor": st.one_of(image, st.lists(image, max_size=3))}}


def arguments(method: str) -> st.SearchStrategy[dict[str, Any]]:
    """Keyword arguments for `method`: each at its default or a hostile value of its kind."""
    fixed = {}
    for parameter in list(inspect.signature(getattr(SummaryWriter, method)).parameters.values())[1:]:
        strategy = METHOD_PARAMETERS.get(method, {}).get(parameter.name, PARAMETERS[parameter.name])
        if parameter.default is not inspect.Parameter.empty:
            strategy = st.one_of(st.just(parameter.default), strategy)
        fixed[parameter.name] = strategy
    return st.fixed_dictionaries(fixed)


def check_contract(method: str, kwargs: dict[str, Any]) -> None:
    root = tempfile.mkdtemp(prefix="hostile_tbx")
    logdir = os.path.join(root, "logs")
    writer = SummaryWriter(logdir)
    extra = kwargs.pop("kwargs", {})
    try:
        inner = writer._writer
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            writer.add_scalar("ok", 1.0, 0)
            try:
                getattr(writer, method)(**kwargs, **extra)
            except (TypeError, ValueError) as error:
                if "unexpected keyword" not in str(error):
                    check_error(
                        error, (method, *DELEGATES.get(method, ())), kwargs.get("tag", kwargs.get("main_tag"))
                    )
            writer.add_scalar("ok", 2.0, 1)
            writer.flush()
            stats = inner.stats()
            writer.close()
        assert (stats.errors, stats.events_dropped, stats.events_lost) == (0, 0, 0), stats.last_error
        assert os.listdir(root) == ["logs"]
        assert read_scalars(logdir)["."]["ok"] == [(0, 1.0), (1, 2.0)]
    finally:
        writer.close()
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("method", METHODS)
def test_method_contract(method):
    @settings(max_examples=examples(40))
    @given(kwargs=arguments(method))
    def run(kwargs):
        check_contract(method, kwargs)

    run()


def test_every_override_is_fuzzed():
    assert {"add_hparams", "add_scalar", "add_images", "add_video", "add_image_with_boxes"} <= set(METHODS)
