"""Believing a reverse proxy, and only the proxies the operator names.

``--forwarded-allow-ips`` (DUDO_FORWARDED_ALLOW_IPS) lists the proxies in front of the
server. From them, and from nobody else, the server takes:

- the client's address and scheme (``X-Forwarded-For``, ``X-Forwarded-Proto``: uvicorn's
  own ProxyHeadersMiddleware, run here so the next point can see the proxy's address);
- the public host the browser asked for (``X-Forwarded-Host``, or ``host=`` in
  ``Forwarded``), which the WebSocket origin check accepts as well as ``Host``: the common
  nginx snippet that forgets ``proxy_set_header Host`` sends ``Host: 127.0.0.1:8000``
  upstream while the browser's Origin is the public host.

A refused origin is logged once a minute per origin as a warning that says what was seen,
what was expected and how to fix it (``OriginWarnings``).
"""

from __future__ import annotations

import ipaddress
import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from dudo.server.logs import log_event

log = logging.getLogger("dudo.server")

# What the middleware leaves in the scope for the origin check (a ForwardedHost or absent).
SCOPE_KEY = "dudo.forwarded_host"

# A host as it may appear in Host: a name, an IPv4 address or a bracketed IPv6 one, and a
# port. Anything else in a forwarded header is ignored.
HOST = re.compile(r"^(?:[a-z0-9.-]{1,253}|\[[0-9a-f:.]{2,45}\])(?::[0-9]{1,5})?$")


def parse_proxies(text: str) -> list[str]:
    """``--forwarded-allow-ips`` as a list: each comma-separated entry an IP address
    (``10.0.0.5``, ``::1``) or a network (``10.0.0.0/8``), or ``*`` alone (every address).

    Raises ValueError, in one line, for anything else. uvicorn's middleware would keep an
    entry it cannot read as a literal that no client address ever equals (``not an ip``,
    ``10.0.0.1/8``, a host name), and ``*`` beside other entries as such a literal too:
    a typo that silently believed no proxy at all.
    """
    named = "--forwarded-allow-ips (DUDO_FORWARDED_ALLOW_IPS)"
    entries = [part.strip() for part in text.split(",") if part.strip()]
    if "*" in entries:
        if len(entries) > 1:
            raise ValueError(
                f"{named}: * believes every address, so it stands alone: "
                f"give * or a list of addresses, not {text.strip()!r}"
            )
        return entries
    for entry in entries:
        try:
            if "/" in entry:
                ipaddress.ip_network(entry)
            else:
                ipaddress.ip_address(entry)
        except ValueError:
            meant = _network_meant(entry)
            hint = f" (did you mean {meant}?)" if meant else ""
            shown = entry if len(entry) <= 60 else entry[:60] + "…"
            raise ValueError(
                f"{named}: {shown!r} is not an IP address or network{hint}: "
                "give your proxies' addresses, comma separated, like 127.0.0.1,10.0.0.0/8 "
                "(or * for any)"
            ) from None
    return entries


def _network_meant(entry: str) -> str | None:
    """The network an address with a prefix names (``10.0.0.1/8``: ``10.0.0.0/8``), which
    uvicorn would not read as one (its host bits are set); None for anything else."""
    try:
        return str(ipaddress.ip_network(entry, strict=False)) if "/" in entry else None
    except ValueError:
        return None


@dataclass(frozen=True)
class ForwardedHost:
    """The public host a proxy said the browser asked for; ``believed`` only when it came
    from a named proxy (``peer`` is the address it came from)."""

    host: str
    believed: bool
    peer: str


def forwarded_host(headers: list[tuple[bytes, bytes]]) -> str | None:
    """The first host of ``X-Forwarded-Host``, else of ``Forwarded: host=...`` (the one the
    proxy nearest the browser saw), lower case; None if absent or not a host."""
    found: str | None = None
    for name, value in headers:
        if name == b"x-forwarded-host":
            found = value.decode("latin-1").split(",")[0]
            break
    if found is None:
        for name, value in headers:
            if name != b"forwarded":
                continue
            first = value.decode("latin-1").split(",")[0]
            for pair in first.split(";"):
                key, _, item = pair.strip().partition("=")
                if key.lower() == "host":
                    found = item.strip().strip('"')
                    break
            break
    if found is None:
        return None
    found = found.strip().lower()
    return found if HOST.match(found) else None


class ForwardedHeaders:
    """ASGI middleware: the client's address and scheme from the named proxies (as uvicorn
    does), and the forwarded public host marked believed or not by who sent it."""

    def __init__(self, app: ASGIApp, proxies: tuple[str, ...] = ()) -> None:
        self.app = app
        # uvicorn's middleware, typed for uvicorn's own ASGI types rather than Starlette's.
        self.addresses: Any = (
            ProxyHeadersMiddleware(app, list(proxies))  # type: ignore[arg-type]
            if proxies
            else None
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        host = forwarded_host(scope.get("headers", []))
        if host is not None:
            client = scope.get("client")
            peer = str(client[0]) if client else ""
            believed = self.addresses is not None and peer in self.addresses.trusted_hosts
            scope[SCOPE_KEY] = ForwardedHost(host, believed, peer)
        if self.addresses is None:
            await self.app(scope, receive, send)
        else:
            await self.addresses(scope, receive, send)


class OriginWarnings:
    """One warning a minute per refused origin, at most ``per_minute`` in all (any program
    can send any Origin); the other refusals are info lines, as before."""

    def __init__(
        self, every: float = 60.0, per_minute: int = 20, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.every = every
        self.per_minute = per_minute
        self.clock = clock
        self.last: dict[str, float] = {}

    def due(self, origin: str) -> bool:
        now = self.clock()
        self.last = {seen: at for seen, at in self.last.items() if now - at < self.every}
        if origin in self.last or len(self.last) >= self.per_minute:
            return False
        self.last[origin] = now
        return True

    def refused(self, origin: str, host: str | None, forwarded: ForwardedHost | None) -> None:
        """Log the refusal of a page of ``origin`` that came with ``Host: host``."""
        origin = origin[:200]
        if not self.due(origin):
            log_event(log, "origin_refused", origin=origin)
            return
        expected = [f"Host: {host or '(none)'}"]
        if forwarded is not None and forwarded.believed:
            expected.append(f"X-Forwarded-Host: {forwarded.host}")
        if forwarded is not None and not forwarded.believed:
            fix = (
                f"the request named the host {forwarded.host} in X-Forwarded-Host or "
                f"Forwarded, but it came from {forwarded.peer}, which is not in "
                "--forwarded-allow-ips (DUDO_FORWARDED_ALLOW_IPS): if that is your "
                "reverse proxy, add its address there"
            )
        else:
            fix = (
                "if a reverse proxy stands in front of this server, make it pass the "
                "public host on (nginx: proxy_set_header Host $host; or "
                "proxy_set_header X-Forwarded-Host $host; with the proxy's address in "
                "--forwarded-allow-ips), or list the origin in DUDO_ALLOWED_ORIGINS; "
                "if it is another site, nothing is wrong"
            )
        hosts = ", ".join(expected)
        log_event(
            log,
            "origin_refused",
            logging.WARNING,
            origin=origin,
            expected=hosts,
            fix=fix,
            message=f"refused a table socket from a page of {origin}: this "
            "server takes pages of the host the request was sent to "
            f"only ({hosts}); {fix}",
        )
