"""`python -m summarylib.migrate` never harms a file, tested as a user meets it: real
subprocesses on real trees with real faults (a file size limit hit mid-write, SIGKILL at
the rename, editor lock links, dangling links, link loops, FIFOs, immutable files, files in
latin-1, CRLF and with a BOM). Afterwards each file is byte-compared with the original or
with its full migration, and no temporary file is left behind."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("libcst")

from summarylib.migrate import migrate_source

TF2 = (
    "import tensorflow as tf\n"
    "\n"
    'writer = tf.summary.create_file_writer("logs")\n'
    "with writer.as_default():\n"
    '    tf.summary.scalar("loss", 0.5, step=1)\n'
)
MIGRATED = migrate_source(TF2).source
TEMPORARY = ".summarylib-migrate.tmp"


def migrate(*args: str, timeout: float = 120, **kwargs) -> subprocess.CompletedProcess[str]:
    """The command in a child process, as a user runs it."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-m", "summarylib.migrate", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env, **kwargs)


def files(root: Path) -> dict[str, bytes]:
    """Every regular file under `root` (links not followed), by relative path, with its bytes."""
    found = {}
    for directory, _, names in os.walk(root):
        for name in names:
            path = Path(directory) / name
            if path.is_file() and not path.is_symlink():
                found[str(path.relative_to(root))] = path.read_bytes()
    return found


def test_a_full_disk_leaves_the_file_as_it_was_and_the_run_goes_on(tmp_path: Path) -> None:
    """RLIMIT_FSIZE below the size of one file: its write fails (EFBIG) part-way; that file
    stays byte-identical, the others are fully migrated, with their mode and owner."""
    big = TF2 + "# padding\n" * 20_000  # 200 kB, over the limit
    (tmp_path / "big.py").write_text(big)
    small = tmp_path / "small.py"
    small.write_text(TF2)
    small.chmod(0o640)
    os.chown(small, 1234, 4321)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG, not death, as with ENOSPC

    result = migrate("--in-place", str(tmp_path), preexec_fn=limit)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert files(tmp_path) == {"big.py": big.encode(), "small.py": MIGRATED.encode()}
    status = small.stat()
    assert (status.st_mode & 0o7777, status.st_uid, status.st_gid) == (0o640, 1234, 4321)
    assert f"== {tmp_path / 'big.py'}\n  left untouched: not written: File too large (EFBIG)" in result.stdout


# Run the command with each os.replace after the first blocked (a marker file says it is
# there), so that the test can SIGKILL it with the second file's migration written but not
# yet renamed over the original.
PAUSED_AT_RENAME = """
import os, runpy, sys, time
marker, real, calls = sys.argv.pop(1), os.replace, []
def replace(*args, **kwargs):
    calls.append(args)
    if len(calls) > 1:
        open(marker, "w").close()
        time.sleep(600)
    return real(*args, **kwargs)
os.replace = replace
sys.argv[0] = "summarylib.migrate"
runpy.run_module("summarylib.migrate", run_name="__main__")
"""


def test_sigkill_at_the_write_leaves_each_file_as_it_was_or_fully_migrated(tmp_path: Path) -> None:
    tree = tmp_path / "src"
    tree.mkdir()
    for name in ("a.py", "b.py", "c.py"):
        (tree / name).write_text(TF2)
    marker = tmp_path / "paused"
    command = [sys.executable, "-c", PAUSED_AT_RENAME, str(marker), "--in-place", str(tree)]
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not marker.exists() and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    child.kill()
    child.wait()
    assert marker.exists(), f"never renamed a second file into place: {child.stderr.read()!r}"
    child.stderr.close()
    after = files(tree)
    temporary = [name for name in after if name.endswith(TEMPORARY)]
    assert len(temporary) == 1 and temporary[0].startswith(".b.py.")
    assert after[temporary[0]] == MIGRATED.encode()  # complete, synced, not yet renamed
    assert {name: after[name] for name in ("a.py", "b.py", "c.py")} == {
        "a.py": MIGRATED.encode(),
        "b.py": TF2.encode(),
        "c.py": TF2.encode(),
    }
    # The leftover is no source: a second run migrates the rest and leaves it alone.
    assert migrate("--in-place", str(tree)).returncode == 0
    assert files(tree) == {
        "a.py": MIGRATED.encode(),
        "b.py": MIGRATED.encode(),
        "c.py": MIGRATED.encode(),
        **{temporary[0]: MIGRATED.encode()},
    }


def _immutable(path: Path) -> bool:
    """Make `path` immutable (chattr +i, as root); False where the filesystem cannot."""
    return subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode == 0


def test_bad_files_are_reported_left_byte_identical_and_the_run_goes_on(tmp_path: Path) -> None:
    tree = tmp_path / "src"
    tree.mkdir()
    (tree / "ok.py").write_text(TF2)
    os.symlink("root@host.1234:1700000000", tree / ".#ok.py")  # Emacs's lock file
    os.symlink("missing.py", tree / "dangling.py")
    os.symlink("ok.py", tree / "link.py")
    os.mkfifo(tree / "fifo.py")
    (tree / "dir.py").mkdir()
    (tree / "dir.py" / "inner.py").write_text(TF2)
    (tree / "wrong.py").write_bytes(b'x = "\xff"\n' + TF2.encode())
    immutable = tree / "immutable.py"
    immutable.write_text(TF2)
    chattr = _immutable(immutable)
    try:
        result = migrate("--in-place", str(tree), timeout=60)
    finally:
        subprocess.run(["chattr", "-i", str(immutable)], capture_output=True)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    expected = {
        "ok.py": MIGRATED.encode(),
        "dir.py/inner.py": MIGRATED.encode(),
        "wrong.py": b'x = "\xff"\n' + TF2.encode(),
        "immutable.py": (TF2 if chattr else MIGRATED).encode(),
    }
    assert files(tree) == expected
    assert os.readlink(tree / ".#ok.py") == "root@host.1234:1700000000"
    assert os.readlink(tree / "link.py") == "ok.py"
    report = result.stdout
    for name, why in [
        (".#ok.py", "left untouched: a broken symbolic link"),
        ("dangling.py", "left untouched: a broken symbolic link"),
        ("fifo.py", "left untouched: not a regular file (a FIFO)"),
        ("wrong.py", "left untouched: not readable in its encoding"),
        ("link.py", "skipped: a symbolic link (to ok.py), not followed"),
    ]:
        assert f"== {tree / name}\n  {why}" in report
    if not chattr:
        pytest.skip("chattr +i is not supported here: the immutable file was not tested")
    assert (
        f"== {tree / 'immutable.py'}\n  left untouched: not written: Operation not permitted (EPERM)"
        in report
    )


def test_encodings_and_line_endings_are_kept_byte_for_byte(tmp_path: Path) -> None:
    """latin-1 by its coding cookie, CRLF, a UTF-8 BOM: only the migrated lines differ."""
    latin1 = "# -*- coding: latin-1 -*-\n# café\n" + TF2
    (tmp_path / "latin1.py").write_bytes(latin1.encode("latin-1"))
    (tmp_path / "crlf.py").write_bytes(TF2.replace("\n", "\r\n").encode())
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbf" + TF2.encode())
    result = migrate("--in-place", str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert files(tmp_path) == {
        "latin1.py": migrate_source(latin1).source.encode("latin-1"),
        "crlf.py": MIGRATED.replace("\n", "\r\n").encode(),
        "bom.py": b"\xef\xbb\xbf" + MIGRATED.encode(),
    }


def test_link_loops_are_not_followed(tmp_path: Path) -> None:
    """Two loops made the walk exponential; one migrated nested copies of each file."""
    tree = tmp_path / "src"
    tree.mkdir()
    (tree / "a.py").write_text(TF2)
    os.symlink(".", tree / "l1")
    os.symlink(".", tree / "l2")
    result = migrate("--in-place", str(tree), timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("== ") == 1
    assert files(tree) == {"a.py": MIGRATED.encode()}


def test_the_output_directory_inside_the_tree_is_not_migrated_again(tmp_path: Path) -> None:
    tree = tmp_path / "src"
    tree.mkdir()
    (tree / "a.py").write_text(TF2)
    out = tree / "migrated"
    for _ in range(2):
        result = migrate("--output-dir", str(out), str(tree))
        assert result.returncode == 0, result.stdout + result.stderr
        assert result.stdout.count("== ") == 1
    assert files(tree) == {"a.py": TF2.encode(), "migrated/src/a.py": MIGRATED.encode()}


# A child in which `import libcst` fails for real: a meta path finder refusing it.
WITHOUT_LIBCST = """
import runpy, sys
class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "libcst":
            raise ImportError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Refuse())
sys.argv[0] = "summarylib.migrate"
runpy.run_module("summarylib.migrate", run_name="__main__")
"""


@pytest.mark.parametrize("args", [["--help"], ["--in-place", "train.py"]])
def test_without_libcst_the_command_names_the_extra(tmp_path: Path, args: list[str]) -> None:
    (tmp_path / "train.py").write_text(TF2)
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_LIBCST, *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "pip install -e '.[migrate]'" in result.stderr
    assert (tmp_path / "train.py").read_text() == TF2


def _jupyter(notebook: dict) -> bytes:
    """`notebook` as Jupyter writes it (indent 1, raw non-ASCII, sorted keys), then with CRLF
    line endings and no final newline, as some editors leave it."""
    return json.dumps(notebook, indent=1, ensure_ascii=False, sort_keys=True).replace("\n", "\r\n").encode()


def _escaped(notebook: dict) -> bytes:
    """`notebook` as a script's json.dump leaves it: indent 2, non-ASCII escaped, a final newline."""
    return (json.dumps(notebook, indent=2) + "\n").encode()


@pytest.mark.parametrize("style", [_jupyter, _escaped])
def test_a_notebook_changes_only_in_its_migrated_code_lines(tmp_path: Path, style) -> None:
    def cell(kind: str, source: list[str], **more: object) -> dict:
        return {"cell_type": kind, "metadata": {}, "source": source, **more}

    output = {"name": "stdout", "output_type": "stream", "text": ["\u001b[31mrouge\u001b[0m é ☕\n"]}
    notebook = {
        "cells": [
            cell("markdown", ["# Entraînement — café\n", "Les pertes"]),
            cell("code", TF2.splitlines(keepends=True), execution_count=1, outputs=[output]),
            cell("code", ["print('héllo')"], execution_count=2, outputs=[output]),
        ],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = tmp_path / "train.ipynb"
    before = style(notebook)
    path.write_bytes(before)
    result = migrate("--in-place", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    expected = before
    for old, new in [
        ('"import tensorflow as tf\\n"', '"import summarylib\\n"'),
        ("tf.summary.create_file_writer", "summarylib.create_file_writer"),
        ("tf.summary.scalar", "summarylib.scalar"),
    ]:
        expected = expected.replace(old.encode(), new.encode())
    assert path.read_bytes() == expected


def test_a_linked_file_named_on_the_command_line_is_rewritten_where_it_lives(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    real = tmp_path / "real" / "train.py"
    real.write_text(TF2)
    os.symlink("real/train.py", tmp_path / "train.py")
    assert migrate("--in-place", str(tmp_path / "train.py")).returncode == 0
    assert os.readlink(tmp_path / "train.py") == "real/train.py"
    assert files(tmp_path) == {"real/train.py": MIGRATED.encode()}
