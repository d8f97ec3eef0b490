"""The README and the documentation site, as a reader meets them: the site builds with
`mkdocs build --strict` (API reference included), and every code block of README.md and
docs/**/*.md runs, so what the pages show is what the library does.

How a page's code blocks run (the convention a page writer follows):

- Every fenced block names its language. ```python blocks run in order, in one namespace
  per page (as in a notebook), in a fresh temporary working directory. ```sh / ```bash
  blocks run there in bash and must exit 0. ```console blocks hold `$ command` lines, each
  followed by what it prints (stdout and stderr): each command runs in one bash session,
  and its output must match what is shown, after normalizing what differs from run to run
  (event-file names, wall times, byte sizes, runs of spaces). A line `...` in the shown
  output stands for any number of lines. Other languages (diff, text, yaml, toml, json)
  are shown, not run.
- `<!-- docs-test: skip REASON -->` on the line before a block: shown, not run (it starts a
  server, installs packages, needs a bucket or a GPU). The reason is required.
- `<!-- docs-test: setup` ... `-->` before a block: hidden Python, run in the page's
  namespace before the block (the minimal fixtures: a loss value, a small model, a file to
  migrate). `REPO` is the checkout's root there, and `cleanup`, a `contextlib.ExitStack`
  closed after the page, takes a fixture that must stop (moto's S3 server).

The comments are HTML, so the rendered pages (and GitHub's README) do not show them. A page
whose Python needs a framework that is not installed (torch, Keras, moto) is skipped,
naming it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
RUN = {"python", "sh", "bash", "console"}
SHOWN = {"diff", "text", "yaml", "toml", "json"}
FENCE = re.compile(r"^(?P<indent>\s*)```(?P<lang>[\w-]*)\s*$")
SKIP = re.compile(r"^\s*<!-- docs-test: skip(?P<reason>.*?)-->\s*$")
SETUP = re.compile(r"^\s*<!-- docs-test: setup\s*$")
END_MARK = "@@docs-test: end of command@@"
# What differs between two runs of the same command.
VARYING = [
    (re.compile(r"events\.out\.tfevents\.\d+\.\S+?\.\d+\.\d+\.v2"), "events.out.tfevents.<file>"),
    (re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"), "<time>"),
    (re.compile(r"\b\d+(\.\d+)? (B|KiB|MiB|GiB)\b"), "<size>"),
]


@dataclasses.dataclass
class Block:
    """One fenced code block of a page, with the directives written before it."""

    page: Path
    line: int
    lang: str
    code: str
    skip: str | None
    setup: list[str]

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks_of(page: Path) -> list[Block]:
    """The page's fenced blocks, each with the skip and setup comments just before it."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    skip: str | None = None
    setup: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if match := SKIP.match(line):
            skip = match["reason"].strip()
            assert skip, f"{page.name}:{index + 1}: a skipped block needs a reason"
        elif SETUP.match(line):
            end = next(i for i in range(index + 1, len(lines)) if lines[i].strip() == "-->")
            setup.append(textwrap.dedent("\n".join(lines[index + 1 : end])))
            index = end
        elif match := FENCE.match(line):
            indent, lang = match["indent"], match["lang"]
            end = next(i for i in range(index + 1, len(lines)) if lines[i].strip() == "```")
            code = "\n".join(text[len(indent) :] for text in lines[index + 1 : end])
            where = f"{page.name}:{index + 1}"
            assert lang in RUN | SHOWN, f"{where}: a code block needs a language, got {lang!r}"
            found.append(Block(page, index + 1, lang, code, skip, setup))
            skip, setup, index = None, [], end
        index += 1
    return found


def normalized(text: str, workdir: Path) -> list[str]:
    """Lines as compared: the working directory, file names, times and sizes made neutral."""
    text = text.replace(str(workdir) + os.sep, "").replace(str(workdir), ".")
    for pattern, neutral in VARYING:
        text = pattern.sub(neutral, text)
    lines = [" ".join(line.split()) for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return lines


def matches(shown: list[str], printed: list[str]) -> bool:
    """Whether the printed lines are the shown ones, a `...` line standing for any lines."""
    if not shown:
        return not printed
    if shown[0] == "...":
        return any(matches(shown[1:], printed[start:]) for start in range(len(printed) + 1))
    return bool(printed) and shown[0] == printed[0] and matches(shown[1:], printed[1:])


def console_commands(block: Block) -> list[tuple[str, list[str]]]:
    """A console block's `$ command` lines, each with the output shown after it."""
    commands: list[tuple[str, list[str]]] = []
    for line in block.code.splitlines():
        if line.startswith("$ "):
            commands.append((line[2:], []))
        else:
            assert commands, f"{block.where}: a console block starts with a `$ ` command"
            commands[-1][1].append(line)
    return commands


def shell_env() -> dict[str, str]:
    """The environment of a page's shell blocks: this interpreter's `python` first on PATH."""
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env.setdefault("KERAS_BACKEND", "torch")
    return env


def run_console(block: Block, workdir: Path) -> None:
    commands = console_commands(block)
    # Each command's status survives the marker, so `echo $?` reports the command before it.
    after = f"__rc=$?; echo; echo '{END_MARK}'; (exit $__rc)"
    script = "".join(f"{command}\n{after}\n" for command, _ in commands)
    result = subprocess.run(
        ["bash", "-c", script],
        cwd=workdir,
        env=shell_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=120,
    )
    outputs = result.stdout.split(END_MARK + "\n")
    assert len(outputs) == len(commands) + 1, f"{block.where}: the shell stopped early\n{result.stdout}"
    for (command, shown), printed in zip(commands, outputs[:-1], strict=True):
        expected = normalized("\n".join(shown), workdir)
        got = normalized(printed, workdir)
        assert matches(expected, got), (
            f"{block.where}: `{command}` printed\n"
            + "\n".join(got)
            + "\n\nbut the page shows\n"
            + "\n".join(expected)
        )


def run_shell(block: Block, workdir: Path) -> None:
    result = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block.code],
        cwd=workdir,
        env=shell_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = f"{result.stdout}\n{result.stderr}"
    assert result.returncode == 0, f"{block.where}: exit {result.returncode}\n{output}"


def run_python(code: str, where: str, namespace: dict[str, object]) -> None:
    """Run a block in the page's namespace; a page about a framework that is not installed
    (torch, Keras, moto, ...) is skipped, as that framework's own tests are."""
    try:
        exec(compile(code, where, "exec"), namespace)
    except ModuleNotFoundError as error:
        if error.name is None or error.name.split(".")[0] in {"summarylib", "tests", "examples"}:
            raise
        pytest.skip(f"{where} needs {error.name}, which is not installed")


# Modules a page's shell commands run, and the optional package each needs: without it the
# page is skipped, as one whose Python needs a framework that is not installed.
SHELL_NEEDS = {"summarylib.migrate": "libcst"}


def skip_without_what_its_commands_need(block: Block) -> None:
    for module, package in SHELL_NEEDS.items():
        if module in block.code and importlib.util.find_spec(package) is None:
            pytest.skip(f"{block.where} runs {module}, which needs {package}, which is not installed")


def run_page(page: Path, workdir: Path) -> None:
    """Every block of the page in order; Python ones in the page's one namespace."""
    with contextlib.ExitStack() as cleanup:
        namespace: dict[str, object] = {"__name__": "__docs__", "REPO": str(ROOT), "cleanup": cleanup}
        for block in blocks_of(page):
            if block.skip is not None or block.lang in SHOWN:
                continue
            for code in block.setup:
                run_python(code, f"{block.where} (setup)", namespace)
            if block.lang == "python":
                run_python(block.code, block.where, namespace)
            elif block.lang == "console":
                skip_without_what_its_commands_need(block)
                run_console(block, workdir)
            else:
                skip_without_what_its_commands_need(block)
                run_shell(block, workdir)
        for value in namespace.values():  # the writers a page left open, as its reader's exit would
            close = getattr(value, "close", None)
            if type(value).__module__.startswith("summarylib") and callable(close):
                close()


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(ROOT)) for page in PAGES])
@pytest.mark.slow
def test_every_code_block_of_the_page_runs_and_prints_what_it_shows(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run_page(page, tmp_path)


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
        "api/summarylib": ["summarylib.scalar", "summarylib.create_file_writer", "summarylib.SummaryWriter"],
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
