"""HParams: TensorBoard's own `hparams_pb` / `hparams_config_pb` records for the same inputs,
what the ops write, and every input rejected at the call. A real TensorBoard's HParams
plugin: tests/test_hparams_dashboard.py."""

from __future__ import annotations

import enum
import hashlib
import json
import math
import random
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from tensorboard.compat.proto import summary_pb2 as tb_summary_pb2
from tensorboard.plugins.hparams import api_pb2 as tb_api_pb2
from tensorboard.plugins.hparams import metadata as tb_metadata
from tensorboard.plugins.hparams import plugin_data_pb2 as tb_plugin_data_pb2
from tensorboard.plugins.hparams import summary_v2 as tb_hp

import summarylib as sl
from summarylib import hparams as hp
from summarylib.ops.hparams import encoding
from summarylib.proto import summary_pb2
from tests.helpers import ArrayLike, written_values

START, END, CREATED = 1_700_000_000.25, 1_700_000_900.5, 1_699_999_000.0


def as_tensorboard(serialized: bytes) -> tb_summary_pb2.Summary:
    """Our serialized Summary read with TensorBoard's own classes."""
    return tb_summary_pb2.Summary.FromString(serialized)


def plugin_data(summary: tb_summary_pb2.Summary) -> tb_plugin_data_pb2.HParamsPluginData:
    (value,) = summary.value
    assert value.metadata.plugin_data.plugin_name == "hparams"
    return tb_plugin_data_pb2.HParamsPluginData.FromString(value.metadata.plugin_data.content)


def assert_same_record(ours: bytes, theirs: tb_summary_pb2.Summary) -> None:
    """Field by field: tag, tensor, plugin name, and the plugin data parsed (map order aside)."""
    mine = as_tensorboard(ours)
    (value,), (expected,) = mine.value, theirs.value
    assert value.tag == expected.tag
    assert value.tensor == expected.tensor == tb_metadata.NULL_TENSOR
    assert value.metadata.plugin_data.plugin_name == expected.metadata.plugin_data.plugin_name
    assert value.metadata.summary_description == expected.metadata.summary_description == ""
    assert plugin_data(mine) == plugin_data(theirs)


# ---- encodings, against TensorBoard's summary code ----

VALUES = [
    ("numbers", {"lr": 0.01, "layers": 3, "neg": -2.5e-8}),
    ("bool and str", {"use_bn": True, "off": False, "optimizer": "adam", "empty": "", "uni": "héllo ✓"}),
    ("numpy scalars", {"f32": np.float32(0.1), "i64": np.int64(7), "b": np.bool_(True), "s": np.str_("x")}),
    ("no values", {}),
]


@pytest.mark.parametrize("trial_id", [None, "trial-7"])
@pytest.mark.parametrize("values", [v[1] for v in VALUES], ids=[v[0] for v in VALUES])
def test_session_start_as_tensorboard(values, trial_id):
    ours = encoding.encode_session_start(values, trial_id=trial_id, start_time_secs=START)
    assert_same_record(ours, tb_hp.hparams_pb(values, trial_id=trial_id, start_time_secs=START))


def test_session_start_with_hparam_keys_as_tensorboard():
    ours = {hp.HParam("lr", hp.RealInterval(0.0, 1.0)): 0.5, "units": 16}
    theirs = {tb_hp.HParam("lr", tb_hp.RealInterval(0.0, 1.0)): 0.5, "units": 16}
    assert_same_record(
        encoding.encode_session_start(ours, start_time_secs=START),
        tb_hp.hparams_pb(theirs, start_time_secs=START),
    )


hparam_values = st.dictionaries(
    st.text(max_size=8),
    st.one_of(
        st.booleans(),
        st.integers(-(2**53), 2**53),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=8),
    ),
    max_size=6,
)


@given(values=hparam_values)
def test_every_accepted_dict_is_written_as_tensorboard_writes_it(values):
    ours = encoding.encode_session_start(values, start_time_secs=START)
    assert_same_record(ours, tb_hp.hparams_pb(values, start_time_secs=START))


def test_group_name_is_tensorboards_hash_or_the_trial_id():
    values = {"b": 2, "a": "x", "c": True}
    info = plugin_data(as_tensorboard(encoding.encode_session_start(values))).session_start_info
    compact = json.dumps(values, sort_keys=True, separators=(",", ":"))
    assert info.group_name == hashlib.sha256(compact.encode()).hexdigest()
    info = plugin_data(as_tensorboard(encoding.encode_session_start(values, "t1"))).session_start_info
    assert info.group_name == "t1"


def config(module):
    """The same experiment, made with `module`'s classes (ours or TensorBoard's)."""
    hparams = [
        module.HParam(
            "lr", module.RealInterval(1e-4, 0.1), display_name="learning rate", description="*step*"
        ),
        module.HParam("units", module.IntInterval(16, 256)),
        module.HParam("optimizer", module.Discrete(["sgd", "adam"])),
        module.HParam("dropout", module.Discrete([0.3, 0.1, 0.2])),
        module.HParam("depth", module.Discrete([3, 1])),
        module.HParam("use_bn", module.Discrete([True, False])),
        module.HParam("empty", module.Discrete([], dtype=str)),
        module.HParam("free"),
    ]
    metrics = [
        module.Metric("loss", group="eval", display_name="eval loss", dataset_type=module.Metric.VALIDATION),
        module.Metric("loss", description="*training*", dataset_type=module.Metric.TRAINING),
        module.Metric("accuracy"),
    ]
    return hparams, metrics


def test_experiment_as_tensorboard():
    ours = encoding.encode_experiment(*config(hp), time_created_secs=CREATED)
    assert_same_record(ours, tb_hp.hparams_config_pb(*config(tb_hp), time_created_secs=CREATED))


def test_experiment_time_defaults_to_now():
    """TensorBoard's docstring says so; its code leaves the field 0 (see the ops module)."""
    before = encoding.time.time()
    experiment = plugin_data(as_tensorboard(encoding.encode_experiment([], []))).experiment
    assert before <= experiment.time_created_secs <= encoding.time.time()


@pytest.mark.parametrize(
    ("status", "number"),
    [
        ("success", tb_api_pb2.STATUS_SUCCESS),
        ("failure", tb_api_pb2.STATUS_FAILURE),
        ("RUNNING", tb_api_pb2.STATUS_RUNNING),
        ("STATUS_UNKNOWN", tb_api_pb2.STATUS_UNKNOWN),
        (tb_api_pb2.STATUS_FAILURE, tb_api_pb2.STATUS_FAILURE),
    ],
)
def test_session_end_as_tensorboard(status, number):
    """As TensorBoard's v1 `session_end_pb` builds it (that function needs TensorFlow;
    these are its parts)."""
    info = tb_plugin_data_pb2.SessionEndInfo(status=number, end_time_secs=END)
    theirs = tb_summary_pb2.Summary()
    theirs.value.add(
        tag=tb_metadata.SESSION_END_INFO_TAG,
        metadata=tb_metadata.create_summary_metadata(
            tb_plugin_data_pb2.HParamsPluginData(session_end_info=info)
        ),
        tensor=tb_metadata.NULL_TENSOR,
    )
    assert_same_record(encoding.encode_session_end(status, end_time_secs=END), theirs)


def test_pb_functions_return_the_records():
    assert hp.hparams_pb(
        {"a": 1}, start_time_secs=START
    ).SerializeToString() == encoding.encode_session_start({"a": 1}, start_time_secs=START)
    summary = hp.hparams_config_pb([hp.HParam("a")], [], time_created_secs=CREATED)
    assert summary.value[0].tag == "_hparams_/experiment"
    assert hp.session_end_pb("failure", END).value[0].tag == "_hparams_/session_end_info"


# ---- the ops and what they write ----


def test_ops_write_the_three_records_at_step_0_into_the_writers_run(logdir):
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=42):
        assert hp.hparams_config([hp.HParam("lr")], [hp.Metric("loss")], time_created_secs=CREATED)
        assert hp.hparams({"lr": 0.1}, start_time_secs=START)
        assert sl.scalar("loss", 0.5)
        assert hp.session_end("success", end_time_secs=END)
    writer.close()
    written = [(step, value.tag) for step, value in written_values(writer.path)]
    assert written == [
        (0, "_hparams_/experiment"),
        (0, "_hparams_/session_start_info"),
        (42, "loss"),
        (0, "_hparams_/session_end_info"),
    ]
    start = summary_pb2.Summary(value=[written_values(writer.path)[1][1]]).SerializeToString()
    assert_same_record(start, tb_hp.hparams_pb({"lr": 0.1}, start_time_secs=START))


def test_values_are_snapshotted_at_the_call(logdir):
    values = {"lr": 0.1}
    array = np.array(3)
    values["steps"] = array
    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        assert hp.hparams(values, start_time_secs=START)
        values["lr"] = 0.5
        array[...] = 4
    writer.close()
    ((_, value),) = written_values(writer.path)
    info = tb_plugin_data_pb2.HParamsPluginData.FromString(
        value.metadata.plugin_data.content
    ).session_start_info
    assert info.hparams["lr"].number_value == 0.1 and info.hparams["steps"].number_value == 3


def test_subclasses_are_their_values():
    class Optimizer(str, enum.Enum):
        ADAM = "adam"

    class Depth(enum.IntEnum):
        DEEP = 12

    values = {"opt": Optimizer.ADAM, "depth": Depth.DEEP}
    assert_same_record(
        encoding.encode_session_start(values, start_time_secs=START),
        tb_hp.hparams_pb({"opt": "adam", "depth": 12}, start_time_secs=START),
    )


def test_zero_d_tensors_are_their_values():
    torch = pytest.importorskip("torch")
    values = {"t": torch.tensor(0.25), "i": torch.tensor(3), "a": ArrayLike(True), "z": np.array("s")}
    info = plugin_data(as_tensorboard(encoding.encode_session_start(values))).session_start_info
    assert info.hparams["t"].number_value == 0.25 and info.hparams["i"].number_value == 3
    assert info.hparams["a"].bool_value is True and info.hparams["z"].string_value == "s"


def test_ops_return_false_without_writer_or_recording(logdir):
    assert not hp.hparams({"a": 1})
    assert not hp.hparams_config([], [])
    assert not hp.session_end()
    writer = sl.create_file_writer(logdir)
    with writer.as_default(), sl.record_if(False):
        assert not hp.hparams({"a": object()})  # not even looked at
        assert not hp.session_end("nonsense")
    writer.close()
    assert writer.path is None or written_values(writer.path) == []


def test_second_hparams_in_a_run_warns(logdir):
    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert hp.hparams({"a": 1})
        with pytest.warns(UserWarning, match="only the first"):
            assert hp.hparams({"a": 2})
    writer.close()


# ---- rejected input ----

BAD_VALUES = [
    ("list", {"lr": [0.1, 0.2]}, TypeError, "hparams['lr']"),
    ("None", {"opt": None}, TypeError, "hparams['opt']"),
    ("bytes", {"name": b"x"}, TypeError, "hparams['name']"),
    ("array", {"w": np.array([1, 2])}, TypeError, "hparams['w']"),
    ("complex", {"c": 1j}, TypeError, "hparams['c']"),
    ("object", {"o": object()}, TypeError, "hparams['o']"),
    ("nan", {"x": math.nan}, ValueError, "hparams['x']"),
    ("inf", {"x": np.float32("inf")}, ValueError, "hparams['x']"),
    ("int key", {1: 2}, TypeError, "keys that are str or HParam"),
    ("duplicate", {hp.HParam("a"): 1, "a": 2}, ValueError, "multiple values for hparam 'a'"),
    ("not a dict", [("a", 1)], TypeError, "expected a dict"),
]


@pytest.mark.parametrize(
    ("values", "error", "names"), [b[1:] for b in BAD_VALUES], ids=[b[0] for b in BAD_VALUES]
)
def test_bad_values_name_the_key(logdir, values, error, names):
    with pytest.raises(error, match=r"summarylib\.hparams: ") as raised:
        encoding.encode_session_start(values)
    assert names in str(raised.value)
    writer = sl.create_file_writer(logdir)
    with writer.as_default(), pytest.raises(error):
        hp.hparams(values)
    writer.close()


def test_bad_arguments():
    with pytest.raises(TypeError, match="trial_id"):
        encoding.encode_session_start({}, trial_id=3)
    with pytest.raises(TypeError, match="start_time_secs"):
        encoding.encode_session_start({}, start_time_secs="now")
    with pytest.raises(ValueError, match="start_time_secs"):
        encoding.encode_session_start({}, start_time_secs=math.inf)
    with pytest.raises(ValueError, match=r"'status'.*'success'"):
        encoding.encode_session_end("done")
    with pytest.raises(ValueError, match="'status'"):
        encoding.encode_session_end(7)
    with pytest.raises(TypeError, match=r"'hparams\[0\]'.*HParam, got str"):
        encoding.encode_experiment(["lr"], [])
    with pytest.raises(TypeError, match=r"'metrics'.*got str"):
        encoding.encode_experiment([], "loss")
    with pytest.raises(TypeError, match=r"'metrics\[1\]'"):
        encoding.encode_experiment([], [hp.Metric("a"), tb_hp.Metric("b")])


# (id, construct with module m, error class): TensorBoard raises the same class.
DOMAIN_ERRORS = [
    ("empty discrete", lambda m: m.Discrete([]), ValueError),
    ("unknown dtype", lambda m: m.Discrete([1], dtype=list), ValueError),
    ("mixed discrete", lambda m: m.Discrete([1, "a"]), TypeError),
    ("mixed int float", lambda m: m.Discrete([1, 2.5]), TypeError),
    ("mixed bool str", lambda m: m.Discrete([True, "a"]), TypeError),
    ("dtype mismatch", lambda m: m.Discrete(["a"], dtype=float), TypeError),
    ("inverted int", lambda m: m.IntInterval(5, 1), ValueError),
    ("float int bound", lambda m: m.IntInterval(1.0, 2), TypeError),
    ("missing int bound", lambda m: m.IntInterval(1), TypeError),
    ("inverted real", lambda m: m.RealInterval(1.0, 0.5), ValueError),
    ("int real bound", lambda m: m.RealInterval(0, 1.0), TypeError),
    ("str real bound", lambda m: m.RealInterval(0.0, "1"), TypeError),
    ("not a domain", lambda m: m.HParam("x", [1, 2]), ValueError),
    ("bad dataset type", lambda m: m.Metric("x", dataset_type=7), ValueError),
]


@pytest.mark.parametrize(("make", "error"), [d[1:] for d in DOMAIN_ERRORS], ids=[d[0] for d in DOMAIN_ERRORS])
def test_domains_are_validated_as_tensorboard_validates_them(make, error):
    with pytest.raises(error):
        make(tb_hp)
    with pytest.raises(error, match=r"summarylib\.hparams"):
        make(hp)


@pytest.mark.parametrize(
    ("make", "error"),
    [
        (lambda: hp.Discrete([1, True]), TypeError),  # TensorBoard takes the bool as an int
        (lambda: hp.IntInterval(False, True), TypeError),
        (lambda: hp.RealInterval(math.nan, 1.0), ValueError),
        (lambda: hp.HParam(3), TypeError),
        (lambda: hp.HParam("x", display_name=1), TypeError),
        (lambda: hp.Metric("x", dataset_type=True), ValueError),
    ],
)
def test_domains_stricter_than_tensorboard(make, error):
    with pytest.raises(error):
        make()


def test_domain_api():
    discrete = hp.Discrete([3, 1, 2])
    assert discrete.values == [1, 2, 3] and discrete.dtype is int
    assert hp.Discrete([np.float32(0.5)]).values == [0.5]
    assert hp.Discrete([], dtype=bool).values == []
    assert hp.IntInterval(np.int64(1), 3).min_value == 1
    interval = hp.RealInterval(0.5, 1.5)
    assert (interval.min_value, interval.max_value, interval.dtype) == (0.5, 1.5, float)
    rng = random.Random(0)
    assert discrete.sample_uniform(rng) in (1, 2, 3)
    assert 1 <= hp.IntInterval(1, 3).sample_uniform(rng) <= 3
    assert 0.5 <= interval.sample_uniform(rng) <= 1.5
    param = hp.HParam("lr", interval, "learning rate", "desc")
    assert (param.name, param.domain, param.display_name, param.description) == (
        "lr",
        interval,
        "learning rate",
        "desc",
    )
    assert "lr" in repr(param) and "[0.5, 1.5]" in str(param)
    metric = hp.Metric("loss", "eval", dataset_type=hp.Metric.VALIDATION)
    assert (metric.tag, metric.group, metric.dataset_type) == ("loss", "eval", hp.Metric.VALIDATION)
