"""The app's typed state: one ``Server`` on ``app.state.server``, which every endpoint reads
through ``server_of(request)`` instead of a closure over ``create_app``'s locals.

Two parts, because they live for different times: what ``create_app`` makes (settings,
counters, the gate) exists from the start; what the lifespan opens (the store, the profile
book, the lobby, a cluster node's presence and relay) is ``Server.running``, there once the
server has started.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from starlette.requests import HTTPConnection

from dudo.profiles.book import ProfileBook
from dudo.server.cluster.lease import LeaseKeeper
from dudo.server.cluster.presence import Cluster
from dudo.server.cluster.relay import Relay
from dudo.server.collector import Collector
from dudo.server.guard.gate import Gate
from dudo.server.guard.proxies import OriginWarnings
from dudo.server.guard.refusals import HandshakeRefusals
from dudo.server.site.lobby import Lobby
from dudo.server.web.middleware import QuietBadFrames
from dudo.server.web.replays import Analyses
from dudo.server.web.settings import ServerSettings
from dudo.store import Store


class Metrics:
    """Counters for /metrics (Prometheus text format)."""

    def __init__(self) -> None:
        self.messages = 0
        self.rejected = 0
        self.sockets = 0
        self.closed_sockets = 0
        self.started = time.time()


@dataclass
class Running:
    """What the lifespan opens and closes: the store, the profile book and the lobby; on a
    cluster node its presence, relay and lease keeper; the collector under the clock policy.
    """

    store: Store
    book: ProfileBook
    lobby: Lobby
    cluster: Cluster | None = None
    relay: Relay | None = None
    keeper: LeaseKeeper | None = None
    collector: Collector | None = None


@dataclass
class Server:
    """Everything the endpoints share, made by ``create_app``."""

    settings: ServerSettings
    allowed_origins: tuple[str, ...]
    gate: Gate
    analyses: Analyses
    metrics: Metrics = field(default_factory=Metrics)
    origin_warnings: OriginWarnings = field(default_factory=OriginWarnings)
    refusals: HandshakeRefusals = field(default_factory=HandshakeRefusals)
    quiet: QuietBadFrames = field(default_factory=QuietBadFrames)
    running: Running | None = None

    @property
    def live(self) -> Running:
        """What the lifespan opened; an error before it has (no request is served then)."""
        if self.running is None:
            raise RuntimeError("the server has not started: its lifespan opens the store")
        return self.running

    @property
    def lobby(self) -> Lobby:
        return self.live.lobby


def server_of(connection: HTTPConnection) -> Server:
    """The app's ``Server``, for a request or a WebSocket."""
    server: Server = connection.app.state.server
    return server
