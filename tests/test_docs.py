"""The README and the documentation site, as a reader meets them: the site builds with
`mkdocs build --strict` (API reference included), and every code block of README.md and
docs/**/*.md runs as shown when copied alone into a fresh directory (the convention a page
writer follows is in tests/docs_blocks.py), so what the pages show is what the library does.

The blocks run as subprocesses, several at once (a bounded pool of threads, each waiting on
its own block's processes), and each block is reported as a test of its own.
"""

from __future__ import annotations

import concurrent.futures
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.docs_blocks import HIDDEN_SETUP, PAGES, ROOT, Block, Outcome, blocks_of, run_block, runnable_blocks

BLOCKS = runnable_blocks()
# Blocks run at once: most of a block's time is a new interpreter importing its modules,
# so a few at a time keep two cores busy without starving each other.
WORKERS = int(os.environ.get("SUMMARYLIB_DOCS_WORKERS", "3"))


@pytest.fixture(scope="session")
def outcomes(request) -> dict[Block, concurrent.futures.Future[Outcome]]:
    """The blocks of the selected tests, started together on a bounded pool: each test
    waits for its own block only."""
    selected = [
        item.callspec.params["block"]
        for item in request.session.items
        if hasattr(item, "callspec") and "block" in item.callspec.params
    ]
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=WORKERS)
    request.addfinalizer(lambda: pool.shutdown(wait=True, cancel_futures=True))
    return {block: pool.submit(_run_in_fresh_directory, block) for block in selected}


def _run_in_fresh_directory(block: Block) -> Outcome:
    with tempfile.TemporaryDirectory(prefix="docs-block-") as workdir:
        return run_block(block, Path(workdir))


@pytest.mark.parametrize("block", BLOCKS, ids=[block.where for block in BLOCKS])
@pytest.mark.slow
def test_every_code_block_runs_alone_as_shown(block, outcomes):
    outcome = outcomes[block].result()
    if outcome.status == "skipped":
        pytest.skip(outcome.message)
    assert outcome.status == "passed", outcome.message


def test_no_page_hides_setup_from_its_reader():
    """What a block needs is in the block: neither GitHub nor the site shows HTML comments."""
    hiding = [
        str(page.relative_to(ROOT)) for page in PAGES if HIDDEN_SETUP.search(page.read_text(encoding="utf-8"))
    ]
    assert not hiding, f"pages with hidden setup: {hiding}"


def test_a_keras_example_sets_its_backend_before_importing_keras():
    """Keras defaults to TensorFlow's backend: a block that imports Keras says which one."""
    for block in BLOCKS:
        code = block.code
        position = min(
            (code.find(text) for text in ("import keras", "from keras") if text in code), default=-1
        )
        if position >= 0 and block.skip is None:
            assert "KERAS_BACKEND" in code[:position], f"{block.where} imports keras without KERAS_BACKEND"


SHOWN_NAME = re.compile(r"events\.out\.tfevents\.[\w.{}:-]*\.v2\b")


def name_shape(name: str) -> tuple[object, ...]:
    """What two event files' names share when the same code wrote them at other times, on
    other hosts, in other processes: the fields' kinds and the widths of the padded ones
    (`events.out.tfevents.{seconds}.{host}.{pid}.{counter...}.v2`). Only the last counter
    is padded: a segment's writer number before it grows with the writers a process made."""
    fields = name.removeprefix("events.out.tfevents.").removesuffix(".v2").split(".")
    seconds, rest = fields[0], fields[1:]
    digits = [index for index, field in enumerate(rest) if field.isdigit()]
    assert seconds.isdigit() and digits and digits[0] > 0, f"not an event file's name: {name}"
    counters = rest[digits[0] + 1 :]  # after the host and the pid
    return (len(seconds), "host", "pid", *("number" for _ in counters[:-1]), *map(len, counters[-1:]))


@pytest.fixture(scope="module")
def written_shapes(tmp_path_factory) -> dict[str, tuple[object, ...]]:
    """The shapes of the names real runs get: a local run's file and an object store's
    segment (fsspec's memory filesystem stands in for the store)."""
    import summarylib as sl

    local = tmp_path_factory.mktemp("names")
    sl.create_file_writer(str(local)).close()
    shapes = {"local": name_shape(next(local.glob("events.out.tfevents.*")).name)}
    if importlib.util.find_spec("fsspec") is not None:
        import fsspec

        writer = sl.create_file_writer("memory://docs-names/run")
        with writer.as_default():  # a segment is uploaded once it holds an event
            sl.scalar("loss", 0.5, step=0)
        writer.close()
        (segment,) = fsspec.filesystem("memory").ls("/docs-names/run", detail=False)
        shapes["segment"] = name_shape(os.path.basename(segment))
    return shapes


def test_the_event_file_names_shown_are_shaped_as_written(written_shapes):
    """Every event file name or name pattern the pages show has the shape of a real one
    (the zero-padded counter, a segment's number); a pattern is filled in to compare."""
    if "segment" not in written_shapes:
        pytest.skip("fsspec is not installed (the remote extra): no object store's names to compare with")
    fill = {"seconds": 1796173146, "hostname": "vm", "pid": 7886, "counter": 0, "writer": 0, "number": 0}
    shown = []
    for page in PAGES:
        for name in SHOWN_NAME.findall(page.read_text(encoding="utf-8")):
            shown.append((page.relative_to(ROOT), name, name.format(**fill) if "{" in name else name))
    assert shown, "the pages show event file names"
    real = set(written_shapes.values())
    wrong = [(str(page), name) for page, name, filled in shown if name_shape(filled) not in real]
    assert not wrong, f"names not shaped as written ({written_shapes}): {wrong}"


def test_the_readme_starts_with_the_command_ci_runs_and_the_demo():
    first = blocks_of(ROOT / "README.md")[0].code
    ci_line = next(
        line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.startswith("python3 -m venv")
    )
    assert ci_line in first.splitlines()
    assert "python -m summarylib.demo" in first


def test_the_readme_stays_short_and_its_links_lead_to_files():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250, "the README is the way in: details go to a docs page"
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    local = [target for target in targets if "://" not in target]
    assert local, "the README links to the docs pages"
    missing = [target for target in local if not (ROOT / target).is_file()]
    assert not missing, f"README links to files that do not exist: {missing}"


@pytest.mark.slow
def test_the_site_builds_strictly_with_its_api_reference(tmp_path):
    pytest.importorskip("mkdocs", reason="the docs extra (mkdocs) is not installed: pip install -e '.[docs]'")
    site = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr
    reference = {
        "api/summarylib": [
            "summarylib.scalar",
            "summarylib.create_file_writer",
            "summarylib.SummaryWriter",
            "summarylib.GraphDef",
            "summarylib.NodeDef",
        ],
        "api/compat-torch": ["summarylib.compat.torch.SummaryWriter.add_scalar"],
        "api/reader": ["summarylib.reader.Reader", "summarylib.reader.load_table"],
        "api/integrations-keras": ["summarylib.integrations.keras.callback.TensorBoard"],
    }
    for page, anchors in reference.items():
        html = (site / page / "index.html").read_text(encoding="utf-8")
        for anchor in anchors:
            assert f'id="{anchor}"' in html, f"{page} documents no {anchor}"


@pytest.mark.slow
def test_import_summarylib_reaches_the_integrations_without_importing_a_framework():
    pytest.importorskip("torch", reason="torch is not installed (the frameworks extra)")
    pytest.importorskip("lightning", reason="lightning is not installed (the frameworks extra)")
    code = (
        "import sys, summarylib\n"
        "assert callable(summarylib.integrations.keras.model_graph)\n"
        "loaded = {'torch', 'keras', 'jax', 'tensorflow', 'lightning'} & set(sys.modules)\n"
        "assert not loaded, loaded\n"
        "assert callable(summarylib.integrations.torch.watch)\n"
        "assert summarylib.integrations.lightning.TensorBoardLogger.__name__ == 'TensorBoardLogger'\n"
        "assert summarylib.integrations.pytorch_lightning.TensorBoardLogger.__name__ == 'TensorBoardLogger'\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
