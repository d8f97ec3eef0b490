"""What an HParams experiment is made of: hyperparameters, their domains and metrics.

The classes of `tensorboard.plugins.hparams.api` (`HParam`, `Discrete`, `IntInterval`,
`RealInterval`, `Metric`), validated at construction with TensorBoard's error classes: an
empty `Discrete` without a dtype or an inverted interval is a ValueError, a value of the
wrong type (mixed types in a `Discrete`, a non-int bound of an `IntInterval`, a non-float
bound of a `RealInterval`) a TypeError, and so is a domain that is not a `Domain`.

Stricter than TensorBoard, where it would write something the dashboard misreads: a bool
is not an int here (TensorBoard accepts `IntInterval(False, True)` and `Discrete([1,
True])`), interval bounds and discrete values may not be NaN, and names, display names and descriptions must
be str encodable as UTF-8, and int values must fit in a float64 (TensorBoard stores
numbers as doubles). numpy scalars are accepted as the Python values they hold. Errors
have the shape of every summarylib input error, with the class in place of the op:
`summarylib.hparams.Discrete: argument 'values': expected ..., got ...`.
"""

from __future__ import annotations

import abc
import math
import random
from collections.abc import Iterable
from typing import Any

import numpy as np

from summarylib.ops.errors import check_optional_text, check_text, op_error
from summarylib.proto import hparams_pb2

# The Python types a hyperparameter value can have, and the HParamDataType of each.
DATA_TYPES = {
    int: hparams_pb2.DATA_TYPE_FLOAT64,  # TensorBoard has no int type: ints are numbers
    float: hparams_pb2.DATA_TYPE_FLOAT64,
    bool: hparams_pb2.DATA_TYPE_BOOL,
    str: hparams_pb2.DATA_TYPE_STRING,
}


def python_scalar(value: Any) -> Any:
    """`value` with numpy scalars replaced by the Python value they hold (a long double's
    as a float: its `.item()` is itself)."""
    if isinstance(value, np.floating):
        return float(value)
    return value.item() if isinstance(value, np.generic) else value


def check_value(api: str, tag: str | None, argument: str, value: Any) -> Any:
    """A hyperparameter value TensorBoard can store (a bool, str or number), checked: a str
    encodable as UTF-8, an int within float64's range. Other types are left to the caller."""
    if isinstance(value, str):
        check_text(api, tag, argument, value)
    elif isinstance(value, int) and not isinstance(value, bool):
        try:
            float(value)
        except OverflowError:
            raise op_error(
                ValueError,
                api,
                tag,
                argument,
                f"expected a number within float64's range, got an int of {value.bit_length()} bits",
            ) from None
    return value


def set_value(target: hparams_pb2.HParamValue, value: bool | int | float | str) -> None:
    """Store a hyperparameter value as TensorBoard does: bools, numbers and strings."""
    if isinstance(value, bool):
        target.bool_value = value
    elif isinstance(value, str):
        target.string_value = value
    else:
        target.number_value = value


def _optional_str(owner: str, argument: str, value: Any) -> str | None:
    return check_optional_text(f"hparams.{owner}", None, argument, value)


def _str(owner: str, argument: str, value: Any) -> str:
    if not isinstance(value, str):
        raise op_error(
            TypeError,
            f"hparams.{owner}",
            None,
            argument,
            f"expected a str, got {type(value).__name__} {value!r:.80}",
        )
    return check_text(f"hparams.{owner}", None, argument, value)


class Domain(metaclass=abc.ABCMeta):
    """The values a hyperparameter can take: one of `Discrete`, `IntInterval`,
    `RealInterval`."""

    @property
    @abc.abstractmethod
    def dtype(self) -> type:
        """The Python type of the domain's values: `float`, `int`, `str` or `bool`."""

    @abc.abstractmethod
    def sample_uniform(self, rng: Any = random) -> Any:
        """A value of the domain drawn uniformly at random with `rng` (a `random.Random`);
        IndexError for an empty domain."""

    @abc.abstractmethod
    def update_hparam_info(self, hparam_info: hparams_pb2.HParamInfo) -> None:
        """Set the type and the domain of an HParamInfo to this domain."""


class _Interval(Domain):
    """The closed interval [min_value, max_value] of `dtype` values (ints or floats)."""

    _type: type = object
    _type_name = ""

    def __init__(self, min_value: Any = None, max_value: Any = None) -> None:
        self._min_value = self._bound("min_value", min_value)
        self._max_value = self._bound("max_value", max_value)
        if self._min_value > self._max_value:
            raise op_error(
                ValueError,
                f"hparams.{type(self).__name__}",
                None,
                "max_value",
                f"expected a value >= min_value {self._min_value!r}, got {self._max_value!r}",
            )

    def _bound(self, argument: str, value: Any) -> Any:
        value = python_scalar(value)
        if type(value) is not self._type:
            raise op_error(
                TypeError,
                f"hparams.{type(self).__name__}",
                None,
                argument,
                f"expected {self._type_name}, got {type(value).__name__} {value!r:.80}",
            )
        return check_value(f"hparams.{type(self).__name__}", None, argument, value)

    def __str__(self) -> str:
        return f"[{self._min_value}, {self._max_value}]"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._min_value!r}, {self._max_value!r})"

    @property
    def dtype(self) -> type:
        return self._type

    @property
    def min_value(self) -> Any:
        return self._min_value

    @property
    def max_value(self) -> Any:
        return self._max_value

    def update_hparam_info(self, hparam_info: hparams_pb2.HParamInfo) -> None:
        hparam_info.type = hparams_pb2.DATA_TYPE_FLOAT64
        hparam_info.domain_interval.min_value = self._min_value
        hparam_info.domain_interval.max_value = self._max_value


class IntInterval(_Interval):
    """All integers in the closed interval [min_value, max_value]."""

    _type, _type_name = int, "an int"

    def sample_uniform(self, rng: Any = random) -> int:
        return rng.randint(self._min_value, self._max_value)


class RealInterval(_Interval):
    """All real numbers in the closed interval [min_value, max_value]; the bounds are
    floats, as in TensorBoard (`RealInterval(0, 1)` is a TypeError: write 0.0, 1.0)."""

    _type, _type_name = float, "a float"

    def _bound(self, argument: str, value: Any) -> float:
        value = super()._bound(argument, value)
        if math.isnan(value):
            raise op_error(ValueError, "hparams.RealInterval", None, argument, "expected a number, got NaN")
        return value

    def sample_uniform(self, rng: Any = random) -> float:
        return rng.uniform(self._min_value, self._max_value)


class Discrete(Domain):
    """A fixed set of values of one type (`int`, `float`, `bool` or `str`), kept sorted.

    `dtype` defaults to the type of the first value; an empty domain needs it.
    """

    def __init__(self, values: Iterable[Any], dtype: type | None = None) -> None:
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            raise _discrete_error(
                TypeError, "values", f"expected a list of values, got {type(values).__name__} {values!r:.80}"
            )
        self._values = [python_scalar(value) for value in values]
        if dtype is None:
            if not self._values:
                raise _discrete_error(ValueError, "dtype", "expected a dtype for an empty domain, got None")
            dtype = type(self._values[0])
        if not isinstance(dtype, type) or dtype not in DATA_TYPES:
            raise _discrete_error(ValueError, "dtype", f"expected int, float, bool or str, got {dtype!r:.80}")
        self._dtype = dtype
        for index, value in enumerate(self._values):
            if type(value) is not dtype:
                raise _discrete_error(
                    TypeError,
                    f"values[{index}]",
                    f"expected the domain's dtype {dtype.__name__}, got {type(value).__name__} {value!r:.80}",
                )
            check_value("hparams.Discrete", None, f"values[{index}]", value)
        if dtype is float and any(math.isnan(value) for value in self._values):
            raise _discrete_error(ValueError, "values", "expected numbers, got NaN")
        self._values.sort()

    def __str__(self) -> str:
        return "{" + ", ".join(repr(value) for value in self._values) + "}"

    def __repr__(self) -> str:
        return f"Discrete({self._values!r})"

    @property
    def dtype(self) -> type:
        return self._dtype

    @property
    def values(self) -> list:
        return list(self._values)

    def sample_uniform(self, rng: Any = random) -> Any:
        return rng.choice(self._values)

    def update_hparam_info(self, hparam_info: hparams_pb2.HParamInfo) -> None:
        hparam_info.type = DATA_TYPES[self._dtype]
        hparam_info.ClearField("domain_discrete")
        for value in self._values:
            set_value(hparam_info.domain_discrete.values.add(), value)


def _discrete_error(kind: type[Exception], argument: str, problem: str) -> Exception:
    return op_error(kind, "hparams.Discrete", None, argument, problem)


class _Labelled:
    """What HParams and Metrics share: a display name and a Markdown description."""

    _display_name: str | None
    _description: str | None

    @property
    def display_name(self) -> str | None:
        return self._display_name

    @property
    def description(self) -> str | None:
        return self._description


class HParam(_Labelled):
    """A hyperparameter of an experiment: a name (unique in the experiment), an optional
    `Domain`, display name and Markdown description. Not bound to a value: use it as a key
    of the dict given to `hparams`."""

    def __init__(
        self,
        name: str,
        domain: Domain | None = None,
        display_name: str | None = None,
        description: str | None = None,
    ) -> None:
        name = _str("HParam", "name", name)
        if not isinstance(domain, (Domain, type(None))):
            raise op_error(
                ValueError,
                "hparams.HParam",
                None,
                "domain",
                f"expected a Discrete, IntInterval, RealInterval or None, got {type(domain).__name__} "
                f"{domain!r:.80}",
            )
        self._name = name
        self._domain = domain
        self._display_name = _optional_str("HParam", "display_name", display_name)
        self._description = _optional_str("HParam", "description", description)

    def __str__(self) -> str:
        return f"<HParam {self._name!r}: {self._domain}>"

    def __repr__(self) -> str:
        return (
            f"HParam(name={self._name!r}, domain={self._domain!r}, "
            f"display_name={self._display_name!r}, description={self._description!r})"
        )

    @property
    def name(self) -> str:
        return self._name

    @property
    def domain(self) -> Domain | None:
        return self._domain

    def as_proto(self) -> hparams_pb2.HParamInfo:
        """The HParamInfo of the experiment record."""
        info = hparams_pb2.HParamInfo(
            name=self._name, display_name=self._display_name, description=self._description
        )
        if self._domain is not None:
            self._domain.update_hparam_info(info)
        return info


class Metric(_Labelled):
    """A metric of an experiment: the scalar summary `tag` in the session's run (or in its
    subdirectory `group`), with an optional display name, Markdown description and dataset
    type (`Metric.TRAINING` or `Metric.VALIDATION`)."""

    TRAINING = hparams_pb2.DATASET_TRAINING
    VALIDATION = hparams_pb2.DATASET_VALIDATION

    def __init__(
        self,
        tag: str,
        group: str | None = None,
        display_name: str | None = None,
        description: str | None = None,
        dataset_type: int | None = None,
    ) -> None:
        self._tag = _str("Metric", "tag", tag)
        self._group = _optional_str("Metric", "group", group)
        self._display_name = _optional_str("Metric", "display_name", display_name)
        self._description = _optional_str("Metric", "description", description)
        self._dataset_type = _dataset_type(dataset_type)

    def __repr__(self) -> str:
        return (
            f"Metric(tag={self._tag!r}, group={self._group!r}, display_name={self._display_name!r}, "
            f"description={self._description!r}, dataset_type={self._dataset_type!r})"
        )

    @property
    def tag(self) -> str:
        return self._tag

    @property
    def group(self) -> str | None:
        return self._group

    @property
    def dataset_type(self) -> hparams_pb2.DatasetType | None:
        return self._dataset_type

    def as_proto(self) -> hparams_pb2.MetricInfo:
        """The MetricInfo of the experiment record."""
        return hparams_pb2.MetricInfo(
            name=hparams_pb2.MetricName(group=self._group, tag=self._tag),
            display_name=self._display_name,
            description=self._description,
            dataset_type=self._dataset_type,
        )


def _dataset_type(dataset_type: Any) -> hparams_pb2.DatasetType | None:
    """None, `Metric.TRAINING` or `Metric.VALIDATION` (ints, numpy's too); a ValueError
    for anything else, as in TensorBoard."""
    if dataset_type is None:
        return None
    if (
        isinstance(dataset_type, (int, np.integer))
        and not isinstance(dataset_type, (bool, np.bool_))
        and int(dataset_type) in (Metric.TRAINING, Metric.VALIDATION)
    ):
        return Metric.TRAINING if int(dataset_type) == Metric.TRAINING else Metric.VALIDATION
    raise op_error(
        ValueError,
        "hparams.Metric",
        None,
        "dataset_type",
        f"expected None, Metric.TRAINING or Metric.VALIDATION, got {type(dataset_type).__name__} "
        f"{dataset_type!r:.80}",
    )
