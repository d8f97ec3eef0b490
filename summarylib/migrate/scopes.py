"""TF 2 name scopes in the tags of moved ops. `tf.summary.scalar("foo", ...)` inside `with
tf.name_scope("loss"):` writes the tag `loss/foo` (TF 2 prefixes the tag with the name scope,
eagerly too); summarylib has no name scopes, so a moved op would write `foo`, and dashboards
or custom-scalar layouts naming `loss/foo` would find nothing. Where the scopes and the tag are
string literals, the moved op is given the full tag; otherwise it is listed.
"""

from __future__ import annotations

import re

import libcst as cst

NAME_SCOPES = {"tensorflow.name_scope", "tensorflow.compat.v2.name_scope"}
# summarylib's v2 ops whose TF 2 originals prefix their tag with the name scope.
SCOPED_OPS = {f"summarylib.{op}" for op in ("scalar", "histogram", "image", "audio", "text")}
PREFIXED = "tag written as TF 2 wrote it inside name_scope: {tag}"
UNKNOWN = (
    "inside tf.name_scope, whose name TF 2 puts before the tag ({scopes}/tag), and the scope "
    "or the tag is not a string literal: write the full tag"
)


def scope_name(call: cst.Call) -> str | None:
    """The literal name a `tf.name_scope(...)` call opens, or None when it is not a literal."""
    arg = next((a.value for a in call.args if a.keyword is None or a.keyword.value == "name"), None)
    if isinstance(arg, cst.SimpleString) and isinstance(arg.evaluated_value, str):
        return arg.evaluated_value
    return None


def prefix(scopes: list[str | None]) -> str | None:
    """The tag prefix of nested scopes (`outer/inner/`; a name ending in `/` is absolute, as in
    TF), or None when one is not a literal."""
    joined = ""
    for name in scopes:
        if name is None:
            return None
        joined = name if name.endswith("/") else f"{joined}{name}/"
    return joined


def with_prefix(call: cst.Call, scopes: list[str | None]) -> tuple[cst.Call, str] | str:
    """`call` with its tag (the first argument or `name=`) prefixed by `scopes`, and the note
    saying so; or, when that cannot be done, why it is listed."""
    joined = prefix(scopes)
    for index, arg in enumerate(call.args):
        if (arg.keyword is None and index == 0) or (arg.keyword is not None and arg.keyword.value == "name"):
            tag = arg.value
            break
    else:
        tag = None
    literal = joined is not None and re.fullmatch(r"[\w.\-/]*", joined) is not None
    if not literal or not isinstance(tag, cst.SimpleString) or tag.prefix.lower() not in ("", "u"):
        shown = "/".join(name or "?" for name in scopes)
        return UNKNOWN.format(scopes=shown)
    quote = tag.quote
    new = cst.SimpleString(f"{tag.prefix}{quote}{joined}{tag.raw_value}{quote}")
    args = [a.with_changes(value=new) if a.value is tag else a for a in call.args]
    return call.with_changes(args=args), PREFIXED.format(tag=f"{joined}{tag.evaluated_value!s}")
