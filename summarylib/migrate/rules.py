"""One place that asks each concern (TF 2, contrib, TF 1.x, writer classes) what to do with a
reference, and says for the report how the file as a whole was read."""

from __future__ import annotations

import libcst as cst

from summarylib.migrate import contrib, tf1, tf1_v2, tf2, writers
from summarylib.migrate.decisions import Decision, Leave, Move, RewriteCall
from summarylib.migrate.facts import Facts
from summarylib.migrate.tf1_loops import LoopPlan, Region

V2_LOOPS_STYLE = (
    "TF 1.x eager-style code (no Session in the file), --to v2: each merge_all loop moves to the v2 "
    "API: create_file_writer, and the loop's ops inside writer.as_default(step=<add_summary's step>)"
)
V2_KEPT_STYLE = (
    "TF 1.x eager-style code (no Session in the file), --to v2 not mechanical here (line {line}: "
    "{reason}), so ops, merge_all and FileWriter move to summarylib.compat.v1"
)

V2_GRAPH_KEPT = (
    "--to v2: kept on summarylib.compat.v1: TF 1.x graph code, whose Session.run returns serialized "
    "Summaries and tf.Summary protos, which summarylib's v2 API does not take"
)
V2_PROTO_KEPT = (
    "--to v2: kept on summarylib.compat.v1: summarylib's v2 API has no TF 1.x protos or FileWriter"
)

# What an earlier run kept on TF 1.x's API: `--to v2` lists it again on every run, so that a
# second run on migrated code reports the calls the first left for a person.
KEPT_ON_V1 = ("summarylib.compat.v1.", "summarylib.proto.histogram_pb2.HistogramProto")
V2_STILL_KEPT = (
    "--to v2: on summarylib.compat.v1 (TF 1.x's API, where a migration kept it): summarylib's v2 "
    "API (create_file_writer, ops under writer.as_default(step=)) takes it by hand"
)


class Rules:
    """The decisions for one file, given its facts and the target (`compat` or `v2`)."""

    def __init__(self, facts: Facts, to: str, loops: LoopPlan | None = None) -> None:
        self.facts = facts
        self.to = to
        self.loops = loops  # the --to v2 plan of TF 1.x eager-style code (tf1_loops)
        self.styles: set[str] = set()

    def _moving(self) -> LoopPlan | None:
        """The --to v2 plan when it moves the loops (it has no problems), else None."""
        return self.loops if self.loops is not None and not self.loops.problems else None

    def loop_call(self, original: cst.Call, updated: cst.Call) -> RewriteCall | None:
        """The v2 call of a TF 1.x call the `--to v2` plan rewrites, or None."""
        plan = self._moving()
        symbol = plan.calls.get(original) if plan is not None else None
        if symbol is None:
            return None
        self.styles.add(V2_LOOPS_STYLE)
        call, note = tf1_v2.rewrite_call(symbol, updated)
        return RewriteCall(call, ("summarylib",), note)

    def dropped(self, original: cst.Call) -> bool:
        """Whether `original` goes with its `add_summary(merge_all(), step)` statement."""
        plan = self._moving()
        return plan is not None and original in plan.dropped

    def loop_regions(self, loop: cst.CSTNode) -> list[Region]:
        """The regions of `loop`'s body that go into `with writer.as_default(step=...)`."""
        plan = self._moving()
        return plan.regions.get(loop, []) if plan is not None else []

    def decide(self, qualified: str, line: int, call: cst.Call | None = None) -> Decision | None:
        """What to do with a reference to `qualified` at `line` (`call` when it is called)."""
        if self.to == "v2" and qualified.startswith(KEPT_ON_V1):
            return Leave(V2_STILL_KEPT)
        decision = writers.decide(qualified, self.to)
        if decision is not None:
            return decision
        decision = contrib.decide(qualified, self.facts, self.to, call)
        if decision is not None:
            self.styles.add(f"tf.contrib.summary code: moved to {self._contrib_target()}")
            if self.facts.tf_global_step:
                self.styles.add(contrib.STEP_KEPT_STYLE)
            return decision
        decision = tf2.decide(qualified, self.facts, line)
        if decision is not None:
            self.styles.add(self._tf2_style())
            return decision
        if not tf1.decide_applies(qualified, self.facts):
            return None
        if self.loops is not None and self.loops.problems:
            first, reason = min(self.loops.problems.items())
            self.styles.add(V2_KEPT_STYLE.format(line=first, reason=reason))
            return tf1.decide(qualified, self.facts, self.loops.kept(line))
        plan = self._moving()
        self.styles.add(V2_LOOPS_STYLE if plan is not None and plan.calls else tf1.style(self.facts))
        return tf1.decide(qualified, self.facts, self._v2_kept())

    def moves_writer(self) -> bool:
        """Whether the file's v2 writer is summarylib's: a TF 2 writer that moves, or one an
        earlier run moved (its default step is then read once, not at each op)."""
        moved = tf2.decide("tensorflow.summary.create_file_writer", self.facts, 0)
        return self.facts.summarylib_writer or (self.facts.writer and isinstance(moved, Move))

    def _v2_kept(self) -> str:
        """Why `--to v2` keeps a TF 1.x name on summarylib.compat.v1 ("" with `--to compat`)."""
        if self.to != "v2":
            return ""
        return V2_GRAPH_KEPT if self.facts.graph else V2_PROTO_KEPT

    def _contrib_target(self) -> str:
        if self.to == "v2":
            return "summarylib's v2 API (--to v2), the global step passed as an explicit step"
        return "summarylib.compat.contrib (--to compat)"

    def _tf2_style(self) -> str:
        if self.facts.trace_line:
            return (
                f"TF 2 code that traces graphs (tf.summary.trace_on, line {self.facts.trace_line}): the "
                "default writer and everything writing to it stay on TensorFlow"
            )
        if self.facts.writer_handed:
            return (
                f"TF 2 code whose writer is written to elsewhere ({self.facts.writer_handed}): the "
                "default writer and everything writing to it stay on TensorFlow"
            )
        if self.facts.traced_summary_line:
            return (
                f"TF 2 code with tf.summary in traced code (a tf.function or Keras train_step, line "
                f"{self.facts.traced_summary_line}): "
                "its tf.summary calls are left on TensorFlow"
            )
        return "TF 2 tf.summary code: moved to summarylib's v2 API"
