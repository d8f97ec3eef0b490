"""The standalone server of the Live dashboard (`python -m summarylib.live`): the standard
library's threaded WSGI server, made fit to face a browser and whatever else connects.

- A thread a connection, at most `max_threads` at once (an open event stream holds one
  for as long as its page is open): at the cap the server accepts nothing more until a
  thread ends, and further connections wait in the listen queue.
- A socket timeout on every connection: one that sends nothing, or half a request, or a
  body shorter than it said, is closed after `timeout` seconds, its thread freed (a
  stream whose client stops reading too).
- When accept fails for want of a resource (no file descriptor left: EMFILE), it waits
  ACCEPT_BACKOFF_SECONDS before trying again instead of trying in a tight loop (the
  pending connection stays readable, so the loop would spin a core until a stream ends).
- The server's own errors (a malformed request line, a line too long) are JSON
  `{"error": ...}` like the app's; a client that goes away or times out is no traceback.
"""

from __future__ import annotations

import errno
import json
import sys
import threading
import time
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

DEFAULT_TIMEOUT = 10.0
DEFAULT_MAX_THREADS = 100
ACCEPT_BACKOFF_SECONDS = 0.5
# accept() failures that clear only when something else lets go of a resource.
_STARVED = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})


class LiveServer(ThreadingMixIn, WSGIServer):
    """The threaded WSGI server of the module docstring, listening on `address`."""

    daemon_threads = True
    request_queue_size = 128  # connections beyond the thread cap wait here

    def __init__(self, address: tuple[str, int], app: Any, *, timeout: float, max_threads: int) -> None:
        super().__init__(address, _Handler)
        self.set_app(app)
        self.connection_timeout = timeout
        self._slots = threading.BoundedSemaphore(max_threads)

    def get_request(self) -> tuple[Any, Any]:
        """Accept a connection; on EMFILE and its kind, wait a while first (see the module
        docstring), then fail as before (the serving loop passes over it)."""
        try:
            return super().get_request()
        except OSError as error:
            if error.errno in _STARVED:
                time.sleep(ACCEPT_BACKOFF_SECONDS)
            raise

    def process_request(self, request: Any, client_address: Any) -> None:
        """Serve the connection on a thread of its own, once one of the cap is free."""
        self._slots.acquire()
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        """The connection's thread: its slot of the cap is free again when it ends."""
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that timed out or went away is expected; anything else is printed."""
        if not isinstance(sys.exc_info()[1], (TimeoutError, ConnectionError)):
            super().handle_error(request, client_address)


class _Handler(WSGIRequestHandler):
    """The server's timeout on each connection; JSON errors; no line per request."""

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.server.connection_timeout)  # type: ignore[attr-defined]

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The server's own error answers (before the app sees a request) as JSON, with a
        status line and headers also for a line too garbled to say its HTTP version (which
        http.server takes for HTTP/0.9, answered with a bare body)."""
        text = message or self.responses.get(code, ("error",))[0]
        body = json.dumps({"error": f"{code} {text}"}).encode()
        self.request_version = self.protocol_version
        self.close_connection = True
        self.send_response(code, message)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """No line on stderr per request (a page asks for frames many times a second)."""
