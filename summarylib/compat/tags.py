"""Tags as TF 1.x made them: cleaned names, and `family` prefixed the way summary_scope did."""

from __future__ import annotations

import re
import warnings

_INVALID = re.compile(r"[^-/\w.]")


def clean_tag(name: str) -> str:
    """`name` with characters TF 1.x did not allow replaced by `_` and leading `/` removed,
    warning when it changed, as TF 1.x did."""
    cleaned = _INVALID.sub("_", name).lstrip("/")
    if cleaned != name:
        warnings.warn(f"summary name {name!r} is illegal; using {cleaned!r} instead", stacklevel=3)
    return cleaned


def family_tag(name: str, family: str | None) -> str:
    """The tag of a summary `name` in `family`.

    TF 1.x put the op in the name scope `family/name` and prefixed the family once more
    for the dashboard tab, so the tag is `family/family/name`. There is no graph here, so
    names are not made unique with `_1` suffixes as graph name scopes did.
    """
    if not isinstance(name, str) or not name:
        raise (TypeError if not isinstance(name, str) else ValueError)(
            f"summary name must be a non-empty str, got {name!r}"
        )
    name = clean_tag(name)
    if family is None:
        return name
    family = clean_tag(family)
    return f"{family}/{family}/{name}"
