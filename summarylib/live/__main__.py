"""`python -m summarylib.live --logdir runs [--host 127.0.0.1] [--port 6007]`: the Live
dashboard on its own, without TensorBoard.

It earns its place because it costs one small module and no code of its own beyond the
server: the same WSGI app TensorBoard's plugin serves (summarylib.live.app), on the standard
library's threaded WSGI server, with static/index.html as its front page. It serves the
dashboard where TensorBoard is not installed or cannot be (TensorBoard pins its own
protobuf, grpcio and werkzeug; a training box or container often has none of them), and
starts in well under a second on any logdir, where TensorBoard first loads every run
through its multiplexer. Everything else (runs, images, scalars, switching the views) is
TensorBoard's Live tab, the place to look when TensorBoard is there.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from summarylib.format.storage import is_url
from summarylib.live.app import live_app


class _ThreadingServer(ThreadingMixIn, WSGIServer):
    """A thread a request: a stream stays open as long as its page does."""

    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    """No line on stderr per request (a page asks for frames many times a second)."""

    def log_message(self, format: str, *args: object) -> None:
        pass


def main(argv: Sequence[str] | None = None) -> None:
    """Serve the dashboard of `--logdir` until interrupted."""
    parser = argparse.ArgumentParser(prog="python -m summarylib.live", description=__doc__.split("\n\n")[0])
    parser.add_argument("--logdir", required=True, help="the directory of the runs (as for tensorboard)")
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=6007, help="the port (default 6007; 0 picks a free one)")
    options = parser.parse_args(argv)
    if is_url(options.logdir):
        parser.error(
            f"--logdir {options.logdir}: a local directory (live views are written only to local ones)"
        )
    app = live_app(options.logdir)
    with make_server(options.host, options.port, app, _ThreadingServer, _QuietHandler) as server:
        port = server.server_address[1]
        print(f"summarylib.live: serving {options.logdir} at http://{options.host}:{port}/", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            server.serve_forever()


if __name__ == "__main__":
    main(sys.argv[1:])
