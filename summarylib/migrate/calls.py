"""Reading and writing call arguments in libcst: bind a call's arguments to a signature's
parameter names, and make `name=value` keyword arguments in the project's spelling."""

from __future__ import annotations

import libcst as cst


def bind(parameters: tuple[str, ...], call: cst.Call) -> dict[str, cst.BaseExpression] | None:
    """The call's arguments by parameter name; None when they cannot be bound statically
    (`*args`, `**kwargs`, too many positionals, an unknown keyword)."""
    bound: dict[str, cst.BaseExpression] = {}
    for position, arg in enumerate(call.args):
        if arg.star:
            return None
        if arg.keyword is None:
            if position >= len(parameters):
                return None
            bound[parameters[position]] = arg.value
        elif arg.keyword.value in parameters:
            bound[arg.keyword.value] = arg.value
        else:
            return None
    return bound


def keyword(name: str, value: cst.BaseExpression) -> cst.Arg:
    """`name=value`, without spaces around `=`."""
    equal = cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
    )
    return cst.Arg(value=value, keyword=cst.Name(name), equal=equal)
