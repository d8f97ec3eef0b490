"""The package as users get it: the sdist and the wheel built from it by a standard build
frontend (`python -m build`, with the oldest setuptools the project declares), the wheel
installed into a fresh virtual environment outside the checkout, and the demo run from
there, its run read by a real TensorBoard. Catches what an editable install hides: files
left out of the wheel or sdist, build requirements declared too low, imports of the test
tree."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tarfile
import zipfile

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10 (requires-python allows it) has no tomllib: collecting must not fail there
    tomllib = pytest.importorskip("tomli", reason="reading pyproject.toml on Python 3.10 needs tomli")

from tests.test_demo import assert_every_dashboard_lights_up

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# What a build needs from the checkout (what git tracks, less the tests and benchmarks).
SOURCES = ("pyproject.toml", "README.md", "summarylib", "proto")
LEFT_OUT = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")

pytestmark = pytest.mark.slow


def oldest_setuptools() -> str:
    """A requirement for the oldest release line of setuptools that pyproject.toml's build
    requirements accept ("setuptools>=77" gives setuptools 77.x)."""
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as file:
        (requirement,) = tomllib.load(file)["build-system"]["requires"]
    name, _, version = requirement.partition(">=")
    assert name.strip() == "setuptools" and version, requirement
    major = int(version.split(".")[0])
    return f"setuptools>={version.strip()},<{major + 1}"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[str, str]:
    """(sdist, wheel) of a copy of the checkout, built with the oldest setuptools the build
    requirements accept (as an installer may pick it), by `python -m build`: the sdist first,
    then the wheel from the sdist."""
    top = tmp_path_factory.mktemp("package")
    source = top / "source"
    for name in SOURCES:
        if os.path.isdir(os.path.join(ROOT, name)):
            shutil.copytree(os.path.join(ROOT, name), source / name, ignore=LEFT_OUT)
        else:
            source.mkdir(exist_ok=True)
            shutil.copy2(os.path.join(ROOT, name), source / name)
    builder = top / "builder"
    subprocess.run([sys.executable, "-m", "venv", str(builder)], check=True, timeout=300)
    python = str(builder / "bin" / "python")
    install = [python, "-m", "pip", "install", "-q", oldest_setuptools(), "build"]
    subprocess.run(install, check=True, timeout=600)
    dist = top / "dist"
    built = subprocess.run(
        [python, "-m", "build", "--no-isolation", "--outdir", str(dist), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (sdist,) = dist.glob("*.tar.gz")
    (wheel,) = dist.glob("*.whl")
    return str(sdist), str(wheel)


def test_the_wheel_holds_the_package_its_generated_protos_and_stubs(built):
    _, wheel = built
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "summarylib/__init__.py" in names
    assert "summarylib/proto/event_pb2.py" in names and "summarylib/proto/event_pb2.pyi" in names
    # the Live dashboard's page, every file its server serves, and its TensorBoard entry point
    static = os.path.join(ROOT, "summarylib", "live", "static")
    assert {f"summarylib/live/static/{name}" for name in os.listdir(static)} <= names
    entry_points = next(name for name in names if name.endswith(".dist-info/entry_points.txt"))
    assert (
        "summarylib_live = summarylib.live.plugin:LivePlugin"
        in zipfile.ZipFile(wheel).read(entry_points).decode()
    )
    assert not any(name.startswith(("tests/", "benchmarks/")) for name in names)


def test_the_sdist_holds_what_a_build_needs(built):
    sdist, _ = built
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {"pyproject.toml", "README.md", "summarylib/__init__.py", "summarylib/proto/event_pb2.py"} <= names


def test_the_wheel_installed_in_a_fresh_venv_runs_the_demo_that_tensorboard_shows(built, tmp_path):
    _, wheel = built
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = str(venv / "bin" / "python")
    subprocess.run([python, "-m", "pip", "install", "-q", wheel], check=True, timeout=600)
    logdir = str(tmp_path / "runs" / "demo")
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    result = subprocess.run(
        [python, "-c", "import summarylib; print(summarylib.__file__)"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=True,
    )
    assert result.stdout.startswith(str(venv)), result.stdout  # the installed copy, not the checkout
    demo = [python, "-m", "summarylib.demo", "--logdir", logdir, "--steps", "12"]
    result = subprocess.run(demo, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    assert f"tensorboard --logdir {logdir}" in result.stdout
    assert_every_dashboard_lights_up(logdir)


def test_the_readme_wheel_hint_installs_the_built_wheel_with_an_extra(built, tmp_path):
    """The README's hint for a machine without the clone, `pip install "<wheel>[s3]"`, run
    offline against the wheel the build made: pip takes the wheel and finds the extra."""
    _, wheel = built
    readme = pathlib.Path(ROOT, "README.md").read_text(encoding="utf-8")
    assert 'pip install "$(ls dist/summarylib-*.whl)[s3]"' in readme
    report = tmp_path / "report.json"
    command = [sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--no-index", "--quiet"]
    result = subprocess.run(
        [*command, "--report", str(report), f"{wheel}[s3]"], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
    (install,) = json.loads(report.read_text())["install"]
    assert install["metadata"]["name"] == "summarylib"
    assert "s3" in install["metadata"]["provides_extra"]
