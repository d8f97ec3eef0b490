"""Every `pip install` hint a user meets (README.md, docs/, and the messages of summarylib's
code) works for how summarylib is installed today: summarylib is not on PyPI, so a hint
installs from a clone (`pip install -e '.[extra]'`) or a wheel built from it, names extras
that pyproject.toml declares, and quotes brackets (zsh expands `.[s3]` unquoted).

Each distinct hint for the clone is run as written, from a copy of the checkout, with
`--dry-run --no-deps --no-index --no-build-isolation --report` added: pip builds the
project's metadata there, offline, and its report says which extras the built project
provides. (Installing the extras' packages is the README's CI command's job, with the
network; tests/test_packaging.py runs the wheel's hint against a built wheel.)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10 has no tomllib: pyproject is read with tomli where it is installed
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parent.parent
HINT = re.compile(r"pip install\s+(?P<args>[^`\n;&|]*)")
TOKEN = re.compile(r"'[^']*'|\"[^\"]*\"|[^\s'\"]+")
OPTIONS = {"-e", "--editable", "-q", "-U", "--upgrade"}
FENCE = re.compile(r"^\s*```")
# Where a hint's arguments stop: at the first word that is not an option or a requirement
# (a name, `.`, a path, a quoted one, a `{placeholder}` of a message, a `$(...)` wheel).
ARGUMENT = re.compile(r"['\"]?([\w.{/]|\$\()")


def _texts() -> list[tuple[str, str]]:
    """(where, text) of every place a hint can be: each line of a page's code blocks, each
    paragraph of its prose (joined, as a hint may wrap), each line of a module."""
    texts: list[tuple[str, str]] = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        in_code, paragraph, start = False, [], 0
        lines = page.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate([*lines, ""], 1):
            if not in_code and line.strip() and not FENCE.match(line):
                start = start or number
                paragraph.append(line)
                continue
            if paragraph:
                texts.append((f"{page.relative_to(ROOT)}:{start}", " ".join(paragraph)))
                paragraph, start = [], 0
            if FENCE.match(line):
                in_code = not in_code
            elif in_code:
                texts.append((f"{page.relative_to(ROOT)}:{number}", line))
    for module in sorted((ROOT / "summarylib").rglob("*.py")):
        for number, line in enumerate(module.read_text(encoding="utf-8").splitlines(), 1):
            texts.append((f"{module.relative_to(ROOT)}:{number}", line))
    return texts


def _hints() -> dict[str, tuple[str, list[str]]]:
    """Each distinct hint, as written, with where it first appears and its arguments."""
    found: dict[str, tuple[str, list[str]]] = {}
    for where, text in _texts():
        for match in HINT.finditer(text):
            arguments = []
            for token in TOKEN.findall(match["args"]):
                if token.startswith("#") or not (
                    token in OPTIONS or re.match(r"['\"]?([\w.{/]|\$\()", token)
                ):
                    break
                arguments.append(token.rstrip(",") if token[0] not in "'\"" else token)
            command = "pip install " + " ".join(arguments)
            found.setdefault(command, (where, arguments))
    return found


HINTS = _hints()
EXTRAS = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])
# The packages the project itself requires somewhere: a hint may name them from PyPI.
DECLARED = {
    re.match(r"[\w.-]+", requirement)[0].lower()
    for group in [
        tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"],
        *tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"].values(),
    ]
    for requirement in group
}


def _requirements(arguments: list[str]) -> list[tuple[str, str, list[str]]]:
    """(raw token, base, extras) of each requirement of a hint."""
    result = []
    for token in arguments:
        if token in OPTIONS:
            continue
        unquoted = token.strip("'\"")
        base, _, extras = unquoted.partition("[")
        result.append(
            (token, base, [extra.strip() for extra in extras.rstrip("]").split(",") if extra.strip()])
        )
    return result


def _from_the_clone(base: str) -> bool:
    return base in {".", "./"}


def test_the_hints_are_found():
    assert any("[s3]" in command for command in HINTS), HINTS
    assert any(where.startswith("summarylib/") for where, _ in HINTS.values()), HINTS


@pytest.mark.parametrize("command", sorted(HINTS), ids=sorted(HINTS))
def test_a_hint_names_what_can_be_installed(command):
    where, arguments = HINTS[command]
    requirements = _requirements(arguments)
    assert requirements, f"{where}: `{command}` installs nothing"
    for token, base, extras in requirements:
        if "{" in base:
            continue  # a message's placeholder: the name is filled in where it is raised
        clone_form = f"pip install -e '.[{','.join(extras)}]'" if extras else "pip install -e ."
        assert base.lower() != "summarylib", f"{where}: `{command}`: not on PyPI; from a clone: {clone_form}"
        if extras:
            assert token[0] in "'\"", f"{where}: `{command}`: quote {token!r} (zsh expands brackets)"
        if _from_the_clone(base) or base.endswith(".whl") or "$(" in base:
            missing = set(extras) - EXTRAS
            assert not missing, f"{where}: `{command}`: pyproject.toml declares no extra {sorted(missing)}"
        else:
            assert base.lower() in DECLARED, (
                f"{where}: `{command}`: {base} is no package the project declares"
            )


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    """A copy of what a clone holds for an install (no build output of the checkout's)."""
    copy = tmp_path_factory.mktemp("clone")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, copy / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in ("summarylib", "proto"):
        shutil.copytree(ROOT / name, copy / name, ignore=ignore)
    return copy


CLONE_HINTS = sorted(
    command
    for command, (_, arguments) in HINTS.items()
    if any(_from_the_clone(base) for _, base, _ in _requirements(arguments))
)


@pytest.mark.slow
@pytest.mark.parametrize("command", CLONE_HINTS, ids=CLONE_HINTS)
def test_a_hint_for_the_clone_installs_from_one(command, clone, tmp_path):
    """The hint as written, run offline from a copy of the checkout: the project builds and
    provides every extra the hint asks for."""
    report = tmp_path / "report.json"
    dry_run = f"--dry-run --no-deps --no-index --no-build-isolation --quiet --report {report}"
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    result = subprocess.run(
        ["bash", "-c", f"{command} {dry_run}"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    (install,) = json.loads(report.read_text())["install"]
    assert install["metadata"]["name"] == "summarylib"
    asked = {
        extra
        for _, base, extras in _requirements(HINTS[command][1])
        if _from_the_clone(base)
        for extra in extras
    }
    assert asked <= set(install["metadata"].get("provides_extra", [])), install["metadata"].get(
        "provides_extra"
    )
