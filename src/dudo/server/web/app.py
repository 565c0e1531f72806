"""The ASGI application: HTTP endpoints for rooms, the WebSocket for play, health, metrics.

Transport code only: it parses, authenticates and forwards to the room's actor, and maps
refusals to responses. It never changes game state itself: only a room's actor does.

``create_app`` only assembles: the settings (dudo.server.web.settings), the typed state the
endpoints share (state), the lifespan that opens and closes it (lifespan), the rooms API
(rooms), health and metrics (health), the table's socket (table_socket), the profile API
(desk), pages and replays, and what wraps every request (middleware).
"""

from __future__ import annotations

import os

from redis.exceptions import RedisError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.routing import Route, WebSocketRoute

from dudo.server.guard.gate import Gate
from dudo.server.guard.proxies import ForwardedHeaders
from dudo.server.tasks import stop_task
from dudo.server.web import health, rooms
from dudo.server.web.assets import CompressDynamic
from dudo.server.web.callers import client_of, origin_allowed
from dudo.server.web.desk import profile_desk
from dudo.server.web.lifespan import Lifespan, LobbyFactory
from dudo.server.web.middleware import (
    CONTENT_SECURITY_POLICY,
    CatchAll,
    SecurityHeaders,
    cluster_unreachable,
    http_error,
)
from dudo.server.web.pages import page_routes
from dudo.server.web.replays import Analyses, replay_routes, worker_pool
from dudo.server.web.settings import DEFAULT_DATABASE, ServerSettings, parse_origins
from dudo.server.web.state import Server
from dudo.server.web.table_socket import SUBPROTOCOL, RoomSocket, no_socket_here
from dudo.store import Store

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "DEFAULT_DATABASE",
    "SUBPROTOCOL",
    "ServerSettings",
    "create_app",
    "origin_allowed",
    "parse_origins",
    "stop_task",
]


def create_app(
    settings: ServerSettings | None = None,
    store: Store | None = None,
    lobby_factory: LobbyFactory | None = None,
) -> Starlette:
    """The dudo server as an ASGI app (``dudo serve`` runs it with uvicorn).

    ``store`` and ``lobby_factory`` let tests put in their own storage, clock and entropy.
    """
    settings = settings or ServerSettings.from_env()
    server = Server(
        settings=settings,
        allowed_origins=parse_origins(",".join(settings.allowed_origins)),
        gate=Gate(settings.gate),
        # DUDO_ANALYSIS_WORKER=thread: analyses in a thread of the server, as
        # they once were (bench/analysis_flood.py compares the two).
        analyses=Analyses(
            lambda game_id: server.live.store.load_game(game_id),
            size=settings.analysis_cache,
            executor=None if os.environ.get("DUDO_ANALYSIS_WORKER") == "thread" else worker_pool,
            per_client_burst=settings.analyses_per_client,
            requests_per_client=settings.analysis_requests,
        ),
    )
    desk = profile_desk(server)
    routes = [
        *desk.routes(),
        *page_routes(),
        Route("/api/rooms", rooms.create_room, methods=["POST"]),
        Route("/api/rooms", rooms.public_rooms, methods=["GET"]),
        Route("/api/rooms/{code}", rooms.room_info),
        Route("/r/{code}/qr.svg", rooms.room_qr),
        Route("/api/share", rooms.share_origins),
        Route("/api/rooms/{code}/join", rooms.join_room, methods=["POST"]),
        Route("/api/quick", rooms.quick_game, methods=["POST"]),
        Route("/api/games/{game_id}", rooms.game_record),
        *replay_routes(server.analyses.load, client_of, server.analyses),
        Route("/healthz", health.health),
        Route("/metrics", health.metrics_endpoint),
        WebSocketRoute("/ws/{code}", RoomSocket()),
        WebSocketRoute("/{path:path}", no_socket_here),  # last: any other address
    ]
    application = Starlette(
        routes=routes,
        lifespan=Lifespan(server, store, lobby_factory),
        exception_handlers={HTTPException: http_error, RedisError: cluster_unreachable},
        middleware=[
            Middleware(ForwardedHeaders, proxies=settings.proxies),
            Middleware(SecurityHeaders),
            Middleware(CompressDynamic),
            Middleware(CatchAll),
        ],
    )
    application.state.server = server  # what every endpoint reads (dudo.server.web.state)
    application.state.gate = server.gate  # dudo serve drops a flooding address's connections
    application.state.profiles = desk  # the profile API (dudo.profiles.desk), for tests
    return application
