"""One shape for every input error an op raises, so users can grep and read them alike:

    summarylib.<op>: tag '<tag>': argument '<arg>': expected ..., got ...

APIs that have no tag (set_step, the hparams domain classes, writer creation) leave the
tag part out: `summarylib.set_step: argument 'step': expected ..., got ...`.

Every string an op writes must be valid UTF-8 on the wire, so every string argument is
checked at the call (`check_text`): a lone surrogate found on the writer's thread would
cost the event, found here it is a ValueError the caller can act on. Tags are checked
once each (`check_name` remembers the valid ones), so the check costs the most frequent
ops one set lookup.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.message import DecodeError, Message

from summarylib.checks import input_error

# Tags already found valid (non-empty, UTF-8 encodable), so each is checked once. Bounded:
# a program that makes a new tag per call (a bug, but a possible one) clears it now and
# then rather than growing it; tags longer than _CACHED_LENGTH are checked at every call.
valid_tags: set[str] = set()
_MAX_VALID_TAGS = 1 << 16
_CACHED_LENGTH = 1024

op_error = input_error  # the one shape, made by summarylib.checks (which holds the shared checks)


def wrapped_error(
    kind: type[Exception], op: str, tag: object, argument: str, problem: str, cause: BaseException
) -> Exception:
    """`op_error` for a failure inside the user's object (its `__array__`, `.item()`, ...):
    the original exception is named in the message and kept as `__cause__`."""
    error = op_error(kind, op, tag, argument, f"{problem} ({type(cause).__name__}: {cause})")
    error.__cause__ = cause
    return error


def check_text(op: str, tag: object, argument: str, text: str) -> str:
    """`text`, a str, if it can be written as UTF-8; a ValueError naming it otherwise (a
    lone surrogate, as from `os.fsdecode` of a non-UTF-8 file name)."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        bad = text[error.start : error.end]
        raise op_error(
            ValueError,
            op,
            tag,
            argument,
            f"expected a str encodable as UTF-8, got one holding {bad!r} at {error.start} (a lone surrogate)",
        ) from None
    return text


def check_optional_text(op: str, tag: object, argument: str, value: Any) -> str | None:
    """`value` if it is None or a str encodable as UTF-8; TypeError or ValueError otherwise."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise op_error(
            TypeError, op, tag, argument, f"expected a str or None, got {type(value).__name__} {value!r:.80}"
        )
    return check_text(op, tag, argument, value)


def check_name(op: str, name: object) -> str:
    """The tag an op writes under: a non-empty str encodable as UTF-8."""
    if type(name) is str and name in valid_tags:
        return name
    if not isinstance(name, str):
        raise op_error(
            TypeError, op, name, "name", f"expected a non-empty str, got {type(name).__name__} {name!r:.80}"
        )
    if not name:
        raise op_error(ValueError, op, name, "name", "expected a non-empty str, got ''")
    check_text(op, name, "name", name)
    if type(name) is str and len(name) <= _CACHED_LENGTH:
        if len(valid_tags) >= _MAX_VALID_TAGS:
            valid_tags.clear()
        valid_tags.add(name)
    return name


def check_description(op: str, tag: str, description: object) -> str | None:
    """The description an op stores in its metadata: None or a str encodable as UTF-8."""
    return check_optional_text(op, tag, "description", description)


def check_serialized(message: type[Message], data: bytes, op: str, tag: str | None, argument: str) -> bytes:
    """`data`, checked to parse as a `message` (a Summary, SummaryMetadata, GraphDef from
    the user, written as given): a ValueError naming `argument` otherwise, at the call
    rather than a file TensorBoard cannot read."""
    try:
        message.FromString(data)
    except DecodeError as error:
        raise op_error(
            ValueError, op, tag, argument, f"not a serialized {message.DESCRIPTOR.name} ({error})"
        ) from None
    return data
