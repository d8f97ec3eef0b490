"""The migration script's source-to-source contract over the corpus in tests/migrate_corpus:
golden diffs, migrated code that parses, idempotence, and the decisions the report states."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("libcst")

from summarylib.migrate import migrate_source
from summarylib.migrate.cli import _diff, main, migrate_file
from summarylib.migrate.notebooks import migrate_notebook
from tests.migrate_corpus.notebook_script import notebook_script

CORPUS = Path(__file__).parent / "migrate_corpus"
PROGRAMS = CORPUS / "programs"
GOLDEN = CORPUS / "golden"
NAMES = sorted(p.name for p in PROGRAMS.iterdir() if p.suffix in (".py", ".ipynb"))
CASES = [(name, "compat") for name in NAMES] + [
    ("contrib_eager.py", "v2"),
    ("contrib_global_step.py", "v2"),
    ("tf1_eager_kept.py", "v2"),
    ("tf1_eager_style.py", "v2"),
    ("torch_writer.py", "v2"),
]


def golden_path(name: str, to: str) -> Path:
    return GOLDEN / f"{name}.{to}.diff"


def migrated_diff(name: str, to: str) -> str:
    path = PROGRAMS / name
    result = migrate_file(path, to)
    return _diff(name, path.read_text(), result.source)


@pytest.mark.parametrize(("name", "to"), CASES)
def test_migrated_source_matches_the_golden_diff(name: str, to: str) -> None:
    assert migrated_diff(name, to) == golden_path(name, to).read_text()


@pytest.mark.parametrize(("name", "to"), CASES)
def test_migrated_source_parses_and_a_second_run_changes_nothing(name: str, to: str) -> None:
    first = migrate_file(PROGRAMS / name, to)
    code = notebook_script(first.source) if name.endswith(".ipynb") else first.source
    compile(code, name, "exec")
    if name.endswith(".ipynb"):
        second = migrate_notebook(first.source, name, to)
    else:
        second = migrate_source(first.source, name, to)
    assert second.source == first.source
    assert second.report.changes == []


def test_untouched_code_prints_back_byte_identical() -> None:
    source = "import numpy as np  # keep\nx = np.zeros(3)   ;  y = x\n"
    assert migrate_source(source).source == source


def test_tf1_graph_keeps_its_summary_ops_and_moves_the_writer() -> None:
    result = migrate_file(PROGRAMS / "tf1_graph.py", "compat")
    assert "tf.summary.scalar(" in result.source and "tf.summary.merge_all()" in result.source
    assert "summarylib.compat.v1.FileWriter(logdir)" in result.source
    assert "import tensorflow.compat.v1 as tf" in result.source  # still used: not removed
    assert any("graph code" in style for style in result.report.styles)


def test_tf1_eager_style_is_decided_and_explained() -> None:
    result = migrate_file(PROGRAMS / "tf1_eager_style.py", "compat")
    assert "tensorflow" not in result.source
    assert any("eager-style" in style for style in result.report.styles)


def test_tf1_eager_style_v2_moves_the_loop_onto_a_default_writer() -> None:
    result = migrate_file(PROGRAMS / "tf1_eager_style.py", "v2")
    assert "summarylib.compat" not in result.source and "merge_all()" not in result.source
    assert "    with writer.as_default(step=step):\n        summarylib.scalar(" in result.source
    assert result.report.left == []
    notes = {change.before.split("(")[0]: change.note for change in result.report.changes}
    assert "name/image" in notes["tf.summary.image"] and "simple_value" in notes["tf.summary.scalar"]


def test_tf1_eager_kept_v2_lists_each_call_with_its_reason() -> None:
    result = migrate_file(PROGRAMS / "tf1_eager_kept.py", "v2")
    assert result.source == migrate_file(PROGRAMS / "tf1_eager_kept.py", "compat").source
    reasons = {left.where.rpartition(":")[2]: left.reason for left in result.report.left}
    assert set(reasons) == {"9", "10", "12", "13"}  # the FileWriter too: kept on compat.v1
    assert "outside the loop" in reasons["10"] and "family=" in reasons["12"]
    assert "not a simple name" in reasons["13"]
    assert any("not mechanical here (line 10" in style for style in result.report.styles)


TF1_HEAD = "import tensorflow as tf\nw = tf.summary.FileWriter(d)\n"
TF1_LOOP = "for s in r:\n    tf.summary.scalar('a', 1.0)\n    w.add_summary(tf.summary.merge_all(), s)\n"


@pytest.mark.parametrize(
    ("source", "line", "reason"),
    [
        (TF1_HEAD + "f = lambda: 1.0\ntf.summary.scalar('lr', f)\n" + TF1_LOOP, 4, "outside the loop"),
        (TF1_HEAD + TF1_LOOP.replace("1.0)", "1.0, collections=['c'])"), 4, "collections="),
        (TF1_HEAD + TF1_LOOP.replace("    tf.summary.scalar", "    x = tf.summary.scalar"), 4, "as a value"),
        (TF1_HEAD + TF1_LOOP.replace("merge_all()", "merge([m])"), 5, "subset"),
        (TF1_HEAD + TF1_LOOP.replace("), s)", "), s[0])"), 5, "not a simple name"),
        (TF1_HEAD + TF1_LOOP + "    tf.summary.scalar('b', 2.0)\n", 6, "next step"),
        (TF1_HEAD + TF1_LOOP.replace("    w.add", "    if s: continue\n    w.add"), 5, "continue"),
        (TF1_HEAD + TF1_LOOP.replace("    w.add", "    s += 1\n    w.add"), 5, "assigned"),
        (TF1_HEAD + TF1_LOOP + "w.add_graph(g)\n", 6, "used other than"),
        (TF1_HEAD.replace("(d)", "(d, graph=g)") + TF1_LOOP, 2, "graph="),
        (TF1_HEAD.replace("w =", "self.w =") + TF1_LOOP.replace(" w.", " self.w."), 2, "simple name"),
        (TF1_HEAD + TF1_LOOP.replace("scalar('a', 1.0)", "audio('a', x, 8000)"), 4, "[k, t]"),
        (TF1_HEAD.replace("FileWriter(d)", "FileWriterCache.get(d)") + TF1_LOOP, 2, "FileWriterCache"),
    ],
)
def test_tf1_v2_not_mechanical_keeps_the_file_on_compat(source: str, line: int, reason: str) -> None:
    result = migrate_source(source, "t.py", "v2")
    assert result.source == migrate_source(source, "t.py", "compat").source
    # Each op is listed: with its own reason, or with the first problem of the file.
    assert result.report.left and all("--to v2: kept" in left.reason for left in result.report.left)
    reasons = {left.where: left.reason for left in result.report.left}
    own = reasons.get(f"t.py:{line}", "")
    assert reason in own or any(f"line {line}: " in r and reason in r for r in reasons.values()), reasons


def test_tf1_v2_mechanical_variants() -> None:
    source = (
        "import numpy as np\n"
        "import tensorflow as tf\n"
        "with tf.summary.FileWriter(d, None, 5, 30, filename_suffix='.x') as w:\n"
        "    i = 0\n"
        "    while i < 3:\n"
        "        i += 1\n"
        "        # a comment above the ops\n"
        "        tf.summary.image('im', np.zeros((2, 4, 4, 3)), 2)\n"
        "        if i % 2:\n"
        "            tf.summary.histogram(name='h', values=[i])\n"
        "        w.add_summary(tf.summary.merge_all(), global_step=i)\n"
        "        tf.summary.text('t', 'x', None)\n"
        "        w.add_summary(tf.summary.merge_all(), i)\n"
        "        w.flush()\n"
    )
    result = migrate_source(source, "t.py", "v2")
    assert result.source == (
        "import numpy as np\n"
        "import summarylib\n"
        "\n"
        "with summarylib.create_file_writer(d, max_queue=5, flush_millis=30000, filename_suffix='.x') as w:\n"
        "    i = 0\n"
        "    while i < 3:\n"
        "        i += 1\n"
        "        # a comment above the ops\n"
        "        with w.as_default(step=i):\n"
        "            summarylib.image('im', np.zeros((2, 4, 4, 3)), max_outputs=2)\n"
        "            if i % 2:\n"
        "                summarylib.histogram(name='h', data=[i])\n"
        "        with w.as_default(step=i):\n"
        "            summarylib.text('t', 'x')\n"
        "        w.flush()\n"
    )
    assert result.report.left == []
    assert migrate_source(result.source, "t.py", "v2").source == result.source


def test_tf_function_summaries_are_left_with_a_reason() -> None:
    result = migrate_file(PROGRAMS / "tf2_function.py", "compat")
    assert result.source == (PROGRAMS / "tf2_function.py").read_text()
    reasons = {left.where.rpartition(":")[2]: left.reason for left in result.report.left}
    assert "tf.function" in reasons["14"] and "symbolic" in reasons["14"]
    assert set(reasons) == {"8", "14", "21"}


def test_contrib_v2_call_without_a_v2_form_stays_on_compat_and_is_listed() -> None:
    source = "import tensorflow as tf\ntf.contrib.summary.scalar('a', 1.0, family='f')\n"
    result = migrate_source(source, "t.py", "v2")
    assert "summarylib.compat.contrib.scalar('a', 1.0, family='f')" in result.source
    assert [left.where for left in result.report.left] == ["t.py:2"]


def test_contrib_v2_every_n_with_an_expression_keeps_precedence() -> None:
    source = (
        "import tensorflow as tf\n"
        "with tf.contrib.summary.record_summaries_every_n_global_steps(a + 1, global_step=gs):\n"
        "    pass\n"
    )
    result = migrate_source(source, "t.py", "v2")
    assert "summarylib.record_if(lambda: int(gs) % (a + 1) == 0)" in result.source


def test_from_imports_keep_their_local_names() -> None:
    source = "from tensorboardX import SummaryWriter\nfrom keras.callbacks import TensorBoard as TB\n"
    result = migrate_source(source)
    assert result.source == (
        "from summarylib.compat.tensorboardX import SummaryWriter\n"
        "from summarylib.integrations.keras import TensorBoard as TB\n"
    )


def test_a_file_that_does_not_parse_is_named_and_left_untouched(tmp_path: Path, capsys) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("import tensorflow as tf\ndef (:\n")
    assert main(["--in-place", str(broken)]) == 2
    assert broken.read_text() == "import tensorflow as tf\ndef (:\n"
    out = capsys.readouterr().out
    assert f"== {broken}" in out and "not parsed" in out


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert main([]) == 2
    assert main(["--to", "v3", str(tmp_path)]) == 2
    assert main([str(tmp_path / "missing.py")]) == 2


def test_json_report(tmp_path: Path, capsys) -> None:
    assert main(["--json", str(PROGRAMS / "tbx_writer.py")]) == 0
    files = json.loads(capsys.readouterr().out)["files"]
    assert files[0]["changes"][0]["after"] == "summarylib.compat.tensorboardX.SummaryWriter"
    assert files[0]["diff"].startswith("--- a/")


@pytest.mark.slow
def test_missing_libcst_names_the_extra() -> None:
    """Without libcst, the library's names raise an ImportError naming the extra (importing
    the package itself works, so that the command can say it: tests/test_migrate_faults.py)."""
    code = (
        "import sys; sys.modules['libcst'] = None\n"
        "import summarylib.migrate\n"
        "try:\n    from summarylib.migrate import migrate_source\nexcept ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "pip install -e '.[migrate]'" in out


# Multi-file projects, where what a module is depends on the modules beside it.
PROJECTS = CORPUS / "projects"
TF1_PROJECT = PROJECTS / "tf1_project"


@pytest.mark.parametrize("name", ["model.py", "layers.py"])
def test_tf1_graph_module_without_a_session_keeps_its_ops_for_merge_all(name: str) -> None:
    """model.py builds a graph (get_variable, AdamOptimizer); layers.py says nothing, but
    train.py beside it merges with merge_all: their ops stay TF ops so merge_all finds them."""
    path = TF1_PROJECT / name
    result = migrate_file(path, "compat")
    assert result.source == path.read_text()
    assert "summarylib" not in result.source and result.report.left == []


def test_tf1_project_moves_only_the_writer(tmp_path: Path, capsys) -> None:
    assert main([str(TF1_PROJECT)]) == 0
    out = capsys.readouterr().out
    assert "summarylib.compat.v1.FileWriter(logdir, sess.graph)" in out
    assert "summarylib.scalar" not in out and "summarylib.histogram" not in out


def test_summary_ops_with_no_writer_and_no_evidence_are_left_and_listed(capsys) -> None:
    path = PROJECTS / "unsure_project" / "metrics.py"
    result = migrate_file(path, "compat")
    assert result.source == path.read_text()
    assert [left.where.rpartition(":")[2] for left in result.report.left] == ["7"]
    assert "TF 1.x or TF 2" in result.report.left[0].reason
    assert main([str(path)]) == 1


def test_a_method_of_a_moved_call_is_not_listed_as_left() -> None:
    source = (
        "import tensorflow as tf\n"
        "with tf.summary.create_file_writer(d).as_default():\n"
        "    tf.summary.scalar('a', 1.0, step=1)\n"
    )
    result = migrate_source(source, "t.py")
    assert "with summarylib.create_file_writer(d).as_default():" in result.source
    assert result.report.left == []


@pytest.mark.parametrize(
    ("name", "lines"), [("tf1_graph.py", {"16", "20"}), ("tf1_eager_kept.py", {"9", "10", "12", "13"})]
)
def test_v2_lists_every_call_kept_on_compat_v1_and_exits_1(name: str, lines: set, capsys) -> None:
    result = migrate_file(PROGRAMS / name, "v2")
    kept = {c.where.rpartition(":")[2] for c in result.report.changes if "compat.v1" in c.after}
    listed = {left.where.rpartition(":")[2] for left in result.report.left if "compat.v1" in left.code}
    assert kept == listed == lines
    assert all("--to v2: kept on summarylib.compat.v1" in left.reason for left in result.report.left)
    assert main(["--to", "v2", str(PROGRAMS / name)]) == 1


def test_tf1_protos_stay_together_when_one_has_no_equivalent() -> None:
    """A TensorFlow TensorProto cannot go into a summarylib Summary: the protos stay TF's, listed."""
    source = (
        "import tensorflow as tf\n"
        "w = tf.summary.FileWriter(d)\n"
        "t = tf.make_tensor_proto([1.0])\n"
        "w.add_summary(tf.Summary(value=[tf.Summary.Value(tag='t', tensor=t)]), 1)\n"
    )
    result = migrate_source(source, "t.py")
    assert "tf.Summary(value=[tf.Summary.Value(tag='t', tensor=t)])" in result.source
    assert "summarylib.compat.v1.FileWriter(d)" in result.source
    codes = sorted(left.code.partition("(")[0] for left in result.report.left)
    assert codes == ["tf.Summary", "tf.Summary.Value"]
    assert all("line 3 uses make_tensor_proto" in left.reason for left in result.report.left)


def test_keras_train_step_summaries_are_traced_code_and_left() -> None:
    result = migrate_file(PROGRAMS / "keras_train_step.py", "compat")
    assert result.source == (PROGRAMS / "keras_train_step.py").read_text()
    reasons = {left.where.rpartition(":")[2]: left.reason for left in result.report.left}
    assert set(reasons) == {"14", "20", "24"}
    assert "train_step" in reasons["14"] and "symbolic" in reasons["20"]
    assert "default writer" in reasons["24"]


def test_a_writer_move_lists_the_calls_the_drop_in_lacks_and_drops_the_unused_import() -> None:
    result = migrate_file(PROGRAMS / "torch_surface.py", "compat")
    assert "import torch.utils.tensorboard\n" not in result.source and "import torch\n" in result.source
    reasons = {left.where.rpartition(":")[2]: left.reason for left in result.report.left}
    assert set(reasons) == {"10", "11"}  # add_scalar(new_style=True) is accepted
    assert "add_onnx_graph is not supported" in reasons["10"]
    assert "add_scalar has no argument precision" in reasons["11"]
    assert main([str(PROGRAMS / "torch_surface.py")]) == 1


@pytest.mark.parametrize("name", ["colab_form.ipynb", "future_cell.ipynb"])
def test_a_notebook_keeps_its_json_style_and_changes_only_the_cells_it_migrates(name: str) -> None:
    path = PROGRAMS / name
    before, after = path.read_text(), migrate_file(path, "compat").source
    assert after.endswith("\n") == before.endswith("\n")
    old, new = json.loads(before), json.loads(after)
    assert list(new) == list(old) and new["metadata"] == old["metadata"]
    changed_lines = set()
    for cell_before, cell_after in zip(old["cells"], new["cells"], strict=True):
        source = "".join(cell_before["source"])
        if source != "".join(cell_after["source"]):
            assert "".join(cell_after["source"]).endswith("\n") == source.endswith("\n")
            assert not source.lstrip().startswith("#@title")
            changed_lines |= {json.dumps(line) for line in cell_before["source"]}
    # Everything else prints back byte for byte: the diff removes only changed cells' lines.
    diff = migrated_diff(name, "compat").splitlines()[2:]
    removed = [line[1:].strip().rstrip(",") for line in diff if line.startswith("-")]
    assert removed and set(removed) <= changed_lines, removed
    code = notebook_script(after)
    assert code.index("import summarylib\n") > code.find("from __future__")


@pytest.mark.parametrize("to", ["compat", "v2"])
def test_contrib_global_step_handed_to_tensorflow_stays_tensorflows_and_is_passed(to: str) -> None:
    result = migrate_file(PROGRAMS / "contrib_global_step.py", to)
    source = result.source
    assert "global_step = tf.train.create_global_step()" in source
    assert "summarylib.compat.contrib.get_or_create_global_step" not in source
    assert "0.5 * i, step=tf.train.get_or_create_global_step())" in source
    assert "weight, step=i)" in source
    assert any("stays TensorFlow's" in style for style in result.report.styles)


def test_tracing_keeps_the_default_writer_on_tensorflow_and_says_so() -> None:
    result = migrate_file(PROGRAMS / "tf2_trace.py", "compat")
    assert result.source == (PROGRAMS / "tf2_trace.py").read_text()
    reasons = {left.where.rpartition(":")[2]: left.reason for left in result.report.left}
    assert {"14", "15", "18", "19"} <= set(reasons)
    assert "trace_on at line 15" in reasons["14"] and "trace_on at line 15" in reasons["19"]
    assert any("stay on TensorFlow" in style for style in result.report.styles)
    assert main([str(PROGRAMS / "tf2_trace.py")]) == 1


def test_hparams_api_moves_with_the_writer() -> None:
    result = migrate_file(PROGRAMS / "tf2_hparams.py", "compat")
    assert "tensorboard" not in result.source and "tensorflow" not in result.source
    assert 'summarylib.hparams.HParam("lr", summarylib.hparams.RealInterval(0.001, 0.1))' in result.source
    assert "summarylib.hparams.hparams({HP_LR: lr, HP_OPT: opt})" in result.source
    assert result.report.left == []


def _migrate_command(*arguments: str) -> subprocess.CompletedProcess:
    """`python -m summarylib.migrate ARGUMENTS` in a real subprocess."""
    command = [sys.executable, "-m", "summarylib.migrate", *arguments]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def test_a_folder_without_python_files_says_there_is_nothing_to_migrate(tmp_path):
    (tmp_path / "notes.txt").write_text("no code here\n")
    result = _migrate_command(str(tmp_path))
    assert result.returncode == 0
    assert "nothing to migrate: no .py or .ipynb file in" in result.stderr
    assert result.stdout.rstrip().endswith("0 files, 0 changes, 0 calls left for a person, 0 not parsed")


def test_one_file_is_counted_as_one_file(tmp_path):
    (tmp_path / "train.py").write_text("import tensorflow as tf\ntf.summary.scalar('x', 1.0, step=0)\n")
    assert "\n1 file, " in _migrate_command(str(tmp_path)).stdout
