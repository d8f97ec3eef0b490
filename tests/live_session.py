"""The Live dashboard as a user meets it, for the browser tests and benchmarks/bench_live.py:
a real server over a logdir (`tensorboard --logdir`, the plugin found through its entry
point; or `python -m summarylib.live`), a real headless Chromium (the system's, driven by
Playwright) on the dashboard, and a training process writing into a run.

`skip_reason()` says why this cannot run here (no Chromium, no Playwright, no plugin), or
None. The page's state is read from `window.summarylibLive` (see the module comment of
summarylib/live/static/index.js).
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import math
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from tests.processes import free_port, stop

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHROMIUM = "/usr/bin/chromium"
FRAMES_PROGRAM = os.path.join(ROOT, "tests", "programs", "live_frames.py")
PLUGIN = "summarylib_live"
VIEW_TAGS = {
    "parameters": "images/parameters",
    "gradients": "images/gradients",
    "activations": "images/activations",
    "variance": "images/parameters_variance",
}


def chromium() -> str | None:
    """The system Chromium (browser downloads do not work here), if installed."""
    return shutil.which(CHROMIUM)


def plugin_registered() -> bool:
    """Whether TensorBoard finds the Live plugin through its entry point."""
    return any(entry.name == PLUGIN for entry in importlib.metadata.entry_points(group="tensorboard_plugins"))


def skip_reason(server: str = "tensorboard") -> str | None:
    """Why the dashboard cannot be driven here with `server` ("tensorboard" or
    "standalone"), or None."""
    if chromium() is None:
        return "no Chromium at /usr/bin/chromium (apt-get install chromium) to drive the dashboard"
    if importlib.util.find_spec("playwright") is None:
        return "Playwright is not installed (pip install summarylib[browser-test])"
    if importlib.util.find_spec("summarylib.live.app") is None:
        return "summarylib.live (the dashboard's server) is not there"
    if server == "tensorboard":
        if importlib.util.find_spec("tensorboard") is None:
            return "TensorBoard is not installed"
        if not plugin_registered():
            return (
                "TensorBoard does not find the summarylib_live plugin (reinstall summarylib: its entry point)"
            )
    return None


@contextlib.contextmanager
def standalone_server(logdir: str, timeout: float = 60.0) -> Iterator[str]:
    """`python -m summarylib.live --logdir logdir` on a free port; yield its base URL."""
    with _serving(["summarylib.live", "--logdir", logdir], "runs", timeout) as base:
        yield base


@contextlib.contextmanager
def tensorboard(logdir: str, timeout: float = 60.0) -> Iterator[str]:
    """`tensorboard --logdir logdir` with TensorBoard's own defaults (what users get: its
    loader reloads every 5 s) on a free port of 127.0.0.1; yield its base URL. Not
    tests/tensorboard_server.running_tensorboard, whose `--reload_interval 1` and Python
    loader read every image of the run once a second in the plugin's process, holding the
    GIL the plugin's follower needs (measured: a frame's event 16 ms after its step with
    the defaults, 106 ms with those flags)."""
    with _serving(["tensorboard.main", "--logdir", logdir], "data/plugins_listing", timeout) as base:
        yield base


@contextlib.contextmanager
def _serving(module_arguments: list[str], probe: str, timeout: float) -> Iterator[str]:
    """`python -m <module_arguments> --host 127.0.0.1 --port <free>`, waited for until
    `probe` answers; yield its base URL, stop it on the way out."""
    port = free_port()
    command = [sys.executable, "-m", *module_arguments, "--host", "127.0.0.1", "--port", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}/"
    try:
        _wait_until_serving(process, base + probe, timeout, f"python -m {module_arguments[0]}")
        yield base
    finally:
        stop(process)


def _wait_until_serving(process: subprocess.Popen, url: str, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{what} did not start (exit {process.poll()})") from None
            time.sleep(0.1)


@contextlib.contextmanager
def trainer(run_dir: str, *arguments: str, program: str = FRAMES_PROGRAM) -> Iterator[subprocess.Popen]:
    """A training process writing into `run_dir` (by default tests/programs/live_frames.py),
    started and waited for (it prints `ready` once its first step is on disk)."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.setdefault("KERAS_BACKEND", "torch")
    process = subprocess.Popen(
        [sys.executable, program, run_dir, *arguments],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        if b"ready" not in line:
            rest = line + process.stdout.read() if process.poll() is not None else line
            raise RuntimeError(f"the training process did not start: {rest.decode(errors='replace')}")
        yield process
    finally:
        stop(process)
        if process.stdout is not None:
            process.stdout.close()


@dataclass
class Dashboard:
    """The dashboard's page (in TensorBoard, the plugin's iframe) in a real Chromium."""

    page: Any  # playwright Page
    frame: Any  # the Frame the dashboard runs in

    def state(self, expression: str = "s => s") -> Any:
        """`expression` (a JS function of window.summarylibLive) evaluated in the page."""
        return self.frame.evaluate(f"() => ({expression})(window.summarylibLive)")

    def frames(self) -> list[dict]:
        """The frames drawn so far: {tag, step, wall_time, frame, shown_at}."""
        return list(self.state("s => s.frames"))

    def wait(self, ready: Callable[[], Any], timeout: float = 30.0, what: str = "the page") -> Any:
        """Poll `ready()` until it is true; its value, or an AssertionError saying `what`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            result = ready()
            if result:
                return result
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}; page errors: {self.state('s => s.errors')}")

    def set_view(self, view: str, on: bool = True) -> float:
        """Tick (or untick) a view's toggle as a user does; the wall time of the click."""
        box = self.frame.locator(f"input[type=checkbox][value={view}]")
        clicked = time.time()
        box.set_checked(on)
        return clicked

    def set_interval(self, steps: int) -> None:
        field = self.frame.locator("input[type=number]")
        field.fill(str(steps))
        field.dispatch_event("change")

    def canvas(self, tag: str) -> Any:
        return self.frame.locator(f"canvas[data-tag='{tag}']")

    def shown_step(self, tag: str, pixels: int = 3) -> tuple[int, int]:
        """The step the panel of `tag` says it shows, and the step its first pixels encode
        (little-endian base 256, as tests/programs/live_frames.py writes them), read in one
        go so no frame is drawn in between."""
        step, encoded = self.frame.evaluate(
            """([tag, pixels]) => {
                const canvas = document.querySelector(`canvas[data-tag='${tag}']`);
                const data = canvas.getContext("2d").getImageData(0, 0, pixels, 1).data;
                let encoded = 0;
                for (let i = pixels - 1; i >= 0; i--) encoded = encoded * 256 + data[4 * i];
                return [Number(canvas.dataset.step), encoded];
            }""",
            [tag, pixels],
        )
        return int(step), int(encoded)

    def hover(self, tag: str, x: float, y: float) -> str:
        """Move the pointer over pixel (x, y) of the image of `tag`; the hover text shown."""
        canvas = self.canvas(tag)
        width, height = canvas.evaluate("canvas => [canvas.width, canvas.height]")
        box = canvas.bounding_box()
        canvas.hover(
            position={"x": (x + 0.5) * box["width"] / width, "y": (y + 0.5) * box["height"] / height}
        )
        panel = self.frame.locator("section.sl-panel", has=canvas)
        return str(panel.locator(".sl-hover").inner_text())


@contextlib.contextmanager
def dashboard(
    logdir: str, server: str = "tensorboard", viewport: tuple[int, int] = (1400, 1000)
) -> Iterator[Dashboard]:
    """A real Chromium on the Live dashboard over `logdir`, served by TensorBoard (the Live
    tab: TensorBoard hosts a dynamic plugin in an iframe of data/plugin_entry.html) or by
    `python -m summarylib.live`; the page's first run is chosen and followed."""
    from playwright.sync_api import sync_playwright

    serve = tensorboard(logdir) if server == "tensorboard" else standalone_server(logdir)
    with serve as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
            if server == "tensorboard":
                page.goto(base + f"#{PLUGIN}")
                frame = _plugin_frame(page)
            else:
                page.goto(base)
                frame = page.main_frame
            frame.wait_for_function(
                "() => window.summarylibLive && window.summarylibLive.run !== null", timeout=60000
            )
            yield Dashboard(page, frame)
        finally:
            browser.close()


def _plugin_frame(page: Any, timeout: float = 60.0) -> Any:
    """The iframe TensorBoard loads the plugin's module in (through its element: Playwright's
    list of the page's frames need not hold it yet)."""
    iframe = page.locator(f"iframe[src*='plugin_entry.html?name={PLUGIN}']")
    iframe.wait_for(state="attached", timeout=timeout * 1000)
    frame = iframe.element_handle().content_frame()
    if frame is None:
        raise AssertionError(f"TensorBoard's {PLUGIN} iframe has no document")
    return frame


def percentile(values: list[float], percent: float) -> float:
    """The `percent`th percentile (nearest rank) of `values`."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(percent / 100 * len(ordered)) - 1)]


@dataclass
class Measured:
    """What the page showed of one tag over a window: the latency from each step's wall
    time to its frame shown, and the frames shown a second."""

    frames: int
    latencies: list[float]
    fps: float

    def summary(self) -> str:
        if not self.latencies:
            return "no frames shown"
        p50, p95 = (percentile(self.latencies, percent) * 1000 for percent in (50, 95))
        return (
            f"{self.frames} frames shown, {self.fps:.1f} frames/s, latency p50 {p50:.0f} ms, p95 {p95:.0f} ms"
        )


def measure(frames: list[dict], tag: str, since: float) -> Measured:
    """The frames of `tag` shown after wall time `since`."""
    shown = [frame for frame in frames if frame["tag"] == tag and frame["shown_at"] >= since]
    latencies = [frame["shown_at"] - frame["wall_time"] for frame in shown]
    span = shown[-1]["shown_at"] - shown[0]["shown_at"] if len(shown) > 1 else 0.0
    fps = (len(shown) - 1) / span if span > 0 else 0.0
    return Measured(len(shown), latencies, fps)
