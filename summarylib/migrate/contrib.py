"""`tf.contrib.summary` onto summarylib.compat.contrib (`--to compat`, name for name), or onto
the v2 API (`--to v2`): recording conditions become `record_if`, `generic` becomes `write`, and
contrib's implicit global step is passed as an explicit `step`.

The global step of a contrib file (`tf.train.get_or_create_global_step()`, its compat.v1 and
`tf.contrib.framework` spellings) moves to summarylib.compat.contrib's counter in both modes: it
is what contrib ops read, and the file's `assign_add` moves it on. Where TensorFlow needs its
own step (made by `create_global_step`, or handed to TF: `apply_gradients(global_step=)`,
`tf.train.Checkpoint(step_counter=)`), it stays TF's variable, and each op without a step is
given it (summarylib reads a variable's value at the op, as contrib did); a file that names no
`get_or_create_global_step` to pass has its global-step calls listed (facts.STEP_UNPASSABLE).
"""

from __future__ import annotations

import libcst as cst

from summarylib.compat.contrib import __all__ as CONTRIB_NAMES
from summarylib.migrate.calls import bind, keyword
from summarylib.migrate.decisions import Decision, Leave, Move, RewriteCall
from summarylib.migrate.facts import Facts

PREFIX = "tensorflow.contrib.summary."
GLOBAL_STEP_NAMES = {"get_or_create_global_step", "get_global_step"}
GLOBAL_STEP_PREFIXES = ("tensorflow.train.", "tensorflow.compat.v1.train.", "tensorflow.contrib.framework.")
GLOBAL_STEP = "summarylib.compat.contrib.get_or_create_global_step()"

PARAMETERS = {
    "scalar": ("name", "tensor", "family", "step"),
    "histogram": ("name", "tensor", "family", "step"),
    "image": ("name", "tensor", "bad_color", "max_images", "family", "step"),
    "audio": ("name", "tensor", "sample_rate", "max_outputs", "family", "step"),
    "generic": ("name", "tensor", "metadata", "family", "step"),
    "always_record_summaries": (),
    "never_record_summaries": (),
    "record_summaries_every_n_global_steps": ("n", "global_step"),
}
V2_SAME = {"create_file_writer", "create_summary_file_writer", "flush", "should_record_summaries"}
# Arguments a v2 op has no place for: with one of them the call stays on compat.
NO_V2_FORM = {"family", "bad_color"}
V2_NOTES = {
    "image": "v2 writes the image plugin's tensor under the tag itself (contrib: name/image/i)",
    "audio": "v2 writes the audio plugin's tensor under the tag itself (contrib: name/audio/i)",
    "histogram": "v2 buckets histograms as TF 2 does (contrib: TF 1.x's exponential buckets)",
}
STEP_KEPT = "TF's global step stays TensorFlow's (TensorFlow is handed it), passed as the step"
STEP_KEPT_STYLE = (
    "TF's global step stays TensorFlow's: the file makes it with create_global_step or hands it to "
    "TensorFlow (global_step=, step_counter=), so ops without a step are given it as step="
)
RECORDING_NOTE = "contrib recorded nothing outside a recording block; v2 records unless record_if says not"


def decide(qualified: str, facts: Facts, to: str, call: cst.Call | None) -> Decision | None:
    """The decision for a contrib name (or the global step of a contrib file), or None."""
    step_name = qualified.rpartition(".")[2]
    if facts.uses_contrib and qualified.startswith(GLOBAL_STEP_PREFIXES):
        if facts.tf_step_unpassable and step_name in (*GLOBAL_STEP_NAMES, "create_global_step"):
            return Leave(facts.tf_step_unpassable)
        if step_name in GLOBAL_STEP_NAMES:
            return None if facts.tf_global_step else Move(f"summarylib.compat.contrib.{step_name}")
    if not qualified.startswith(PREFIX):
        return None
    name = qualified[len(PREFIX) :]
    if name not in CONTRIB_NAMES:
        return Leave(f"tf.contrib.summary.{name} has no summarylib equivalent")
    compat = Move(f"summarylib.compat.contrib.{name}")
    if to != "v2":
        return _given_tf_step(name, compat, call, facts.tf_global_step) if facts.tf_global_step else compat
    if name in V2_SAME:
        return Move(f"summarylib.{name.replace('create_summary_file_writer', 'create_file_writer')}")
    if name not in PARAMETERS:
        return compat
    if call is None:
        return Move(compat.target, left=f"--to v2: {name} is not called here, so it stays on compat")
    return _v2_call(name, call, facts.tf_global_step) or Move(
        compat.target,
        left=f"--to v2: this {name} call has no mechanical v2 form (family, bad_color or *args)",
    )


def _given_tf_step(name: str, compat: Move, call: cst.Call | None, step: str) -> Decision:
    """`compat`, with TF's global step `step` passed to an op (or recording condition) that
    would read summarylib's counter."""
    parameter = "global_step" if name == "record_summaries_every_n_global_steps" else "step"
    if name not in PARAMETERS or parameter not in PARAMETERS[name] or call is None:
        return compat
    bound = bind(PARAMETERS[name], call)
    if bound is None:
        reason = f"{STEP_KEPT}; this call's arguments cannot be read: pass {parameter}= yourself"
        return Move(compat.target, left=reason)
    if parameter in bound:
        return compat
    args = [*call.args, keyword(parameter, cst.parse_expression(step))]
    new = call.with_changes(func=cst.parse_expression(compat.target), args=args)
    return RewriteCall(new, (compat.module,), STEP_KEPT)


def _v2_call(name: str, call: cst.Call, tf_step: str = "") -> RewriteCall | None:
    bound = bind(PARAMETERS[name], call)
    if bound is None or NO_V2_FORM & bound.keys():
        return None
    global_step = tf_step or GLOBAL_STEP
    step_imports = () if tf_step else ("summarylib.compat.contrib",)
    imports = ("summarylib",)
    if name in ("always_record_summaries", "never_record_summaries"):
        value = "True" if name == "always_record_summaries" else "False"
        record_if = cst.ensure_type(cst.parse_expression(f"summarylib.record_if({value})"), cst.Call)
        return RewriteCall(record_if, imports, RECORDING_NOTE)
    if name == "record_summaries_every_n_global_steps":
        step = bound.get("global_step")
        n = bound["n"]
        if not isinstance(n, (cst.Name, cst.Integer, cst.Attribute)):
            n = n.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        lambda_ = cst.helpers.parse_template_expression(
            "lambda: int({step}) % {n} == 0", step=step or cst.parse_expression(global_step), n=n
        )
        new = cst.Call(func=cst.parse_expression("summarylib.record_if"), args=[cst.Arg(lambda_)])
        needs = (*imports, *step_imports) if step is None else imports
        return RewriteCall(new, needs, RECORDING_NOTE)
    step = bound.get("step") or cst.parse_expression(global_step)
    args = [cst.Arg(bound["name"]), cst.Arg(bound["tensor"])]
    if name == "audio":
        args.append(cst.Arg(bound["sample_rate"]))
    args.append(keyword("step", step))
    if name == "image" and "max_images" in bound:
        args.append(keyword("max_outputs", bound["max_images"]))
    if name == "audio":
        args.append(keyword("max_outputs", bound["max_outputs"]))
    if name == "generic" and "metadata" in bound:
        args.append(keyword("metadata", bound["metadata"]))
    target = "summarylib.write" if name == "generic" else f"summarylib.{name}"
    new = cst.Call(func=cst.parse_expression(target), args=args)
    needs = (*imports, *step_imports) if "step" not in bound else imports
    return RewriteCall(new, needs, V2_NOTES.get(name, ""))
