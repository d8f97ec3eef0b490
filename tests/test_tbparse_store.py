"""summarylib.tbparse reads a sweep in a bucket (moto's real S3 server, through s3fs) as it
reads the same files on disk: the same DataFrames for every event type, pivot and extra
column, the same tree of children, worker processes that reach the store with the reading
process's endpoint, and a progress line on a terminal only."""

from __future__ import annotations

import io
import itertools
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
pytest.importorskip("s3fs", reason="s3fs is not installed (the remote-test extra)")
pytest.importorskip("moto", reason="moto is not installed (the remote-test extra)")

from summarylib.compat.torch import SummaryWriter  # noqa: E402
from summarylib.reading.tbparse_files import read_files  # noqa: E402
from summarylib.reading.tbparse_sweep import read_all  # noqa: E402
from summarylib.tbparse import SummaryReader  # noqa: E402
from tests.s3_server import bucket_fixtures  # noqa: E402
from tests.test_tbparse_compat import EXTRAS, _assert_same, _events, _write_summarylib_v2, _write_torch  # noqa: E402

BUCKET = "summarylib-tbparse"
ALL_TYPES = ["scalars", "tensors", "histograms", "images", "audio", "hparams", "text"]

s3, url, spill_root = bucket_fixtures(BUCKET)


@pytest.fixture(scope="module")
def sweep(s3, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A logdir of torch-style and TF 2-style runs on disk, and the same files in the bucket."""
    import s3fs

    local = tmp_path_factory.mktemp("sweep")
    with SummaryWriter(str(local / "media")) as writer:
        writer.add_image("picture", np.linspace(0, 1, 60).reshape(3, 4, 5), 0)
        writer.add_audio("tone", np.sin(np.arange(800) / 10), 0, sample_rate=8000)
    _write_torch(local / "torch", SummaryWriter)
    _write_summarylib_v2(local / "v2")
    s3fs.S3FileSystem().put(str(local), f"{BUCKET}/sweep", recursive=True)
    return local, f"s3://{BUCKET}/sweep"


def test_a_sweep_in_a_bucket_reads_as_it_does_on_disk(sweep: tuple[Path, str]) -> None:
    local, remote = sweep
    for pivot, extras in itertools.product([False, True], EXTRAS):
        on_disk = SummaryReader(str(local), pivot=pivot, extra_columns=extras)
        in_bucket = SummaryReader(remote, pivot=pivot, extra_columns=extras)
        for event_type in ALL_TYPES:
            expected = _events(on_disk, event_type)
            assert isinstance(expected, pd.DataFrame) and len(expected), event_type
            _assert_same(_events(in_bucket, event_type), expected)
        assert in_bucket.tags == on_disk.tags
    on_disk, in_bucket = SummaryReader(str(local)), SummaryReader(remote + "/")
    assert list(in_bucket.children) == list(on_disk.children) == ["media", "torch", "v2"]
    runs = in_bucket["torch"].children
    assert list(runs) == list(on_disk["torch"].children)  # run0, run1 and notes.txt
    event_file = next(name for name in runs["run0"].children if "tfevents" in name)
    assert runs["run0"][event_file].raw_tags == on_disk["torch"]["run0"][event_file].raw_tags
    _assert_same(runs["run0"][event_file].scalars, on_disk["torch"]["run0"][event_file].scalars)


def test_a_missing_prefix_is_not_found_as_a_missing_directory(s3) -> None:
    with pytest.raises(ValueError, match="not found"):
        SummaryReader(f"s3://{BUCKET}/no-such-sweep")


def test_a_script_reads_a_bucket_by_worker_processes_with_its_endpoint(
    sweep: tuple[Path, str], tmp_path: Path
) -> None:
    """A script as notebooks and quick analyses are written (no `if __name__ == "__main__"`),
    setting the store's endpoint only once it runs: its workers read the bucket, every file
    once, with the values read in one process, and the script runs once."""
    local, remote = sweep
    script = tmp_path / "analysis.py"
    script.write_text(
        textwrap.dedent(f"""
        import json, os
        import numpy as np
        os.environ["AWS_ENDPOINT_URL"] = os.environ.pop("ENDPOINT_FOR_THE_SCRIPT")
        from summarylib.reading.discovery import find_sources
        from summarylib.reading.tbparse_files import read_files
        from summarylib.reading.tbparse_sweep import read_all
        from tests.test_tbparse_store import counts
        print("started")
        files = [f for run in find_sources({remote!r}).values() for f in run]
        by_workers, in_one = read_all({remote!r}, workers=2), read_files(files)
        assert by_workers.keys() == in_one.keys(), (by_workers.keys(), in_one.keys())
        for file, values in in_one.items():
            assert by_workers[file].contents == values.contents
            for kind, expected in values.kinds.items():
                got = by_workers[file].kinds[kind]
                assert (got.tags, got.protos) == (expected.tags, expected.protos)
                assert np.array_equal(got.number, expected.number, equal_nan=True), file
        print(json.dumps(counts(in_one, {remote!r})))
    """)
    )
    root = str(Path(__file__).resolve().parents[1])
    environment = {**os.environ, "PYTHONPATH": root}
    environment["ENDPOINT_FOR_THE_SCRIPT"] = environment.pop("AWS_ENDPOINT_URL")
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=environment, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    started, values = done.stdout.splitlines()
    assert started == "started"
    local_files = [str(file) for file in sorted(local.rglob("*tfevents*"))]
    assert json.loads(values) == counts(read_files(local_files), str(local))


def counts(files: dict, top: str) -> dict[str, dict[str, int]]:
    """{event file below `top`: {kind: values}}, to compare reads of one tree in two places."""
    return {
        os.path.relpath(file, top): {kind: len(values) for kind, values in found.kinds.items()}
        for file, found in files.items()
    }


def test_a_progress_line_is_drawn_on_a_terminal_only(sweep: tuple[Path, str]) -> None:
    local, _ = sweep
    primary, secondary = os.openpty()
    with os.fdopen(secondary, "w") as terminal:
        read_all(str(local), workers=2, stream=terminal)
    drawn = os.read(primary, 4096).decode().replace("\r\n", "\n")  # the terminal's newline
    os.close(primary)
    files = len(list(local.rglob("*tfevents*")))
    assert drawn.startswith("\rreading event files: ")
    assert drawn.endswith(f"reading event files: {files}/{files}\n")
    not_a_terminal = io.StringIO()
    assert read_all(str(local), workers=2, stream=not_a_terminal).keys() == read_files(str(local)).keys()
    assert not_a_terminal.getvalue() == ""


def test_a_sweep_in_fsspec_s_memory_filesystem_is_read_in_the_process_that_holds_it() -> None:
    """Worker processes would find an empty memory filesystem: it is read here, whatever the
    workers asked for, with the frame the same as on a store."""
    for seed in range(3):
        with SummaryWriter(f"memory://tbparse-sweep/seed{seed}") as writer:
            for step in range(5):
                writer.add_scalar("loss", seed + 1.0 / (step + 1), step)
    found = read_all("memory://tbparse-sweep", workers=2)
    assert sorted(len(values.kinds["scalars"]) for values in found.values()) == [5, 5, 5]
    frame = SummaryReader("memory://tbparse-sweep", extra_columns={"dir_name"}).scalars
    assert frame.groupby("dir_name")["value"].min().round(6).to_dict() == {
        "seed0": 0.2, "seed1": 1.2, "seed2": 2.2,
    }  # fmt: skip
