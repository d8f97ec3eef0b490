"""One shape for every input error an op raises, so users can grep and read them alike."""

from __future__ import annotations


def op_error(kind: type[Exception], op: str, tag: object, argument: str, problem: str) -> Exception:
    """`kind` with a message naming the op, the tag, the argument and what was wrong."""
    return kind(f"summarylib.{op}: tag {tag!r}: argument {argument!r}: {problem}")


def check_name(op: str, name: object) -> str:
    """The tag an op writes under: a non-empty str."""
    if type(name) is str and name:
        return name
    if not isinstance(name, str):
        raise TypeError(f"summarylib.{op}: name must be a str, got {type(name).__name__} {name!r}")
    if not name:
        raise ValueError(f"summarylib.{op}: name must be a non-empty str, got ''")
    return name


def check_description(op: str, tag: str, description: object) -> str | None:
    """The description an op stores in its metadata: None or a str."""
    if description is None or isinstance(description, str):
        return description
    raise op_error(
        TypeError, op, tag, "description", f"expected a str or None, got {type(description).__name__}"
    )
