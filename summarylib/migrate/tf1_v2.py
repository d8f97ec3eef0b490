"""`--to v2` rewrites of TF 1.x eager-style code, once tf1_loops found them mechanical: the
FileWriter becomes `summarylib.create_file_writer`, each op its v2 op (the step comes from the
default writer), and in each loop body the ops before `add_summary(merge_all(), step)` go into
`with writer.as_default(step=step):` while that statement goes.

The data TensorBoard shows is the same; the encodings are v2's, as each change's note says.
"""

from __future__ import annotations

import libcst as cst

from summarylib.migrate.calls import keyword
from summarylib.migrate.tf1_loops import V2_OPS, WRITER_PARAMETERS, Region

NOTES = {
    "FileWriter": (
        "v2 writer: event file named as TF 2 names it, defaults max_queue=1000 and flush every 2 s "
        "(TF 1.x: 10 and 120 s)"
    ),
    "scalar": "v2 writes a scalar tensor (TF 1.x: simple_value); the scalars dashboard shows both the same",
    "histogram": "v2 buckets histograms as TF 2 does (TF 1.x: exponential buckets)",
    "image": (
        "v2 writes the image plugin's tensor under the tag itself (TF 1.x: name/image/i, name/image "
        "when max_outputs is 1), float pixels as [0, 1] x 255 (TF 1.x: rescaled per image)"
    ),
    "text": "",
}
LOOP_NOTE = "the ops above write at this step to the default writer; merge_all and add_summary go"
RENAMED = {"tensor": "data", "values": "data", "flush_secs": "flush_millis"}
_EMPTY = cst.Module(body=[])
DROPPED = {"graph", "collections", "family"}  # only ever None here (tf1_loops checked)


def rewrite_call(symbol: str, call: cst.Call) -> tuple[cst.Call, str]:
    """The v2 call for a TF 1.x `symbol` call (FileWriter or an op), and its note. Arguments keep
    their spelling; `tensor`/`values` keywords become `data`, positional arguments after the
    second become keywords (the v2 op's third parameter is `step`), `flush_secs=S` becomes
    `flush_millis=S*1000`."""
    writer = symbol == "FileWriter"
    parameters = WRITER_PARAMETERS if writer else V2_OPS[symbol]
    args = []
    for position, arg in enumerate(call.args):
        name = arg.keyword.value if arg.keyword is not None else parameters[position]
        if name in DROPPED:
            continue
        if name == "flush_secs" and isinstance(arg.value, (cst.Integer, cst.Float)):  # tf1_loops: literals
            millis = round(float(arg.value.evaluated_value) * 1000)
            arg = arg.with_changes(value=cst.Integer(str(millis)))
        if arg.keyword is not None and name in RENAMED:
            arg = arg.with_changes(keyword=cst.Name(RENAMED[name]))
        elif arg.keyword is None and (position >= 2 or (writer and position >= 1)):
            arg = keyword(RENAMED.get(name, name), arg.value).with_changes(comma=arg.comma)
        args.append(arg)
    if args and call.args:
        args[-1] = args[-1].with_changes(comma=call.args[-1].comma)
    target = "summarylib.create_file_writer" if writer else f"summarylib.{symbol}"
    return call.with_changes(func=cst.parse_expression(target), args=args), NOTES[symbol]


def rewrite_body(block: cst.IndentedBlock, regions: list[Region]) -> cst.IndentedBlock:
    """`block` (a loop body) with each region's statements in `with writer.as_default(step=
    step):` and its add_summary statement gone. Comments above the first op stay above the
    `with`."""
    statements = list(block.body)
    for region in sorted(regions, key=lambda r: r.start, reverse=True):
        inner = statements[region.start : region.end]
        first = inner[0]
        # A block's statements are lines or compound statements: both carry leading_lines.
        assert isinstance(first, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
        writer = _EMPTY.code_for_node(region.writer)
        item = cst.parse_expression(f"{writer}.as_default(step={region.step.value})")
        with_ = cst.With(
            items=[cst.WithItem(item=item)],
            body=cst.IndentedBlock(body=[first.with_changes(leading_lines=[]), *inner[1:]]),
            leading_lines=first.leading_lines,
        )
        statements[region.start : region.end + 1] = [with_]
    return block.with_changes(body=statements)
