"""The exception classes torch's and tensorboardX's writers raise for data they cannot
convert, carried by the drop-ins' errors, so code written for those writers that catches
them (a "log it if it can be logged" helper catching NotImplementedError) still does.

Both writers turn each data argument into an array with their `make_np`, which raises
NotImplementedError for a kind it does not convert: torch's takes numpy arrays, numpy
and Python scalars and tensors; tensorboardX's lists too. A scalar of more than one
element fails torch's `assert` (AssertionError). summarylib's error for such an input
stays the one-shape ValueError or TypeError naming the op, tag and argument, and is an
instance of the replaced writer's class as well.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import numpy as np

_Method = TypeVar("_Method", bound=Callable[..., Any])


class UnconvertibleValueError(ValueError, NotImplementedError):
    """A ValueError for data the replaced writer's `make_np` does not convert."""


class UnconvertibleTypeError(TypeError, NotImplementedError):
    """A TypeError for data the replaced writer's `make_np` does not convert."""


class NotOneValueError(ValueError, AssertionError):
    """A scalar of more than one element, which the replaced writer's `assert` refuses."""


def _is_tensor(value: Any) -> bool:
    return type(value).__module__.startswith("torch") and hasattr(value, "detach")


def _elements(value: Any) -> int:
    """How many elements an array, scalar, tensor or list holds (0 for a ragged list, or
    any value numpy cannot count)."""
    try:
        return int(value.numel()) if _is_tensor(value) else int(np.size(value))
    except Exception:  # a hostile object's __len__ or __array__: count nothing
        return 0


def torch_converts(value: Any) -> bool:
    """Whether torch's `make_np` converts `value`: an array, a scalar or a tensor."""
    return isinstance(value, np.ndarray) or bool(np.isscalar(value)) or _is_tensor(value)


def tensorboardx_converts(value: Any) -> bool:
    """Whether tensorboardX's `make_np` converts `value`: torch's kinds and lists."""
    return isinstance(value, list) or torch_converts(value)


def as_replaced_writers(
    error: Exception, value: Any, converts: Callable[[Any], bool], one_value: bool = False
) -> Exception:
    """`error` (raised for the data argument `value`; `one_value`: a scalar's) as an
    instance of the class the replaced writer raises too, or `error` itself where that
    writer raises the same."""
    if type(error) not in (ValueError, TypeError):
        return error
    if not converts(value):
        kind: type[Exception] = (
            UnconvertibleValueError if type(error) is ValueError else UnconvertibleTypeError
        )
    elif one_value and type(error) is ValueError and _elements(value) > 1:
        kind = NotOneValueError
    else:
        return error
    replaced = kind(*error.args)
    replaced.__cause__ = error.__cause__
    return replaced


def raise_as_replaced_writers(
    error: Exception, value: Any, converts: Callable[[Any], bool], one_value: bool = False
) -> NoReturn:
    """Raise `error` as `as_replaced_writers` makes it (itself where nothing changes)."""
    replaced = as_replaced_writers(error, value, converts, one_value)
    if replaced is error:
        raise error
    raise replaced from error.__cause__


def _named_value(
    signature: inspect.Signature, names: tuple[str, ...], error: Exception, args: tuple, kwargs: dict
) -> Any:
    """The value of the first of `names` that `error`'s message names, else `_NONE`."""
    try:
        bound = signature.bind_partial(*args, **kwargs).arguments
    except TypeError:  # the call itself is wrong: nothing was converted
        return _NONE
    message = str(error)
    return next((bound[name] for name in names if name in bound and f"argument '{name}" in message), _NONE)


_NONE = object()


def raises_like_replaced_writer(*arguments: str) -> Callable[[_Method], _Method]:
    """A writer method whose ValueError or TypeError about one of its data `arguments`
    (named in the message, as every summarylib input error names its argument) is also
    of the class the replaced writer raises for that value (`self._converts` tells which
    values it converts)."""

    def decorate(method: _Method) -> _Method:
        signature = inspect.signature(method)

        @functools.wraps(method)
        def checked(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return method(self, *args, **kwargs)
            except (ValueError, TypeError) as error:
                value = _named_value(signature, arguments, error, (self, *args), kwargs)
                if value is _NONE:
                    raise
                raise_as_replaced_writers(error, value, self._converts)

        checked.raises_like_replaced_writer = True  # type: ignore[attr-defined]
        return checked  # type: ignore[return-value]

    return decorate


# The data arguments of the writers' methods, each converted by the replaced writer's
# `make_np` (add_scalar's, and add_scalars', are checked where they are converted).
DATA_ARGUMENTS = {
    "add_histogram": ("values",),
    "add_image": ("img_tensor",),
    "add_images": ("img_tensor",),
    "add_image_with_boxes": ("img_tensor", "box_tensor"),
    "add_video": ("vid_tensor",),
    "add_audio": ("snd_tensor",),
    "add_embedding": ("mat", "label_img"),
    "add_pr_curve": ("labels", "predictions"),
    "add_mesh": ("vertices", "colors", "faces"),
}


def with_replaced_writers_errors(cls: type) -> type:
    """`cls` with each method of `DATA_ARGUMENTS` it has raising as the replaced writer
    does too (`raises_like_replaced_writer`); methods already made so are left."""
    for name, arguments in DATA_ARGUMENTS.items():
        method = getattr(cls, name)
        if not getattr(method, "raises_like_replaced_writer", False):
            setattr(cls, name, raises_like_replaced_writer(*arguments)(method))
    return cls
