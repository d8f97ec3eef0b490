"""Errors of the drop-ins are instances of the classes torch's and tensorboardX's writers
raise for the same input, so wrappers written for those writers, which catch exactly
that class, still catch them; and they keep summarylib's one shape (op, tag, argument)."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")
pytest.importorskip("tensorboardX", reason="tensorboardX is not installed (the frameworks extra)")

import tensorboardX
import torch
from torch.utils.tensorboard import SummaryWriter as TorchWriter

from summarylib.compat import tensorboardX as compat_tensorboardx
from summarylib.compat.torch import SummaryWriter
from tests.dropin_files import run_values

# (method, arguments, the argument an error names): inputs the replaced writers refuse.
CALLS = [
    ("add_scalar", ("x", [1, 2]), "scalar_value"),
    ("add_scalar", ("x", None), "scalar_value"),
    ("add_scalar", ("x", {"a": 1}), "scalar_value"),
    ("add_scalar", ("x", torch.tensor([1.0, 2.0])), "scalar_value"),
    ("add_scalars", ("main", {"a": [1, 2]}), "scalar_value"),
    ("add_histogram", ("h", None), "values"),
    ("add_image", ("i", None), "img_tensor"),
    ("add_audio", ("a", None), "snd_tensor"),
    ("add_hparams", ({"lr": 0.1}, {"m": [1, 2]}), "scalar_value"),
]
WRITERS = [(TorchWriter, SummaryWriter), (tensorboardX.SummaryWriter, compat_tensorboardx.SummaryWriter)]


def _raised(writer, method: str, arguments: tuple) -> BaseException | None:
    try:
        getattr(writer, method)(*arguments)
    except Exception as error:
        return error
    return None


@pytest.mark.parametrize(("theirs", "ours"), WRITERS, ids=["torch", "tensorboardX"])
@pytest.mark.parametrize(("method", "arguments", "argument"), CALLS, ids=lambda c: str(c)[:30])
def test_an_error_is_also_of_the_class_the_replaced_writer_raises(
    tmp_path, theirs, ours, method, arguments, argument
):
    expected = _raised(theirs(str(tmp_path / "theirs")), method, arguments)
    if expected is None:
        pytest.skip(f"{theirs.__module__} writes {method}{arguments!r:.40}; ours may too")
    got = _raised(ours(str(tmp_path / "ours")), method, arguments)
    assert isinstance(got, type(expected)), (type(expected), got)
    assert isinstance(got, (ValueError, TypeError))
    assert re.match(rf"summarylib\.{method}: tag '[^']+': argument '{argument}", str(got)), str(got)


@pytest.mark.parametrize(("theirs", "ours"), WRITERS, ids=["torch", "tensorboardX"])
def test_a_log_if_loggable_helper_goes_on_training_with_either_writer(tmp_path, theirs, ours):
    """A helper that logs what it can and skips what it cannot (catching the class the
    writer raises) leaves the same run behind with both writers."""

    def log_if_loggable(writer, metrics: dict, step: int) -> None:
        for tag, value in metrics.items():
            try:
                writer.add_scalar(tag, value, step)
            except (NotImplementedError, AssertionError):
                continue

    for name, writer_class in (("theirs", theirs), ("ours", ours)):
        with writer_class(str(tmp_path / name)) as writer:
            for step in range(3):
                log_if_loggable(writer, {"loss": 1.0 / (step + 1), "confusion": {"tp": 3}, "lr": 0.1}, step)
    assert run_values(str(tmp_path / "ours")) == run_values(str(tmp_path / "theirs"))
