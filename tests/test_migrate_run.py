"""Migrated corpus programs run on summarylib and write what the originals wrote: the same
runs, tags, steps and values (digests of what TensorBoard's data access reads back) as the
reference logdirs recorded from the originals (tests/migrate_corpus/make_references.py).

No TensorFlow here. Programs that used TF only for summaries must run without it. Two still
use it for computation after migration (tf1_graph builds and runs a graph; contrib_eager calls
tf.enable_eager_execution()): they run against tests/migrate_corpus/fake_tf, a stand-in for
just that surface whose Session returns real serialized Summaries, as TF's does.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("libcst")

from summarylib.migrate.cli import main
from tests.migrate_corpus.digest import digest
from tests.migrate_corpus.notebook_script import notebook_script

CORPUS = Path(__file__).parent / "migrate_corpus"
PROGRAMS = CORPUS / "programs"
FAKE_TF = CORPUS / "fake_tf"
NEEDS_FAKE_TF = {"tf1_graph", "contrib_eager"}
# Keras's loss values depend on the backend's initialisation (the reference ran on TF, the
# migrated program runs on torch): for Keras, runs, tags and steps are compared, not values.
TAGS_AND_STEPS_ONLY = {"keras_callback"}
RUNNABLE = [
    "aliases_formatting",
    "contrib_eager",
    "keras_callback",
    "lightning_loggers",
    "notebook",
    "tbx_writer",
    "tf1_eager_kept",
    "tf1_eager_style",
    "tf1_graph",
    "tf2_eager",
    "torch_writer",
]


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The corpus migrated once per target by the command, as a user would."""
    out = {}
    for to in ("compat", "v2"):
        target = tmp_path_factory.mktemp(f"migrated_{to}")
        main(["--output-dir", str(target), "--to", to, "--report", str(target / "report.txt"), str(PROGRAMS)])
        out[to] = target / "programs"
    return out


def reference(name: str) -> dict:
    return json.loads((CORPUS / "references" / f"{name}.json").read_text())["digest"]


def run(program_dir: Path, name: str, logdir: Path) -> None:
    env = dict(os.environ, LOGDIR=str(logdir), KERAS_BACKEND="torch")
    if name in NEEDS_FAKE_TF:
        env["PYTHONPATH"] = os.pathsep.join([str(FAKE_TF), env.get("PYTHONPATH", "")])
    if name == "notebook":
        command = [sys.executable, "-c", notebook_script((program_dir / "notebook.ipynb").read_text())]
    else:
        command = [sys.executable, str(program_dir / f"{name}.py"), str(logdir)]
    subprocess.run(command, check=True, env=env, cwd=logdir, timeout=300)


def tags_and_steps(data: dict) -> dict:
    return {
        run: {tag: [step for step, _ in points] for tag, points in tags.items()} for run, tags in data.items()
    }


@pytest.mark.parametrize("name", RUNNABLE)
@pytest.mark.slow
def test_migrated_program_writes_what_the_original_wrote(migrated: dict, name: str, tmp_path: Path) -> None:
    run(migrated["compat"], name, tmp_path)
    written, expected = digest(str(tmp_path)), reference(name)
    if name in TAGS_AND_STEPS_ONLY:
        assert tags_and_steps(written) == tags_and_steps(expected)
    else:
        assert written == expected


@pytest.mark.parametrize("name", ["contrib_eager", "tf1_eager_style", "torch_writer"])
@pytest.mark.slow
def test_v2_migration_writes_the_same_scalars(migrated: dict, name: str, tmp_path: Path) -> None:
    run(migrated["v2"], name, tmp_path)

    def scalars(data: dict) -> dict:
        return {r: {t: p for t, p in tags.items() if t.startswith("scalars/")} for r, tags in data.items()}

    assert scalars(digest(str(tmp_path))) == scalars(reference(name))


# --to v2 of TF 1.x eager-style code writes v2's encodings. TensorBoard reads v1's simple_value
# and v2's scalar tensor, and v1's histo and v2's histogram tensor, as the same points; the
# image plugin's tag is the one difference: TF 1.x tagged the image name/image (name/image/i
# with several), v2 tags it name. tf1_eager_kept is not mechanical and stays on compat: no
# difference at all.
V2_RENAMED_TAGS = {
    "tf1_eager_style": {"images/frame/image": "images/frame"},
    "tf1_eager_kept": {},
}


@pytest.mark.parametrize("name", sorted(V2_RENAMED_TAGS))
@pytest.mark.slow
def test_tf1_eager_v2_migration_writes_the_same_data(migrated: dict, name: str, tmp_path: Path) -> None:
    run(migrated["v2"], name, tmp_path)
    renamed = V2_RENAMED_TAGS[name]
    expected = {
        run: {renamed.get(tag, tag): points for tag, points in tags.items()}
        for run, tags in reference(name).items()
    }
    assert digest(str(tmp_path)) == expected


@pytest.mark.parametrize("name", sorted(set(RUNNABLE) - NEEDS_FAKE_TF - {"notebook"}))
def test_programs_that_used_tf_only_for_summaries_no_longer_import_it(migrated: dict, name: str) -> None:
    tree = ast.parse((migrated["compat"] / f"{name}.py").read_text())
    modules = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    modules += [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert not [m for m in modules if m.split(".")[0] in ("tensorflow", "torch", "tensorboardX")]


# The corpus programs whose calls are left for a person, by design.
LISTED = ("tf2_function.py", "keras_train_step.py", "torch_surface.py", "tf2_trace.py")


def test_the_command_over_the_whole_corpus(migrated: dict, tmp_path: Path, capsys) -> None:
    report = (migrated["compat"].parent / "report.txt").read_text()
    assert "LEFT" in report and all(
        any(
            name in line
            for name in ("tf2_function.py", "keras_train_step.py", "torch_surface.py", "tf2_trace.py")
        )
        for line in report.splitlines()
        if "LEFT" in line
    )
    assert "decided: TF 1.x graph code" in report and "decided: TF 1.x eager-style code" in report
    assert report.rstrip().endswith("21 files, 66 changes, 12 calls left for a person, 0 not parsed")
    # --to v2: TF 1.x eager-style loops move where mechanical; the rest is listed with its reason.
    v2_report = (migrated["v2"].parent / "report.txt").read_text()
    assert "--to v2: each merge_all loop moves to the v2 API" in v2_report
    kept = [line for line in v2_report.splitlines() if "LEFT" in line and "tf1_eager" in line]
    assert len(kept) == 4 and all("tf1_eager_kept.py" in line for line in kept)
    # Other files are copied; the originals are untouched by --output-dir.
    assert (migrated["compat"] / "tf2_function.py").read_text() == (PROGRAMS / "tf2_function.py").read_text()
    # The status: 1 with the tf.function file (calls left), 0 without it; a rerun changes
    # nothing and reports every call left for a person again (the drop-in's too).
    assert main([str(PROGRAMS)]) == 1
    assert main([str(PROGRAMS / "tf2_eager.py"), str(PROGRAMS / "notebook.ipynb")]) == 0
    capsys.readouterr()
    assert main([str(migrated["compat"])]) == 1
    rerun = capsys.readouterr().out
    assert "changed" not in rerun and rerun.count("LEFT") == 12


@pytest.mark.slow
def test_a_tf1_logger_building_histogram_protos_runs_migrated(migrated: dict, tmp_path: Path) -> None:
    """Every proto the logger builds moves (HistogramProto with Summary.Value): it runs without
    TensorFlow and TensorBoard reads its histograms back."""
    from tensorboard.backend.event_processing import event_accumulator

    program = migrated["compat"] / "tf1_histogram_logger.py"
    assert "tensorflow" not in program.read_text()
    subprocess.run([sys.executable, str(program), str(tmp_path)], check=True, cwd=tmp_path)
    accumulator = event_accumulator.EventAccumulator(str(tmp_path), size_guidance={"histograms": 0})
    accumulator.Reload()
    events = accumulator.Histograms("weights")
    assert [e.step for e in events] == [0, 1, 2]
    assert [e.histogram_value.max for e in events] == [9.0, 18.0, 27.0]
    assert events[2].histogram_value.num == 10


@pytest.mark.parametrize(("name", "step", "value"), [("colab_form", 0, 0.5), ("future_cell", 1, 0.25)])
@pytest.mark.slow
def test_a_migrated_notebook_runs_without_tensorflow(
    migrated: dict, tmp_path: Path, name: str, step: int, value: float
) -> None:
    """The imports went where the notebook runs them (not into the form cell, not above
    `from __future__`): its cells as one script run and write the scalar TensorBoard reads."""
    from tensorboard.backend.event_processing import event_accumulator
    from tensorboard.util import tensor_util

    script = notebook_script((migrated["compat"] / f"{name}.ipynb").read_text())
    assert "tensorflow" not in script
    env = dict(os.environ, LOGDIR=str(tmp_path))
    subprocess.run([sys.executable, "-c", script], check=True, env=env, cwd=tmp_path)
    accumulator = event_accumulator.EventAccumulator(str(tmp_path), size_guidance={"tensors": 0})
    accumulator.Reload()
    events = accumulator.Tensors("loss")
    assert [(e.step, float(tensor_util.make_ndarray(e.tensor_proto))) for e in events] == [(step, value)]


@pytest.mark.slow
def test_migrated_hparams_api_runs_without_tensorflow_and_writes_the_hparams(
    migrated: dict, tmp_path: Path
) -> None:
    """hp.* moved with the writer: the program runs on summarylib alone, and each run holds the
    hparams plugin's session start with its values, as TensorBoard reads it."""
    from tensorboard.backend.event_processing import event_accumulator
    from tensorboard.plugins.hparams import plugin_data_pb2

    program = migrated["compat"] / "tf2_hparams.py"
    subprocess.run([sys.executable, str(program), str(tmp_path)], check=True, cwd=tmp_path)
    seen = {}
    for run in ("run-0", "run-1"):
        accumulator = event_accumulator.EventAccumulator(str(tmp_path / run))
        accumulator.Reload()
        content = accumulator.PluginTagToContent("hparams")["_hparams_/session_start_info"]
        start = plugin_data_pb2.HParamsPluginData.FromString(content).session_start_info
        seen[run] = (start.hparams["lr"].number_value, start.hparams["optimizer"].string_value)
    assert seen == {"run-0": (0.01, "adam"), "run-1": (0.1, "sgd")}
