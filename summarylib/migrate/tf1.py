"""TF 1.x's `tf.summary` / `tf.compat.v1.summary` onto summarylib.compat.v1.

Graph code (a Session runs the ops) keeps its summary ops: only TensorFlow can evaluate an op
on a graph tensor. Its writing side moves: summarylib.compat.v1.FileWriter writes the
serialized Summaries that `sess.run(merged)` returns. Eager-style code (ops on Python and
numpy values) moves whole onto summarylib.compat.v1, whose ops take values: with `--to compat`,
and with `--to v2` where its merge_all loops are not mechanical (tf1_loops; where they are,
tf1_v2 rewrites them onto the v2 API).
"""

from __future__ import annotations

from summarylib.migrate.decisions import Decision, Leave, Move
from summarylib.migrate.facts import Facts

WRITING = {"FileWriter", "FileWriterCache"}
# TF 1.x's protos and summarylib's: they move together, or (PROTOS_KEPT) stay together.
PROTOS = {
    "Summary": "summarylib.compat.v1.Summary",
    "Event": "summarylib.compat.v1.Event",
    "SessionLog": "summarylib.compat.v1.SessionLog",
    "SummaryMetadata": "summarylib.compat.v1.SummaryMetadata",
    "HistogramProto": "summarylib.proto.histogram_pb2.HistogramProto",
}
PROTOS_KEPT = (
    "kept on TensorFlow with the file's other protos: {reason}, which summarylib has no equivalent "
    "of, and a summarylib proto cannot hold a TensorFlow one"
)
OPS = {"scalar", "histogram", "image", "audio", "text", "tensor_summary", "merge", "merge_all"}


def symbol(qualified: str, facts: Facts) -> str | None:
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
    return symbol(qualified, facts) is not None


def decide(qualified: str, facts: Facts, left: str = "") -> Decision | None:
    """The decision for a TF 1.x summary name, or None when `qualified` is not one (or stays
    a TensorFlow op by design). `left`: why a name kept on compat is listed (`--to v2`)."""
    name = symbol(qualified, facts)
    if name is None:
        return None
    root, _, nested = name.partition(".")  # also nested names: FileWriterCache.get, Summary.Value
    if root in PROTOS:
        if facts.foreign_proto:
            return Leave(PROTOS_KEPT.format(reason=facts.foreign_proto))
        target = f"{PROTOS[root]}.{nested}" if nested else PROTOS[root]
        return Move(target, left=left, within=PROTOS[root].rpartition(".")[0])
    if root in WRITING:
        return Move(f"summarylib.compat.v1.{name}", left=left, within="summarylib.compat.v1")
    if name in OPS:
        if facts.graph:
            return None
        return Move(f"summarylib.compat.v1.{name}", left=left)
    return Leave(f"tf.compat.v1.summary.{name} has no summarylib equivalent")
