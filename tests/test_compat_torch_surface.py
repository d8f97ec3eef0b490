"""The whole public surface of torch's `SummaryWriter` and `FileWriter` is on ours: every
public method (found with `inspect.getmembers`, so one torch adds is checked too) with
every parameter of torch's, in the same order, of the same kind, with the same default,
and every public attribute of a torch writer. Ours may add parameters after torch's, each
with a default, so a call written for torch means the same. The intended exceptions are
listed below, each with its reason."""

from __future__ import annotations

import inspect

import pytest

pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")

from torch.utils.tensorboard import SummaryWriter as TorchWriter
from torch.utils.tensorboard.writer import FileWriter as TorchFileWriter

from summarylib.compat.torch import SummaryWriter
from summarylib.compat.torch.file_writer import FileWriter

# (class, method) -> why ours differs. Keep it short: every entry is a broken drop-in.
INTENDED_SIGNATURE_DIFFERENCES: dict[tuple[str, str], str] = {}

# Attributes of torch's instances that ours does not have, and why.
INTENDED_MISSING_ATTRIBUTES = {
    # torch's FileWriter wraps TensorBoard's EventFileWriter; ours writes through the
    # SummaryWriter's summarylib writer, which has another API (flush/close are on the
    # FileWriter itself, as in torch).
    ("FileWriter", "event_writer"),
}

PAIRS = [(TorchWriter, SummaryWriter), (TorchFileWriter, FileWriter)]


def public_methods(cls: type) -> list[str]:
    """`cls`'s public methods, `__init__` included (the constructor is API too)."""
    names = [name for name, _ in inspect.getmembers(cls, inspect.isfunction) if not name.startswith("_")]
    return ["__init__", *names]


def signature_problems(theirs: type, ours: type, name: str) -> list[str]:
    """What a call written for `theirs.name` would find different on `ours.name`."""
    if not callable(getattr(ours, name, None)):
        return [f"{ours.__name__}.{name} is missing"]
    expected = list(inspect.signature(getattr(theirs, name)).parameters.values())
    actual = list(inspect.signature(getattr(ours, name)).parameters.values())
    problems = []
    for index, parameter in enumerate(expected):
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            continue  # **kwargs: checked by name below, not by position
        found = actual[index] if index < len(actual) else None
        if found is None or found.name != parameter.name:
            got = found.name if found is not None else "nothing"
            problems.append(f"{name}: parameter {index} is {got}, torch's is {parameter.name}")
        elif found.kind != parameter.kind:
            problems.append(f"{name}({parameter.name}): kind {found.kind}, torch's {parameter.kind}")
        elif found.default != parameter.default:
            problems.append(
                f"{name}({parameter.name}): default {found.default!r}, torch's {parameter.default!r}"
            )
    for parameter in actual[len(expected) :]:
        if parameter.default is inspect.Parameter.empty and parameter.kind in (
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            inspect.Parameter.KEYWORD_ONLY,
        ):
            problems.append(f"{name}({parameter.name}): ours only, and required")
    return problems


@pytest.mark.parametrize(
    ("theirs", "ours", "name"),
    [(theirs, ours, name) for theirs, ours in PAIRS for name in public_methods(theirs)],
    ids=lambda value: value if isinstance(value, str) else value.__name__,
)
def test_every_public_method_of_torchs_writer_is_on_ours_with_its_parameters(theirs, ours, name):
    if (theirs.__name__, name) in INTENDED_SIGNATURE_DIFFERENCES:
        pytest.skip(INTENDED_SIGNATURE_DIFFERENCES[(theirs.__name__, name)])
    assert signature_problems(theirs, ours, name) == []


def test_every_public_attribute_of_a_torch_writer_is_on_ours(tmp_path):
    with TorchWriter(str(tmp_path / "torch")) as theirs, SummaryWriter(str(tmp_path / "ours")) as ours:
        for torch_instance, our_instance in ((theirs, ours), (theirs.file_writer, ours.file_writer)):
            cls = type(torch_instance).__name__
            properties = [
                name for name, _ in inspect.getmembers(type(torch_instance), inspect.isdatadescriptor)
            ]
            names = {name for name in [*vars(torch_instance), *properties] if not name.startswith("_")}
            missing = {
                name
                for name in names
                if not hasattr(our_instance, name) and (cls, name) not in INTENDED_MISSING_ATTRIBUTES
            }
            assert missing == set(), f"{cls}: torch's public attributes missing from ours"
        # torch's private _get_file_writer() is used by real code (Lightning's logger, tutorials).
        assert ours._get_file_writer() is ours.file_writer


def test_the_check_finds_a_missing_method_and_a_missing_parameter():
    """The check itself: a class lacking a method or a parameter is reported."""

    class Lacking(SummaryWriter):
        def add_scalar(
            self, tag, scalar_value, global_step=None, walltime=None
        ):  # no new_style, double_precision
            pass

        add_text = None  # type: ignore[assignment]  # hides the method

    assert signature_problems(TorchWriter, Lacking, "add_scalar") == [
        "add_scalar: parameter 5 is nothing, torch's is new_style",
        "add_scalar: parameter 6 is nothing, torch's is double_precision",
    ]
    assert signature_problems(TorchWriter, Lacking, "add_text") != []
