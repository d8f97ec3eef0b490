"""TF 2's `tf.summary` onto summarylib's v2 API, one name for one name: the signatures
match, and tensors passed in stay as they are (summarylib converts them). TensorBoard's
hparams API (`tensorboard.plugins.hparams.api`) writes to the same default writer, so it moves
with it, to summarylib.hparams. Where the default writer must stay TensorFlow's (tf.summary in
a tf.function, graph tracing with trace_on/trace_export, or the writer handed to another
library's code), all of them stay, listed."""

from __future__ import annotations

from summarylib.migrate.decisions import Decision, Leave, Move
from summarylib.migrate.facts import Facts

PREFIXES = ("tensorflow.summary.", "tensorflow.compat.v2.summary.")

SAME_NAME = {
    "audio",
    "create_file_writer",
    "create_noop_writer",
    "flush",
    "graph",
    "histogram",
    "image",
    "record_if",
    "scalar",
    "should_record_summaries",
    "text",
    "write",
}
EXPERIMENTAL = {"get_step", "set_step", "write_raw_pb"}
TRACE = {"trace_on", "trace_export", "trace_off"}
HPARAMS_PREFIX = "tensorboard.plugins.hparams.api."
HPARAMS_SAME = {"HParam", "Discrete", "IntInterval", "RealInterval", "Metric", "hparams", "hparams_config"}
HPARAMS_KERAS = (
    "hp.KerasCallback writes through TensorFlow's writer and has no summarylib equivalent: call "
    "summarylib.hparams.hparams(...) inside the run's writer.as_default() instead"
)
KEPT_FOR_TRACE = (
    "kept on TensorFlow because of tf.summary.trace_on at line {line}: trace_export writes the "
    "traced graph to TensorFlow's default writer, so that writer and what writes to it stay"
)
KEPT_FOR_HANDED = (
    "kept on TensorFlow because {handed}: a summarylib writer would get nothing from it, so the "
    "file's writer and what writes to it stay; move that code to summarylib with it"
)

TRACED_REASON = (
    "tf.summary inside a tf.function (or a Keras train_step/test_step/predict_step, which Keras "
    "traces as one): the traced op gets symbolic tensors, and summarylib needs "
    "values; move the call out of the function (return the value) or pass a Python callable"
)
KEPT_FOR_TRACED = (
    "kept on tf.summary because the tf.summary call at line {line}, inside traced code, logs "
    "through TensorFlow's default writer, which only a TensorFlow writer can be"
)
TRACE_REASON = (
    "tf.summary.{name} records TensorFlow's traced graph and profile; summarylib cannot trace a "
    "tf.function (write the GraphDef with summarylib.graph)"
)


def kept_writer(facts: Facts) -> str:
    """Why the file's default writer and everything writing to it stay TensorFlow's ("" when
    they move): graph tracing, or the writer handed to code that writes with tf.summary."""
    if facts.trace_line:
        return KEPT_FOR_TRACE.format(line=facts.trace_line)
    if facts.writer_handed:
        return KEPT_FOR_HANDED.format(handed=facts.writer_handed)
    return ""


def _hparams(name: str, facts: Facts) -> Decision:
    """The decision for a name of TensorBoard's hparams API."""
    if kept_writer(facts):
        return Leave(kept_writer(facts))
    if facts.traced_summary_line:
        return Leave(KEPT_FOR_TRACED.format(line=facts.traced_summary_line))
    if name in HPARAMS_SAME:
        return Move(f"summarylib.hparams.{name}")
    if name == "KerasCallback":
        return Leave(HPARAMS_KERAS)
    return Leave(f"hp.{name} has no summarylib equivalent")


def decide(qualified: str, facts: Facts, line: int) -> Decision | None:
    """The decision for a TF 2 `tf.summary` name, or None when `qualified` is not one."""
    if qualified.startswith(HPARAMS_PREFIX):
        return _hparams(qualified[len(HPARAMS_PREFIX) :], facts)
    rest = next((qualified[len(p) :] for p in PREFIXES if qualified.startswith(p)), None)
    if rest is None or (facts.tf1 and qualified.startswith("tensorflow.summary.")):
        return None
    if facts.unsure:
        return Leave(facts.unsure)
    if rest in TRACE:
        return Leave(TRACE_REASON.format(name=rest))
    if kept_writer(facts):
        return Leave(kept_writer(facts))
    if facts.traced_summary_line:
        if facts.in_traced(line):
            return Leave(TRACED_REASON)
        return Leave(KEPT_FOR_TRACED.format(line=facts.traced_summary_line))
    if rest in SAME_NAME:
        return Move(f"summarylib.{rest}")
    if rest.startswith("experimental.") and rest.removeprefix("experimental.") in EXPERIMENTAL:
        return Move(f"summarylib.{rest.removeprefix('experimental.')}")
    return Leave(f"tf.summary.{rest} has no summarylib equivalent")
