"""TensorFlow objects that stay TensorFlow's in migrated code and change what it writes: a
variable read as the default step, and a TF 2 writer handed to code the migration does not
see.

TensorFlow reads a variable default step (`tf.summary.experimental.set_step(global_step)`,
`writer.as_default(step=optimizer.iterations)`) at each op; summarylib reads a step once, when
it is set, so a moved op would write every summary at the step of that moment. A writer handed
to another library (`metric_utils.eager_compute(summary_writer=writer)`) is written to there
with `tf.summary`, which writes nothing to a summarylib writer.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import PositionProvider, QualifiedNameProvider

from summarylib.migrate.names import import_qualified_name, source

# What makes a TensorFlow variable (a global step, or any tf.Variable).
VARIABLE_MAKERS = {
    f"{prefix}{name}"
    for prefix in ("tensorflow.", "tensorflow.compat.v1.", "tensorflow.compat.v2.")
    for name in (
        "Variable",
        "train.get_or_create_global_step",
        "train.create_global_step",
        "train.get_global_step",
    )
} | {f"tensorflow.contrib.framework.{name}" for name in ("get_or_create_global_step", "get_global_step")}
TF2_WRITER_MAKERS = {
    "tensorflow.summary.create_file_writer",
    "tensorflow.compat.v2.summary.create_file_writer",
}
# Names a writer may be handed to without leaving the file's tf.summary code.
SUMMARY_PREFIXES = ("tensorflow.summary.", "tensorflow.compat.v2.summary.", "summarylib")

VARIABLE_STEP = (
    "{code} is a TensorFlow variable: TensorFlow reads a variable step at each op, summarylib "
    "reads a step once, here, so every summary after it would be at this step: pass "
    "step={code} to each op (summarylib reads it there), or set the step again each time it "
    "advances"
)
HANDED = "line {line} hands the writer {writer} to {callee}, which writes to it with tf.summary"


class ObjectsVisitor(cst.CSTVisitor):
    """The names bound to TensorFlow variables and the first writer handed to other code."""

    METADATA_DEPENDENCIES = (QualifiedNameProvider, PositionProvider)

    def __init__(self) -> None:
        super().__init__()
        self.variables: set[str] = set()  # sources of names bound to a variable (`self.step`)
        self.writers: set[str] = set()  # sources of names bound to a TF 2 writer
        self.handed = ""  # why the file's TF 2 writer must stay TensorFlow's
        self.summarylib_writer = False  # whether the file makes a summarylib v2 writer

    def visit_Assign(self, node: cst.Assign) -> None:
        if not isinstance(node.value, cst.Call):
            return
        made = import_qualified_name(self, node.value.func)
        for target in node.targets:
            if made in VARIABLE_MAKERS:
                self.variables.add(source(target.target))
            elif made in TF2_WRITER_MAKERS:
                self.writers.add(source(target.target))
            self.summarylib_writer = self.summarylib_writer or made == "summarylib.create_file_writer"

    def visit_Call(self, node: cst.Call) -> None:
        callee = import_qualified_name(self, node.func)
        if self.handed or callee is None or callee.startswith(SUMMARY_PREFIXES):
            return
        for arg in node.args:
            if source(arg.value) in self.writers:
                line = self.get_metadata(PositionProvider, node).start.line
                self.handed = HANDED.format(line=line, writer=source(arg.value), callee=source(node.func))
                return


def variable_step(value: cst.BaseExpression, made_by: str | None, variables: frozenset[str]) -> str:
    """Why a default step `value` cannot move as it is ("" when it can): it is a TensorFlow
    variable (a name bound to one, among `variables`; a call making one, `made_by` naming
    the call; or a Keras optimizer's `iterations`)."""
    code = source(value)
    is_iterations = isinstance(value, cst.Attribute) and value.attr.value == "iterations"
    if is_iterations or code in variables or made_by in VARIABLE_MAKERS:
        return VARIABLE_STEP.format(code=code)
    return ""
