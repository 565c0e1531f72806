"""Who sent a request, and from which page: the client's address (or the one a cluster node
that relayed it names), the browser's own id, and whether a page's origin is this site's.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.requests import HTTPConnection

from dudo.server.cluster.relay import ADDRESS_HEADER
from dudo.server.guard.proxies import SCOPE_KEY
from dudo.server.web.state import server_of


def _without_default_port(netloc: str, scheme: str) -> str:
    default = {"http": ":80", "https": ":443"}.get(scheme)
    return netloc[: -len(default)] if default and netloc.endswith(default) else netloc


def origin_allowed(origin: str | None, host: str | None, allowed: tuple[str, ...] = ()) -> bool:
    """Whether a WebSocket from a page of ``origin`` may talk to this server.

    No Origin header: not a browser (dudo.client, bots, curl), allowed. Otherwise the
    origin must be the site itself, the host and port the request was sent to (the Host
    header), or one of ``allowed``.
    """
    if origin is None:
        return True
    origin = origin.strip().lower().rstrip("/")
    if origin in allowed:
        return True
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not parts.netloc or not host:
        return False
    return _without_default_port(parts.netloc, parts.scheme) == _without_default_port(
        host.strip().lower(), parts.scheme
    )


def relayed(request: HTTPConnection) -> bool:
    """Whether another node of the cluster sent this request on (with the secret)."""
    running = server_of(request).running
    relay = running.relay if running is not None else None
    return relay is not None and relay.trusted(request.headers)


def client_of(request: HTTPConnection) -> str:
    """The client's address: the connection's, or the one a relaying node names."""
    if relayed(request):
        return request.headers.get(ADDRESS_HEADER, "unknown")[:64]
    return request.client.host if request.client else "unknown"


def client_id_of(request: HTTPConnection) -> str | None:
    """The browser's own random id (header X-Dudo-Client, or ``client`` in a WebSocket's
    query), so the guess limit can tell apart people behind one address."""
    found = request.headers.get("x-dudo-client") or request.query_params.get("client")
    return found[:64] if found else None


def own_origin(connection: HTTPConnection, origin: str | None) -> bool:
    """Whether ``origin`` is this site's (its Host, an allowed origin, or the public host
    a trusted proxy names in X-Forwarded-Host / Forwarded): one rule for the table's
    socket and the share panel's QR code."""
    if origin_allowed(
        origin, connection.headers.get("host"), server_of(connection).allowed_origins
    ):
        return True
    forwarded = connection.scope.get(SCOPE_KEY)
    return forwarded is not None and forwarded.believed and origin_allowed(origin, forwarded.host)
