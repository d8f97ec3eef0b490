"""One place that asks each concern (TF 2, contrib, TF 1.x, writer classes) what to do with a
reference, and says for the report how the file as a whole was read."""

from __future__ import annotations

import libcst as cst

from summarylib.migrate import contrib, tf1, tf2, writers
from summarylib.migrate.decisions import Decision
from summarylib.migrate.facts import Facts


class Rules:
    """The decisions for one file, given its facts and the target (`compat` or `v2`)."""

    def __init__(self, facts: Facts, to: str) -> None:
        self.facts = facts
        self.to = to
        self.styles: set[str] = set()

    def decide(self, qualified: str, line: int, call: cst.Call | None = None) -> Decision | None:
        """What to do with a reference to `qualified` at `line` (`call` when it is called)."""
        decision = writers.decide(qualified, self.to)
        if decision is not None:
            return decision
        decision = contrib.decide(qualified, self.facts, self.to, call)
        if decision is not None:
            self.styles.add(f"tf.contrib.summary code: moved to {self._contrib_target()}")
            return decision
        decision = tf2.decide(qualified, self.facts, line)
        if decision is not None:
            self.styles.add(self._tf2_style())
            return decision
        if tf1.decide_applies(qualified, self.facts):
            self.styles.add(tf1.style(self.facts))
        return tf1.decide(qualified, self.facts, self.to)

    def _contrib_target(self) -> str:
        if self.to == "v2":
            return "summarylib's v2 API (--to v2), the global step passed as an explicit step"
        return "summarylib.compat.contrib (--to compat)"

    def _tf2_style(self) -> str:
        if self.facts.traced_summary_line:
            return (
                f"TF 2 code with tf.summary inside a tf.function (line {self.facts.traced_summary_line}): "
                "its tf.summary calls are left on TensorFlow"
            )
        return "TF 2 tf.summary code: moved to summarylib's v2 API"
