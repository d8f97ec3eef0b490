"""`python -m summarylib.live --logdir runs [--host 127.0.0.1] [--port 6007]`: the Live
dashboard on its own, without TensorBoard.

It earns its place because it costs two small modules: the same WSGI app TensorBoard's
plugin serves (summarylib.live.app), on the standard library's threaded WSGI server made
fit to face a browser (summarylib.live.server), with static/index.html as its front page. It serves the
dashboard where TensorBoard is not installed or cannot be (TensorBoard pins its own
protobuf, grpcio and werkzeug; a training box or container often has none of them), and
starts in well under a second on any logdir, where TensorBoard first loads every run
through its multiplexer. Everything else (runs, images, scalars, switching the views) is
TensorBoard's Live tab, the place to look when TensorBoard is there.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from summarylib.format.storage import is_url
from summarylib.live.access import listening_hosts
from summarylib.live.app import live_app
from summarylib.live.server import DEFAULT_MAX_THREADS, DEFAULT_TIMEOUT, LiveServer


def main(argv: Sequence[str] | None = None) -> None:
    """Serve the dashboard of `--logdir` until interrupted. What keeps it from starting
    (a logdir that is no local directory, an address it cannot listen on) is one line
    on stderr and exit status 2, as for a wrong argument."""
    parser = argparse.ArgumentParser(prog="python -m summarylib.live", description=__doc__.split("\n\n")[0])
    parser.add_argument("--logdir", required=True, help="the directory of the runs (as for tensorboard)")
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=6007, help="the port (default 6007; 0 picks a free one)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        help=f"seconds an idle or half-sent connection is kept (default {DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument(
        "--max-connections",
        type=int,
        default=DEFAULT_MAX_THREADS,
        help=f"connections served at once, open pages' streams included (default {DEFAULT_MAX_THREADS})",
    )
    options = parser.parse_args(argv)
    if is_url(options.logdir):
        _fail(parser, f"--logdir {options.logdir}: a local directory (live views go only to local ones)")
    if not os.path.isdir(options.logdir):
        _fail(parser, f"--logdir {options.logdir}: no such directory")
    if options.timeout <= 0 or options.max_connections < 1:
        _fail(parser, "--timeout and --max-connections: expected positive numbers")
    app = live_app(options.logdir, hosts=listening_hosts(options.host))
    try:
        server = LiveServer(
            (options.host, options.port), app, timeout=options.timeout, max_threads=options.max_connections
        )
    except OSError as error:  # the port in use, an address not this machine's, no such host
        _fail(parser, f"cannot listen on {options.host} port {options.port}: {error.strerror or error}")
    with server:
        port = server.server_address[1]
        print(f"summarylib.live: serving {options.logdir} at http://{options.host}:{port}/", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            server.serve_forever()


def _fail(parser: argparse.ArgumentParser, message: str) -> NoReturn:
    parser.exit(2, f"{parser.prog}: error: {message}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
