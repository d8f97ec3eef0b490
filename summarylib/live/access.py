"""Who may talk to the Live dashboard's app, and so to a training run: the checks every
request passes before a route answers (summarylib.live.app).

A POST of the control file writes into a run's directory and switches what the training
process does; an open event stream keeps that request fresh; the other routes show the
run's images and scalars. Three checks, each against a different attack from a page the
user opens in the same browser:

- The Host header (`refuse_other_hosts`, every route): DNS rebinding. A page of
  `attacker.example` whose name the attacker re-points at 127.0.0.1 is, to the browser,
  the same origin as the dashboard (`Sec-Fetch-Site: same-origin`, no CORS), and reads
  and writes everything, but its requests still say `Host: attacker.example`. A request
  is served only if its Host names the address the server listens on (see `Hosts`),
  with the server's port if it gives one.
- The content type of a POST (`refuse_unless_json`): a form or a no-cors fetch of
  another site cannot send `application/json` without a CORS preflight, never granted.
- The site (`refuse_other_sites`, the POST and the stream): `Sec-Fetch-Site`, else
  `Origin` against the host asked for.

A client that is no browser (curl, a script) sends no Origin or Sec-Fetch-Site and is
served; one that sends no Host (HTTP/1.0) too: a browser always sends it.
"""

from __future__ import annotations

import functools
import ipaddress
import socket
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

Environ = dict[str, Any]
# The names of the loopback interface: a server listening there is reached by these only.
LOOPBACK_NAMES = frozenset({"localhost"})


class HTTPError(Exception):
    """An answer other than 200, with the message its JSON body gives."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Hosts:
    """The names a request's Host may give: `names` (lower case), any loopback IP, and,
    with `any_address`, any IP address at all (a page cannot be served from an IP
    address it does not own, so an address literal is never a rebound name)."""

    names: frozenset[str]
    any_address: bool = False

    def allow(self, name: str) -> bool:
        """Whether a request whose Host names `name` (no port; lower case) is served."""
        if name in self.names:
            return True
        try:
            address = ipaddress.ip_address(name)
        except ValueError:
            return False
        return self.any_address or address.is_loopback


def listening_hosts(host: str | None) -> Hosts:
    """The Hosts of a server listening on `host` (None or "": every interface). On a
    loopback address or name: loopback names and IPs only. Otherwise also `host` itself,
    this machine's names (as a browser elsewhere reaches it) and any IP address."""
    name = _strip(host or "")
    if _is_loopback(name):
        return Hosts(LOOPBACK_NAMES)
    names = {name} if name and not _is_wildcard(name) else set()
    return Hosts(LOOPBACK_NAMES | _machine_names() | names, any_address=True)


def refuse_other_hosts(environ: Environ, hosts: Hosts) -> None:
    """Refuse a request whose Host names no address of this server (DNS rebinding; see
    the module docstring), or gives a port other than the one it came in on."""
    header = environ.get("HTTP_HOST")
    if header is None:
        return
    parsed = _split_host(header)
    port = environ.get("SERVER_PORT")
    if parsed is None or not hosts.allow(parsed[0]) or (parsed[1] is not None and port and parsed[1] != port):
        raise HTTPError(
            "403 Forbidden",
            f"refused a request for host {header!r}: this server answers to the address it listens on",
        )


def refuse_unless_json(environ: Environ) -> None:
    """Refuse a POST whose body is not JSON by its Content-Type: a page of another origin
    can send JSON only after a CORS preflight, which this app never grants, so a form or
    a no-cors fetch of another site's page (any page the user opens could otherwise
    switch a training run's views) is refused here."""
    kind = environ.get("CONTENT_TYPE", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise HTTPError(
            "415 Unsupported Media Type", f"expected Content-Type application/json, got {kind or 'none'!r}"
        )


def refuse_other_sites(environ: Environ) -> None:
    """Refuse a request that a browser says comes from a page of another origin:
    `Sec-Fetch-Site` (sent by every current browser, and right behind a proxy that
    rewrites Host), else `Origin` against the host asked for. A client that is no
    browser sends neither, and is let through."""
    site = environ.get("HTTP_SEC_FETCH_SITE")
    origin = environ.get("HTTP_ORIGIN")
    if site is not None:
        cross = site not in ("same-origin", "none")
    else:
        host = environ.get("HTTP_X_FORWARDED_HOST") or environ.get("HTTP_HOST")
        cross = origin is not None and urlsplit(origin).netloc != host
    if cross:
        raise HTTPError(
            "403 Forbidden",
            f"refused a request from {origin or site!r}: only the dashboard's own page may ask this",
        )


def _split_host(header: str) -> tuple[str, str | None] | None:
    """(name, port or None) of a Host header (`name`, `name:port`, `[v6]`, `[v6]:port`),
    the name in lower case without a trailing dot; None if it is none of these."""
    if header.startswith("["):
        name, bracket, rest = header[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            return None
        port = rest[1:] if rest else None
    else:
        name, colon, port_text = header.partition(":")
        port = port_text if colon else None
    if port is not None and not (port.isascii() and port.isdigit()):
        return None
    name = _strip(name)
    return (name, str(int(port)) if port is not None else None) if name else None


@functools.cache
def _machine_names() -> frozenset[str]:
    """This machine's names, looked up once (getfqdn may ask a name server)."""
    return frozenset(_strip(name) for name in (socket.gethostname(), socket.getfqdn()))


def _strip(name: str) -> str:
    """A host name as compared: lower case, no trailing dot, no brackets."""
    return name.strip("[]").rstrip(".").lower()


def _is_loopback(name: str) -> bool:
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _is_wildcard(name: str) -> bool:
    try:
        return ipaddress.ip_address(name).is_unspecified
    except ValueError:
        return False
