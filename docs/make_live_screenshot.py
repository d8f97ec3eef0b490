"""Make docs/live.png, the Live dashboard over a real training run: tests/programs/live_watch.py
trains an MLP under `watch(model, log="all", live=True)`, a real `tensorboard --logdir`
serves the Live tab, and the system Chromium (Playwright) ticks the four views on the
page (every 5 steps), waits for their frames, points at a pixel of the
parameters and takes the screenshot.

    python docs/make_live_screenshot.py

Needs Chromium at /usr/bin/chromium, Playwright (the browser-test extra), TensorBoard and torch.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests import live_session  # noqa: E402  (the harness the browser tests use)

WATCH_PROGRAM = os.path.join(ROOT, "tests", "programs", "live_watch.py")
OUT = os.path.join(ROOT, "docs", "live.png")
VIEWS = ("parameters", "gradients", "activations", "variance")


def main() -> int:
    reason = live_session.skip_reason("tensorboard")
    if reason:
        print(f"cannot make the screenshot: {reason}")
        return 1
    with tempfile.TemporaryDirectory() as logdir:
        run_dir = os.path.join(logdir, "mlp")
        with (
            live_session.trainer(run_dir, "--seconds", "600", "--fps", "20", program=WATCH_PROGRAM),
            live_session.dashboard(logdir, viewport=(1640, 1250)) as page,
        ):
            page.set_interval(5)
            for view in VIEWS:
                page.set_view(view)
            for view in VIEWS:
                tag = live_session.VIEW_TAGS[view]
                page.wait(lambda tag=tag: any(f["tag"] == tag for f in page.frames()), timeout=60, what=tag)
            time.sleep(3)  # a few steps on: the scalars table and frames settle
            page.hover(live_session.VIEW_TAGS["parameters"], 300, 120)
            page.page.screenshot(path=OUT)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
