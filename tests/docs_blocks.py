"""The code blocks of README.md and docs/, and how a reader runs one: copied alone into a
fresh directory and run in a fresh process, after the installs its page names.

The convention a page writer follows (tests/test_docs.py holds the pages to it):

- Every fenced block names its language. A ```python block is a whole program: it runs as
  `python block.py` in an empty temporary directory, with nothing from the page's other
  blocks (so it imports what it uses and makes the values it logs). ```sh / ```bash
  blocks run there in `bash -euo pipefail` and must exit 0. ```console blocks hold `$ `
  command lines, each followed by what it prints (stdout and stderr, compared after
  `normalized`; a line `...` stands for any number of lines); a command that ends in a
  heredoc (`<<'EOF'`) takes the lines up to its end word as its input, as bash does. The
  commands of one console block run in one bash session. Other languages (diff, text,
  yaml, toml, json) are shown, not run.
- `<!-- docs-test: skip REASON -->` on the line before a block: shown, not run (it starts a
  server that runs until stopped, installs packages, trains for minutes). The reason is
  required. There is no hidden setup: what a block needs is in the block.
- A Python block whose framework is not installed (torch, Keras, ...) is skipped, naming
  it, as that framework's own tests are; so is a shell block that runs
  `summarylib.migrate` without libcst.
- A block that uses `s3://BUCKET/...` runs against moto's S3 server on 127.0.0.1 with that
  bucket, reached through the environment the page tells a reader to set (AWS_ENDPOINT_URL
  and test credentials); every other block runs with proxies pointed at a closed port, so
  nothing reaches the network.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib.util
import os
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from tests.processes import free_port, stop

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
RUN = {"python", "sh", "bash", "console"}
SHOWN = {"diff", "text", "yaml", "toml", "json"}
FENCE = re.compile(r"^(?P<indent>\s*)```(?P<lang>[\w-]*)\s*$")
SKIP = re.compile(r"^\s*<!-- docs-test: skip(?P<reason>.*?)-->\s*$")
HIDDEN_SETUP = re.compile(r"<!--\s*docs-test:\s*setup")
HEREDOC = re.compile(r"<<-?\s*['\"]?(?P<word>\w+)['\"]?\s*$")
END_MARK = "@@docs-test: end of command@@"
TIMEOUT = 300
# What differs between two runs of the same command. An event file's name keeps its shape
# (the zero-padded counter, a segment's number), so a page that shows another shape fails.
EVENT_FILE = re.compile(
    r"events\.out\.tfevents\.\d{10}\.[^\s/]+?\.\d+\.(?P<rest>\d{6}|\d+\.\d{8})\.v2(?=\s|:|$)", re.MULTILINE
)
VARYING = [
    (EVENT_FILE, r"events.out.tfevents.<seconds>.<host>.<pid>.\g<rest>.v2"),
    (re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"), "<time>"),
    (re.compile(r"\b\d+(\.\d+)? (B|KiB|MiB|GiB)\b"), "<size>"),
]
# Modules a page's shell commands run, and the optional package each needs.
SHELL_NEEDS = {"summarylib.migrate": "libcst"}
MISSING_MODULE = re.compile(r"^ModuleNotFoundError: No module named '(?P<name>[\w.]+)'", re.MULTILINE)
S3_URL = re.compile(r"s3://(?P<bucket>[a-z0-9][a-z0-9.-]+)")


@dataclasses.dataclass(frozen=True)
class Block:
    """One fenced code block of a page, with the skip comment just before it."""

    page: Path
    line: int
    lang: str
    code: str
    skip: str | None

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What running a block came to: passed, failed (with what it printed) or skipped."""

    status: str
    message: str = ""


def blocks_of(page: Path) -> list[Block]:
    """The page's fenced blocks, each with the skip comment just before it."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    skip: str | None = None
    index = 0
    while index < len(lines):
        line = lines[index]
        if match := SKIP.match(line):
            skip = match["reason"].strip()
            assert skip, f"{page.name}:{index + 1}: a skipped block needs a reason"
        elif match := FENCE.match(line):
            indent, lang = match["indent"], match["lang"]
            end = next(i for i in range(index + 1, len(lines)) if lines[i].strip() == "```")
            code = "\n".join(text[len(indent) :] for text in lines[index + 1 : end])
            where = f"{page.name}:{index + 1}"
            assert lang in RUN | SHOWN, f"{where}: a code block needs a language, got {lang!r}"
            found.append(Block(page, index + 1, lang, code, skip))
            skip, index = None, end
        index += 1
    return found


def runnable_blocks() -> list[Block]:
    """Every block a test runs or skips with its reason: all but the shown-only languages."""
    return [block for page in PAGES for block in blocks_of(page) if block.lang in RUN]


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
    """A console block's `$ command` lines (a heredoc's lines part of its command), each
    with the output shown after it."""
    commands: list[tuple[str, list[str]]] = []
    heredoc_end: str | None = None
    for line in block.code.splitlines():
        if heredoc_end is not None:
            commands[-1] = (commands[-1][0] + "\n" + line, [])
            heredoc_end = None if line == heredoc_end else heredoc_end
        elif line.startswith("$ "):
            commands.append((line[2:], []))
            if match := HEREDOC.search(line):
                heredoc_end = match["word"]
        else:
            assert commands, f"{block.where}: a console block starts with a `$ ` command"
            commands[-1][1].append(line)
    assert heredoc_end is None, f"{block.where}: a heredoc without its end line {heredoc_end!r}"
    return commands


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """A reader's shell after the installs: this interpreter's `python` first on PATH, no
    PYTHONPATH (the checkout is not importable from the block's directory: a block cannot
    lean on tests/ or examples/), no KERAS_BACKEND (a Keras block says its own), and proxies
    at a closed port so that nothing reaches the network."""
    env = {key: value for key, value in os.environ.items() if key not in {"PYTHONPATH", "KERAS_BACKEND"}}
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    closed = "http://127.0.0.1:9"
    env.update(http_proxy=closed, https_proxy=closed, HTTP_PROXY=closed, HTTPS_PROXY=closed)
    env.update(no_proxy="127.0.0.1,localhost", NO_PROXY="127.0.0.1,localhost", PIP_NO_INDEX="1")
    env.update(extra or {})
    return env


@contextlib.contextmanager
def s3_bucket(bucket: str) -> Iterator[dict[str, str]]:
    """moto's S3 server on 127.0.0.1 holding an empty `bucket`; yields the variables the
    object-store page tells a reader to set for it. Nothing of this process's environment
    changes (blocks run on several threads at once)."""
    import boto3

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        endpoint = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(endpoint, timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        variables = {
            "AWS_ENDPOINT_URL": endpoint,
            "AWS_ACCESS_KEY_ID": "test",
            "AWS_SECRET_ACCESS_KEY": "test",
            "AWS_DEFAULT_REGION": "us-east-1",
        }
        client = boto3.client(
            "s3",
            endpoint_url=endpoint,
            aws_access_key_id="test",
            aws_secret_access_key="test",
            region_name="us-east-1",
        )
        client.create_bucket(Bucket=bucket)
        yield variables
    finally:
        stop(server)


def run_block(block: Block, workdir: Path) -> Outcome:
    """Run `block` alone in `workdir` (empty), in processes of its own."""
    if block.skip is not None:
        return Outcome("skipped", f"{block.where}: {block.skip}")
    if block.lang != "python":
        for module, package in SHELL_NEEDS.items():
            if module in block.code and importlib.util.find_spec(package) is None:
                return Outcome(
                    "skipped", f"{block.where} runs {module}, which needs {package}: not installed"
                )
    with contextlib.ExitStack() as stack:
        extra: dict[str, str] = {}
        if match := S3_URL.search(block.code):
            if importlib.util.find_spec("moto") is None or importlib.util.find_spec("s3fs") is None:
                return Outcome("skipped", f"{block.where} needs s3fs and moto's S3 server: not installed")
            extra = stack.enter_context(s3_bucket(match["bucket"]))
        env = environment(extra)
        if block.lang == "python":
            return _run_python(block, workdir, env)
        if block.lang == "console":
            return _run_console(block, workdir, env)
        return _run_shell(block, workdir, env)


def _run_python(block: Block, workdir: Path, env: dict[str, str]) -> Outcome:
    (workdir / "block.py").write_text(block.code + "\n", encoding="utf-8")
    result = _run([sys.executable, "block.py"], workdir, env)
    if result.returncode == 0:
        return Outcome("passed")
    missing = MISSING_MODULE.search(result.stdout)
    if missing and missing["name"].split(".")[0] not in {"summarylib", "tests", "examples"}:
        return Outcome("skipped", f"{block.where} needs {missing['name']}, which is not installed")
    return Outcome("failed", f"{block.where}: exit {result.returncode}\n{result.stdout[-6000:]}")


def _run_shell(block: Block, workdir: Path, env: dict[str, str]) -> Outcome:
    result = _run(["bash", "-euo", "pipefail", "-c", block.code], workdir, env)
    if result.returncode == 0:
        return Outcome("passed")
    return Outcome("failed", f"{block.where}: exit {result.returncode}\n{result.stdout[-6000:]}")


def _run_console(block: Block, workdir: Path, env: dict[str, str]) -> Outcome:
    commands = console_commands(block)
    # Each command's status survives the marker, so `echo $?` reports the command before it.
    after = f"__rc=$?; echo; echo '{END_MARK}'; (exit $__rc)"
    script = "".join(f"{command}\n{after}\n" for command, _ in commands)
    result = _run(["bash", "-c", script], workdir, env)
    outputs = result.stdout.split(END_MARK + "\n")
    if len(outputs) != len(commands) + 1:
        return Outcome("failed", f"{block.where}: the shell stopped early\n{result.stdout[-6000:]}")
    for (command, shown), printed in zip(commands, outputs[:-1], strict=True):
        expected, got = normalized("\n".join(shown), workdir), normalized(printed, workdir)
        if not matches(expected, got):
            return Outcome(
                "failed",
                f"{block.where}: `{command}` printed\n"
                + "\n".join(got)
                + "\n\nbut the page shows\n"
                + "\n".join(expected),
            )
    return Outcome("passed")


def _run(command: list[str], workdir: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        cwd=workdir,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=TIMEOUT,
    )
