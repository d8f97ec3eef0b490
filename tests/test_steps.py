"""Steps as frameworks hold them: TF and Keras variables (`optimizer.iterations`), 0-d
tensors of any framework, numpy integers, Python ints, accepted everywhere a step is
and read at the call."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("keras", reason="keras is not installed (the frameworks extra)")
pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")

import keras
import torch

import summarylib as sl
from summarylib.compat import contrib, v1
from tests.helpers import written_values


class TFVariableLike:
    """Behaves as a TF ResourceVariable does to a library that does not import TF: no
    `__index__` and no `.item()`, but `numpy()`, `__array__` and `dtype`."""

    def __init__(self, value: int, dtype=np.int64) -> None:
        self.value = np.array(value, dtype=dtype)
        self.dtype = self.value.dtype

    def numpy(self):
        return self.value.copy()

    def __array__(self, dtype=None, copy=None):
        return self.value if dtype is None else self.value.astype(dtype)

    def assign(self, value: int) -> None:
        self.value[()] = value


class ArrayOnly:
    """A 0-d tensor seen only through `__array__`."""

    def __init__(self, value) -> None:
        self.value = np.asarray(value)

    def __array__(self, dtype=None, copy=None):
        return self.value


def keras_iterations(count: int):
    """A Keras 3 optimizer's `iterations` variable after `count` steps of real training."""
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(0.01), loss="mse")
    x = np.zeros((count, 2), np.float32)
    model.fit(x, np.zeros((count, 1), np.float32), batch_size=1, epochs=1, verbose=0)
    return model.optimizer.iterations


def framework_steps():
    """(label, step object, int value) for every kind of step users pass."""
    return [
        ("tf-variable", TFVariableLike(7), 7),
        ("tf-variable-int32", TFVariableLike(8, np.int32), 8),
        ("array-only", ArrayOnly(9), 9),
        ("keras-iterations", keras_iterations(3), 3),
        ("keras-variable", keras.Variable(11, dtype="int64", trainable=False), 11),
        ("torch-0d", torch.tensor(12), 12),
        ("torch-0d-int32", torch.tensor(13, dtype=torch.int32), 13),
        ("numpy-int", np.int64(14), 14),
        ("int", 15, 15),
    ]


STEPS = framework_steps()


@pytest.mark.parametrize(("label", "step", "expected"), STEPS, ids=[s[0] for s in STEPS])
def test_every_step_argument_accepts_framework_steps(logdir, label, step, expected):
    writer = sl.create_file_writer(logdir)
    with writer.as_default(step=step):
        assert sl.get_step() == expected
        sl.scalar("default", 1.0)
        sl.scalar("scalar", 1.0, step=step)
        sl.histogram("histogram", [1.0, 2.0], step=step)
        sl.image("image", np.zeros((2, 2, 3), np.uint8), step=step)
        sl.audio("audio", np.zeros((4, 1), np.float32), 8000, step=step)
        sl.text("text", "hi", step=step)
        sl.pr_curve("pr", [True, False], [0.9, 0.1], step=step)
        sl.write("write", 1.0, step=step)
        sl.write_raw_pb(v1.scalar("raw", 1.0), step=step)
        sl.set_step(step)
        sl.scalar("set_step", 1.0)
    writer.close()
    steps = {value.tag: s for s, value in written_values(writer.path)}
    assert set(steps.values()) == {expected}, steps
    assert len(steps) == 10


@pytest.mark.parametrize(("label", "step", "expected"), STEPS, ids=[s[0] for s in STEPS])
def test_compat_layers_accept_framework_steps(logdir, label, step, expected):
    v1.clear_collections()
    with v1.FileWriter(logdir) as file_writer:
        file_writer.add_summary(v1.scalar("v1", 1.0), global_step=step)
        path = file_writer._writer.path
    global_step = contrib.get_or_create_global_step()
    global_step.assign(step)
    assert int(global_step) == expected
    writer = contrib.create_file_writer(os.path.join(logdir, "contrib"))
    with writer.as_default(), contrib.always_record_summaries():
        contrib.scalar("contrib", 1.0)
        contrib.scalar("contrib_step", 2.0, step=step)
    writer.close()
    assert [s for s, _ in written_values(path)] == [expected]
    assert [s for s, _ in written_values(writer.path)] == [expected, expected]


def test_a_variable_is_read_at_the_call(logdir):
    variable = TFVariableLike(1)
    writer = sl.create_file_writer(logdir)
    with writer.as_default():
        sl.scalar("x", 1.0, step=variable)
        variable.assign(2)
        sl.set_step(variable)
        variable.assign(3)
        sl.scalar("x", 2.0)
    writer.close()
    assert [s for s, _ in written_values(writer.path)] == [1, 2]


@pytest.mark.parametrize(
    ("step", "error", "pattern"),
    [
        (TFVariableLike(1, np.bool_), TypeError, "bool"),
        (TFVariableLike(2.5, np.float32), ValueError, "non-integral"),
        (torch.tensor(True), TypeError, "bool"),
        (torch.tensor(1.5), ValueError, "non-integral"),
        (torch.tensor([1, 2]), TypeError, "integer"),
        (ArrayOnly([1, 2]), TypeError, "integer"),
        (ArrayOnly(np.uint64(2**63)), ValueError, "int64"),
    ],
)
def test_bad_framework_steps_keep_their_messages(logdir, step, error, pattern):
    writer = sl.create_file_writer(logdir)
    with pytest.raises(error, match=pattern):
        sl.set_step(step)
    with writer.as_default(), pytest.raises(error, match=f"summarylib.scalar: tag 'x'.*{pattern}"):
        sl.scalar("x", 1.0, step=step)
    writer.close()
