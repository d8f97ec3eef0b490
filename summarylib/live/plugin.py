"""The Live dashboard as a TensorBoard plugin: `tensorboard --logdir runs` shows a "Live"
tab when summarylib is installed beside TensorBoard (from summarylib's clone:
`pip install -e '.[tensorboard]'`, which installs TensorBoard into the same environment).

A dynamic plugin (TensorBoard's `tensorboard_plugins` entry point, pyproject's
`summarylib_live`): TensorBoard loads the ES module `index.js` into the tab's iframe, and
serves every route of summarylib.live.app under `/data/plugin/summarylib_live/`, on its own
HTTP server (no extra port). The app reads the event files itself, not through
TensorBoard's multiplexer (which reloads every few seconds), and pushes new frames to the
page as they are written. Inactive for a logdir at a URL (an object store): a watch writes
its live views only to local directories. The one module of summarylib that imports
TensorBoard.

The app answers only requests for the address TensorBoard listens on (its `--host` and
`--bind_all` flags, see `_listening`; summarylib.live.access says why): a DNS rebinding
page may still read TensorBoard's own routes, which TensorBoard serves to any Host, but
never switches a run's views.
"""

from __future__ import annotations

import os

from tensorboard.plugins import base_plugin

from summarylib.format import live_control
from summarylib.format.storage import is_url
from summarylib.live.access import Hosts, listening_hosts
from summarylib.live.app import LiveApp, live_app

PLUGIN_NAME = "summarylib_live"
ROUTE_BASE = f"/data/plugin/{PLUGIN_NAME}/"


class LivePlugin(base_plugin.TBPlugin):
    """The Live dashboard: the newest watch views, images and scalars of each run, and the
    views switched on from the page (see summarylib.live.app for the routes)."""

    plugin_name = PLUGIN_NAME

    def __init__(self, context: base_plugin.TBContext) -> None:
        logdir = context.logdir or ""
        # Local logdirs only (a watch writes live views only there); the follower thread
        # starts at the first request, not with TensorBoard.
        local = logdir and not is_url(logdir)
        self._app: LiveApp | None = None
        if local:
            self._app = live_app(logdir, base=ROUTE_BASE, page=False, hosts=_listening(context.flags))

    def get_plugin_apps(self) -> dict[str, object]:
        """Every route of the app, under the plugin's prefix (TensorBoard's `/*` route)."""
        return {"/*": self._app} if self._app is not None else {}

    def is_active(self) -> bool:
        """Whether some run is live (a live/ subdirectory or a control file) or has images."""
        if self._app is None:
            return False
        follower = self._app.follower
        follower.fresh(max_age=5.0, timeout=2.0)
        with follower.condition:
            views = dict(follower.views)
            if any(view.live or view.frames for view in views.values()):
                return True
        return any(os.path.exists(live_control.control_path(follower.run_directory(run))) for run in views)

    def frontend_metadata(self) -> base_plugin.FrontendMetadata:
        """An ES module plugin, in its own tab."""
        return base_plugin.FrontendMetadata(es_module_path="/index.js", tab_name="Live")


def _listening(flags: object) -> Hosts:
    """The Host names of TensorBoard's address, from its flags as its server reads them:
    `--bind_all` every interface, else `--host`, by default localhost. With every
    interface or a host that is not loopback, the app also answers to that host, to this
    machine's names and to any IP address (see access.listening_hosts)."""
    if getattr(flags, "bind_all", False):
        return listening_hosts(None)
    return listening_hosts(getattr(flags, "host", None) or "localhost")
