"""Tags as TF 1.x made them: cleaned names, and `family` prefixed the way summary_scope did."""

from __future__ import annotations

import re
import warnings
from typing import Any

from summarylib.ops.errors import op_error

_INVALID = re.compile(r"[^-/\w.]")


def clean_tag(name: str, warn: bool = True) -> str:
    """`name` with characters TF 1.x did not allow replaced by `_` (lone surrogates and NUL
    among them) and leading `/` removed, warning when it changed, as TF 1.x did."""
    cleaned = _INVALID.sub("_", name).lstrip("/")
    if warn and cleaned != name:
        warnings.warn(f"summary name {name!r} is illegal; using {cleaned!r} instead", stacklevel=3)
    return cleaned


def family_tag(op: str, name: Any, family: Any) -> str:
    """The tag of a summary `name` in `family`.

    TF 1.x put the op in the name scope `family/name` and prefixed the family once more
    for the dashboard tab, so the tag is `family/family/name`. There is no graph here, so
    names are not made unique with `_1` suffixes as graph name scopes did. A name (or
    family) that is not a str, or that cleaning leaves empty, is an error naming `op`.
    """
    for argument, value in (("name", name), ("family", family)):
        if argument == "family" and value is None:
            continue
        if not isinstance(value, str):
            raise op_error(
                TypeError,
                op,
                name,
                argument,
                f"expected a non-empty str, got {type(value).__name__} {value!r:.80}",
            )
        if not clean_tag(value, warn=False):
            raise op_error(
                ValueError,
                op,
                name,
                argument,
                f"expected a name with a character TF 1.x allowed after leading '/', got {value!r:.80}",
            )
    name = clean_tag(name)
    if family is None:
        return name
    family = clean_tag(family)
    return f"{family}/{family}/{name}"
