"""The Keras callback's constructor driven with hostile arguments (issue 19, item 15): EITHER
a ValueError/TypeError in the one shape, `summarylib.integrations.keras.TensorBoard:
argument '<arg>': ...`, at the call, OR a callback that a real `model.fit` (Keras 3 on the
torch backend) runs with, returning its History, writing only under the log dir, with
TensorBoard's loader reading the runs back."""

from __future__ import annotations

import contextlib
import inspect
import os
import shutil
import sys
import tempfile
import warnings

os.environ.setdefault("KERAS_BACKEND", "torch")

import numpy as np
import pytest

pytest.importorskip("keras", reason="keras is not installed (the frameworks extra)")

from hypothesis import given, settings
from hypothesis import strategies as st

from summarylib.integrations.keras.callback import TensorBoard
from tests.hostile_contract import check_error as check_error_shape
from tests.hostile_values import SURROGATE, examples, strings
from tests.tensorboard_data import read_scalars

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from examples.keras_fit import make_data, make_model  # noqa: E402

counts = st.one_of(
    st.integers(-2, 3), st.sampled_from([1.5, "1", None, True, np.int64(1), np.array([1, 2]), 2**70])
)
flags = st.one_of(st.booleans(), st.sampled_from([None, "yes", np.array([True, False]), np.bool_(True), 2]))
ARGUMENTS = {
    "log_dir": st.one_of(
        st.sampled_from(["logs", "a/b", "", "x\0y", 5, None, b"logs", SURROGATE]),
        # Relative names: an absolute one or one with ".." leaves the test's directory.
        st.text(min_size=1, max_size=8).filter(lambda name: not os.path.isabs(name) and ".." not in name),
    ),
    "histogram_freq": counts,
    "write_graph": flags,
    "write_images": flags,
    "write_steps_per_second": flags,
    "update_freq": st.one_of(counts, st.sampled_from(["batch", "epoch", "often", np.array(["batch"])])),
    "profile_batch": st.one_of(counts, st.sampled_from(["0,0", "1,2", "a,b", (0, 0), (1, "x"), [0]])),
    "embeddings_freq": counts,
    "embeddings_metadata": st.one_of(
        strings, st.sampled_from([{"embedding": 5}, {5: "a.tsv"}, ["a.tsv"], {"nope": "a.tsv"}])
    ),
}


def test_every_constructor_argument_is_fuzzed():
    assert set(list(inspect.signature(TensorBoard.__init__).parameters)[1:]) == set(ARGUMENTS)


@settings(max_examples=examples(10))
@given(kwargs=st.fixed_dictionaries({}, optional=ARGUMENTS))
def test_constructor_contract(kwargs):
    root = tempfile.mkdtemp(prefix="hostile_keras")
    try:
        with contextlib.chdir(root), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # profile_batch ignored, Keras's own deprecations
            try:
                callback = TensorBoard(**kwargs)
            except (TypeError, ValueError) as error:
                check_error_shape(error, ("integrations.keras.TensorBoard",), None)
                return
            model = make_model()
            try:
                history = model.fit(
                    *make_data(16, seed=1), batch_size=8, epochs=1, callbacks=[callback], verbose=0
                )
            except (TypeError, ValueError) as error:  # a metadata file or layer name that is not there
                assert "embeddings_metadata" in str(error), error
                check_error_shape(error, ("integrations.keras.TensorBoard",), None)
                return
            assert len(history.history["loss"]) == 1
            logdir = os.path.join(root, callback.log_dir)
            assert os.path.realpath(logdir).startswith(os.path.realpath(root))  # inside
            assert "epoch_loss" in read_scalars(logdir)["train"]
    finally:
        shutil.rmtree(root, ignore_errors=True)
