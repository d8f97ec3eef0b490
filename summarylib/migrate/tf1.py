"""TF 1.x's `tf.summary` / `tf.compat.v1.summary` onto summarylib.compat.v1.

Graph code (a Session runs the ops) keeps its summary ops: only TensorFlow can evaluate an op
on a graph tensor. Its writing side moves: summarylib.compat.v1.FileWriter writes the
serialized Summaries that `sess.run(merged)` returns. Eager-style code (ops on Python and
numpy values) moves whole onto summarylib.compat.v1, whose ops take values.
"""

from __future__ import annotations

from summarylib.migrate.decisions import Decision, Leave, Move
from summarylib.migrate.facts import Facts

WRITING = {"FileWriter", "FileWriterCache"}
PROTOS = {"Summary", "Event", "SessionLog"}
OPS = {"scalar", "histogram", "image", "audio", "text", "tensor_summary", "merge", "merge_all"}

NOT_MECHANICAL = (
    "--to v2: kept on summarylib.compat.v1; rewriting a merge_all/add_summary loop onto a default "
    "writer with explicit steps is not mechanical"
)


def _symbol(qualified: str, facts: Facts) -> str | None:
    """`FileWriter` for `tensorflow.compat.v1.summary.FileWriter`; protos also at the top level."""
    prefixes = ["tensorflow.compat.v1.summary."]
    if facts.tf1:
        prefixes.append("tensorflow.summary.")
    for prefix in prefixes:
        if qualified.startswith(prefix):
            return qualified[len(prefix) :]
    for prefix in ("tensorflow.compat.v1.", "tensorflow."):
        if qualified.startswith(prefix) and qualified[len(prefix) :].split(".")[0] in PROTOS:
            return qualified[len(prefix) :]
    return None


def style(facts: Facts) -> str:
    """How TF 1.x summary code of this file is migrated, and why."""
    if facts.graph:
        return (
            f"TF 1.x graph code ({facts.graph}): summary ops stay TensorFlow ops, evaluated by "
            "Session.run; FileWriter moves to summarylib.compat.v1, which writes what they return"
        )
    return (
        "TF 1.x eager-style code (no Session in the file): summary ops get Python/numpy values, "
        "so ops, merge_all and FileWriter move to summarylib.compat.v1"
    )


def decide_applies(qualified: str, facts: Facts) -> bool:
    """Whether `qualified` is a TF 1.x summary name in this file."""
    return _symbol(qualified, facts) is not None


def decide(qualified: str, facts: Facts, to: str) -> Decision | None:
    """The decision for a TF 1.x summary name, or None when `qualified` is not one (or stays
    a TensorFlow op by design)."""
    symbol = _symbol(qualified, facts)
    if symbol is None:
        return None
    if symbol in WRITING or symbol in PROTOS or symbol.startswith(tuple(f"{p}." for p in PROTOS)):
        return Move(f"summarylib.compat.v1.{symbol}", within="summarylib.compat.v1")
    if symbol in OPS:
        if facts.graph:
            return None
        return Move(f"summarylib.compat.v1.{symbol}", left=NOT_MECHANICAL if to == "v2" else "")
    return Leave(f"tf.compat.v1.summary.{symbol} has no summarylib equivalent")
