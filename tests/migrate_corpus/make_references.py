"""Record what each original corpus program writes, run once by hand, with the real libraries:

    .venv/bin/python -m tests.migrate_corpus.make_references --tf-python /tmp/tfvenv/bin/python

TensorFlow programs run with --tf-python (a venv with `pip install tensorflow`, 2.21 here);
torch, tensorboardX and Lightning programs with this interpreter. Each logdir is kept as a
compact digest (see digest.py) in references/<program>.json. Three originals cannot run on any
TensorFlow that installs today: tf.contrib is gone since TF 2.0, and TF 2's
tf.compat.v1.summary.FileWriter refuses eager execution (both TF 1.x eager-style programs).
Their references are written from what those APIs documented (contrib: ops write at the
global step when recording is on; TF 1.x: one simple_value / histo / image per op per
merge_all), marked "documented".
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.migrate_corpus.digest import digest
from tests.migrate_corpus.notebook_script import notebook_script

HERE = Path(__file__).parent
PROGRAMS = HERE / "programs"
REFERENCES = HERE / "references"

TF_PROGRAMS = ["tf2_eager", "tf2_function", "tf1_graph", "aliases_formatting", "keras_callback"]
LOCAL_PROGRAMS = ["torch_writer", "tbx_writer", "lightning_loggers"]

DOCUMENTED = {
    # Recording every 2 global steps: ops at global steps 0, 2 and 4; then `final` at step 100.
    "contrib_eager": {
        ".": {
            "scalars/loss": [[0, 0.0], [2, 1.0], [4, 2.0]],
            "histograms/acts": [[0, [3.0, 0.0, 2.0]], [2, [3.0, 1.0, 2.0]], [4, [3.0, 1.0, 4.0]]],
            "scalars/final": [[100, 9.0]],
        }
    },
    # One value per op per merge_all, at the step given to add_summary; one image tagged
    # name/image (max_outputs=1).
    "tf1_eager_style": {
        ".": {
            "scalars/loss": [[0, 2.0], [1, 1.0], [2, 0.0]],
            "histograms/values": [[0, [3.0, 0.0, 2.0]], [1, [3.0, 1.0, 2.0]], [2, [3.0, 1.0, 2.0]]],
            "images/frame/image": [[0, 1], [1, 1], [2, 1]],
        }
    },
    # The op made before the loop goes into the first merge_all only (step 0); family "train"
    # makes the tag train/train/loss.
    "tf1_eager_kept": {
        ".": {
            "text/config": [[0, "lr=0.1"]],
            "scalars/train/train/loss": [[0, 1.0], [10, 0.5], [20, 0.33333]],
        }
    },
}


def run_program(python: str, name: str, logdir: str) -> None:
    """Run corpus program `name` (a .py, or the notebook's code cells) writing into `logdir`."""
    env = dict(os.environ, LOGDIR=logdir, KERAS_BACKEND=os.environ.get("KERAS_BACKEND", "tensorflow"))
    if name == "notebook":
        source = notebook_script((PROGRAMS / "notebook.ipynb").read_text())
        command = [python, "-c", source, logdir]
    else:
        command = [python, str(PROGRAMS / f"{name}.py"), logdir]
    subprocess.run(command, check=True, env=env, cwd=logdir)


def record(python: str, name: str, recorded_with: str) -> None:
    with tempfile.TemporaryDirectory() as logdir:
        run_program(python, name, logdir)
        data = digest(logdir)
    REFERENCES.mkdir(exist_ok=True)
    text = json.dumps({"recorded_with": recorded_with, "digest": data}, indent=1, sort_keys=True)
    (REFERENCES / f"{name}.json").write_text(text + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tf-python", required=True, help="python of a venv with tensorflow installed")
    parser.add_argument("programs", nargs="*", help="only these programs (default: all)")
    args = parser.parse_args()
    wanted = set(args.programs or [*TF_PROGRAMS, "notebook", *LOCAL_PROGRAMS, *DOCUMENTED])
    tf_version = subprocess.run(
        [args.tf_python, "-c", "import tensorflow as tf; print(tf.__version__)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    for name in [n for n in [*TF_PROGRAMS, "notebook"] if n in wanted]:
        record(args.tf_python, name, f"tensorflow {tf_version}")
    for name in [n for n in LOCAL_PROGRAMS if n in wanted]:
        record(sys.executable, name, "torch / tensorboardX / lightning from the project venv")
    for name, data in [(n, d) for n, d in DOCUMENTED.items() if n in wanted]:
        text = json.dumps({"recorded_with": "documented", "digest": data}, indent=1, sort_keys=True)
        (REFERENCES / f"{name}.json").write_text(text + "\n")


if __name__ == "__main__":
    main()
