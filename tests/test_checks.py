"""summarylib.checks: the argument checks every layer shares, in the one error shape."""

from __future__ import annotations

import math

import numpy as np
import pytest

import summarylib as sl
from summarylib import checks
from summarylib.compat import contrib, v1


@pytest.mark.parametrize("good", [1, 7, np.int64(3), np.uint8(255), 10**30])
def test_a_positive_int_is_a_python_int(good):
    value = checks.int_at_least("op", "t", "n", good)
    assert type(value) is int and value == int(good)


@pytest.mark.parametrize("bad", [0, -1, True, False, np.bool_(True), 1.0, 2.5, "3", None, [1]])
def test_anything_else_is_a_value_error_naming_op_tag_argument_and_what_came(bad):
    with pytest.raises(ValueError) as error:
        checks.int_at_least("op", "t", "n", bad)
    assert str(error.value) == (
        f"summarylib.op: tag 't': argument 'n': expected a positive int, got {type(bad).__name__} {bad!r:.80}"
    )


def test_the_bound_and_none_are_said():
    assert checks.int_at_least("op", None, "n", 0, least=0) == 0
    with pytest.raises(ValueError, match=r"^summarylib\.op: argument 'n': expected an int >= 2, got int 1$"):
        checks.int_at_least("op", None, "n", 1, least=2)
    assert checks.optional_int_at_least("op", None, "n", None) is None
    assert checks.optional_int_at_least("op", None, "n", np.int32(4)) == 4
    with pytest.raises(ValueError, match=r"argument 'n': expected None or an int >= 0, got int -1$"):
        checks.optional_int_at_least("op", None, "n", -1, least=0)
    assert not checks.is_int_at_least("batch", 1) and checks.is_int_at_least(np.int8(1), 1)


@pytest.mark.parametrize(
    ("given", "seconds"), [(1, 1.0), (0.5, 0.5), (np.float32(2.0), 2.0), (np.int64(3), 3.0)]
)
def test_positive_seconds(given, seconds):
    value = checks.positive_seconds("op", None, "every", given)
    assert type(value) is float and value == seconds


@pytest.mark.parametrize("bad", [0, -1.0, math.inf, math.nan, 10**400, True, "1", None])
def test_no_positive_finite_number_of_seconds_is_a_value_error(bad):
    with pytest.raises(
        ValueError, match=r"^summarylib\.op: argument 'every': expected a positive number of seconds"
    ):
        checks.positive_seconds("op", None, "every", bad)


def test_real_numbers_and_flags():
    assert checks.real_number("op", None, "x", np.float16(0.5)) == 0.5
    assert checks.real_number("op", None, "x", -(10**400)) == -math.inf
    assert checks.as_real(True) is None and checks.as_real("1") is None
    with pytest.raises(TypeError, match=r"argument 'x': expected a number, got bool True"):
        checks.real_number("op", None, "x", True)
    assert checks.check_flag("op", None, "f", np.bool_(True)) is True
    assert checks.check_flag("op", None, "f", 0) is False
    with pytest.raises(
        TypeError, match=r"^summarylib\.op: tag 't': argument 'f': expected a bool, got str 'yes'"
    ):
        checks.check_flag("op", "t", "f", "yes")


def test_a_writer_is_anything_that_submits():
    class Writer:
        def submit(self):
            pass

    checks.check_writer("op", None)
    checks.check_writer("op", Writer())
    with pytest.raises(
        TypeError, match=r"^summarylib\.op: argument 'writer': expected a summarylib writer, got str"
    ):
        checks.check_writer("op", "runs")


def test_kinds_come_in_their_order_and_unavailable_ones_say_why():
    kinds = ("parameters", "gradients", "activations")
    assert checks.check_kinds("op", None, kinds) == ()
    assert checks.check_kinds("op", "all", kinds) == kinds
    assert checks.check_kinds("op", "all", kinds[:2], {"activations": "not here"}) == kinds[:2]
    assert checks.check_kinds("op", ["gradients", "parameters"], kinds) == ("parameters", "gradients")
    assert checks.check_kinds("op", {"activations"}, kinds) == ("activations",)
    with pytest.raises(ValueError, match=r"^summarylib\.op: argument 'log': expected 'all', one of \["):
        checks.check_kinds("op", "weights", kinds)
    with pytest.raises(TypeError, match=r"argument 'log': expected 'all', .* got int 3$"):
        checks.check_kinds("op", 3, kinds)
    with pytest.raises(ValueError, match=r"^summarylib\.op: argument 'log': not here$"):
        checks.check_kinds("op", "activations", kinds[:2], {"activations": "not here"})
    with pytest.raises(ValueError, match="not here"):
        checks.check_kinds("op", ["parameters", "activations"], kinds[:2], {"activations": "not here"})


def test_long_tags_are_cut_in_the_message():
    error = checks.input_error(ValueError, "op", "x" * 1000, "a", "bad")
    assert str(error) == f"summarylib.op: tag {'x' * 200!r}... (1000 characters): argument 'a': bad"


def test_the_call_sites_take_numpy_counts_and_refuse_what_they_cannot_use(tmp_path):
    """The writer and compat APIs check through these: a numpy count is a count, and a
    flush interval of inf (once an OverflowError from inside the constructor) is refused."""
    with sl.create_file_writer(tmp_path / "a", max_queue=np.int64(5)) as writer:
        assert writer.settings.max_queue == 5 and type(writer.settings.max_queue) is int
    with contrib.record_summaries_every_n_global_steps(np.int32(2)):
        pass
    for bad in (math.inf, math.nan, 0):
        with pytest.raises(
            ValueError,
            match=r"^summarylib\.compat\.v1\.FileWriter: argument 'flush_secs': expected a positive",
        ):
            v1.FileWriter(tmp_path / "b", flush_secs=bad)
    assert not (tmp_path / "b").exists()
