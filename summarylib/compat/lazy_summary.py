"""What a compat.v1 op returns when it is created on a zero-argument callable: the op,
not its value, as a TF 1.x summary op was a node of the graph evaluated by `sess.run`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from summarylib.ops.errors import op_error


class LazySummaryError(RuntimeError):
    """The callable of a lazy compat.v1 summary raised; the original is the `__cause__`."""


class LazySummary:
    """A compat.v1 summary op on a zero-argument callable. Creating it calls nothing;
    `eval()` (as TF 1.x's `tensor.eval()`), `merge`, `merge_all` and
    `FileWriter.add_summary` call the callable and encode its value at that moment."""

    __slots__ = ("_build", "_read", "op", "tag")

    def __init__(self, op: str, tag: str, read: Callable[[], Any], build: Callable[[Any], bytes]) -> None:
        self.op = op
        self.tag = tag
        self._read = read
        self._build = build

    def eval(self) -> bytes:
        """The serialized Summary of the callable's value now.

        An exception raised by the callable becomes a `LazySummaryError` naming the op
        and the tag (the original is its `__cause__`); a value the op rejects raises the
        op's usual `TypeError` or `ValueError`.
        """
        try:
            value = self._read()
        except Exception as error:
            raise LazySummaryError(
                f"summarylib.compat.v1.{self.op}: tag {self.tag!r}: the callable raised {error!r}"
            ) from error
        return self._build(value)

    def __repr__(self) -> str:
        return f"<summarylib.compat.v1 lazy {self.op} {self.tag!r}>"


def summary_bytes(summary: Any, api: str, argument: str) -> bytes:
    """A serialized Summary (or other message) from bytes, any library's proto, or a
    LazySummary (evaluated now); a TypeError naming `api` and `argument` otherwise."""
    if isinstance(summary, bytes):
        return summary
    if isinstance(summary, LazySummary):
        return summary.eval()
    if callable(getattr(summary, "SerializeToString", None)):
        return summary.SerializeToString()
    raise op_error(
        TypeError,
        api,
        None,
        argument,
        "expected a serialized Summary, a Summary proto or a lazy compat.v1 summary, got "
        f"{type(summary).__name__}",
    )
