"""The ASGI application: HTTP endpoints for rooms, the WebSocket for play, health, metrics.

Transport code only: it parses, authenticates and forwards to the room's actor, and maps
refusals to responses. It never changes game state itself (DESIGN.md, principle 5).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from redis.exceptions import RedisError
from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders, QueryParams
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from dudo import __version__
from dudo.profiles.book import open_book
from dudo.profiles.desk import SECRET_PATTERN, CreationLimit, ProfileDesk, key_hash
from dudo.profiles.series import game_recorder
from dudo.rules import Rules, RulesError
from dudo.server.cluster.lease import LeaseKeeper
from dudo.server.cluster.presence import Cluster, ClusterSettings
from dudo.server.cluster.relay import ADDRESS_HEADER, PROFILE_HEADER, Relay
from dudo.server.cluster.site import RedisSite
from dudo.server.guard.gate import Gate, GateLimits
from dudo.server.guard.proxies import SCOPE_KEY, ForwardedHeaders, OriginWarnings
from dudo.server.guard.refusals import HandshakeRefusals
from dudo.server.host.collector import Collector
from dudo.server.logs import log_event
from dudo.server.outage import within
from dudo.server.protocol import (
    MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    ProtocolError,
    error_message,
    parse_client_message,
)
from dudo.server.site.lobby import Elsewhere, Lobby, SiteLimits
from dudo.server.table.connection import Connection
from dudo.server.table.names import clean_name
from dudo.server.table.room import RoomConfig, RoomError
from dudo.server.web.assets import CompressDynamic
from dudo.server.web.pages import STYLE_HASH, embed_requested, error_page, page_routes
from dudo.server.web.replays import Analyses, replay_routes, worker_pool
from dudo.server.web.share import clean_origin, qr_svg, share_link
from dudo.store import Store, open_store
from dudo.store.base import hide_password

log = logging.getLogger("dudo.server")

DEFAULT_DATABASE = "sqlite:///dudo.db"
# The WebSocket subprotocol a client offers (with "token.<seat token>" beside it); the
# server accepts it by name, as browsers require when a client offers any.
SUBPROTOCOL = "dudo.v1"
# /healthz waits at most this long for the database (and Redis), so it answers within 1 s.
HEALTH_PATIENCE = 0.8


@dataclass
class ServerSettings:
    """How the server runs; ``from_env`` reads DUDO_DATABASE and friends."""

    database: str = DEFAULT_DATABASE
    room: RoomConfig = field(default_factory=RoomConfig)
    gate: GateLimits = field(default_factory=GateLimits)
    # "clock": the server's own collector policy (dudo.server.host.collector); "python": leave
    # Python's garbage collector as it is (for comparison; DUDO_GC=python).
    gc_policy: str = "clock"
    # Origins (``https://host[:port]``) whose pages may open a WebSocket besides the site's
    # own (the Host the request came to); DUDO_ALLOWED_ORIGINS, comma separated.
    allowed_origins: tuple[str, ...] = ()
    # The reverse proxies in front (--forwarded-allow-ips): only they may name the client's
    # address, scheme and public host (dudo.server.guard.proxies).
    proxies: tuple[str, ...] = ()
    limits: SiteLimits = field(default_factory=SiteLimits)
    sweep_interval: float = 60.0  # seconds between looks for idle rooms (DUDO_SWEEP_INTERVAL)
    # A cluster node (dudo serve --cluster): Redis's URL, and the address other nodes
    # reach this one at (http://host:port). None: one process holding every room.
    cluster: str | None = None
    advertise: str | None = None
    cluster_settings: ClusterSettings = field(default_factory=ClusterSettings)

    @classmethod
    def from_env(cls, database: str | None = None) -> ServerSettings:
        settings = cls(database=database or os.environ.get("DUDO_DATABASE", DEFAULT_DATABASE),
                       gc_policy=os.environ.get("DUDO_GC", "clock"),
                       allowed_origins=parse_origins(os.environ.get("DUDO_ALLOWED_ORIGINS", "")))
        if settings.gc_policy not in ("clock", "python"):
            raise ValueError(f"DUDO_GC must be 'clock' or 'python', not {settings.gc_policy!r}")
        for name in ("bot_delay", "reveal_pause", "seed_window", "grace", "quick_fill",
                     "close_after_game", "close_when_idle", "close_empty_lobby", "write_patience"):
            value = os.environ.get(f"DUDO_{name.upper()}")
            if value is not None:
                setattr(settings.room, name, _env_number(name, value, float, "seconds"))
        for name in ("lease", "renew_every", "rescan_every", "stall_limit"):
            value = os.environ.get(f"DUDO_{name.upper()}")
            if value is not None:
                number = _env_number(name, value, float, "number")
                if number <= 0:
                    raise ValueError(f"DUDO_{name.upper()} must be a positive number of "
                                     "seconds")
                setattr(settings.cluster_settings, name, number)
        value = os.environ.get("DUDO_REDIS_CONNECTIONS")
        if value is not None:
            settings.cluster_settings.redis_connections = _env_number(
                "redis_connections", value, int, "whole number")
            if settings.cluster_settings.redis_connections < 1:
                raise ValueError("DUDO_REDIS_CONNECTIONS must be at least 1")
        value = os.environ.get("DUDO_SWEEP_INTERVAL")
        if value is not None:
            settings.sweep_interval = _env_number("sweep_interval", value, float, "number")
            if settings.sweep_interval <= 0:
                raise ValueError("DUDO_SWEEP_INTERVAL must be a positive number of seconds")
        for name, kind in GateLimits.__annotations__.items():
            value = os.environ.get(f"DUDO_{name.upper()}")
            if value is not None:
                number = float if kind == "float" else int
                setattr(settings.gate, name, _env_number(name, value, number, "number"))
        value = os.environ.get("DUDO_MAX_SPECTATORS")
        if value is not None:
            settings.room.max_spectators = _env_number("max_spectators", value, int,
                                                       "whole number")
        for name in ("max_rooms", "max_lobbies", "creation_burst", "guesses_per_client",
                     "guesses_per_address", "ipv4_prefix", "ipv6_prefix"):
            value = os.environ.get(f"DUDO_{name.upper()}")
            if value is not None:
                setattr(settings.limits, name, _env_number(name, value, int, "whole number"))
        for name in ("creations_per_minute", "closed_retention", "group_share",
                     "evict_idle_after"):
            value = os.environ.get(f"DUDO_{name.upper()}")
            if value is not None:
                setattr(settings.limits, name, _env_number(name, value, float, "number"))
        if not (0 <= settings.limits.ipv4_prefix <= 32 and 0 <= settings.limits.ipv6_prefix <= 128):
            raise ValueError("DUDO_IPV4_PREFIX is 0..32 and DUDO_IPV6_PREFIX 0..128")
        if not 0 < settings.limits.group_share <= 1:
            raise ValueError("DUDO_GROUP_SHARE is a share of the lobbies: above 0, at most 1")
        return settings


def _env_number(name: str, value: str, kind: type[float] | type[int], what: str) -> Any:
    """A DUDO_* setting as a number, or a ValueError that names the setting."""
    try:
        number = kind(value)
    except ValueError:
        raise ValueError(f"DUDO_{name.upper()} must be a {what}, not {value!r}") from None
    if number < 0 or number != number:  # negative, or NaN
        raise ValueError(f"DUDO_{name.upper()} must not be negative, not {value!r}")
    return number


def parse_origins(text: str) -> tuple[str, ...]:
    """``https://a.example, http://localhost:8000`` as origins (lower case, no slash);
    raises ValueError for an entry that is not a scheme and a host."""
    origins = []
    for entry in text.split(","):
        origin = entry.strip().lower().rstrip("/")
        if not origin:
            continue
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.path:
            raise ValueError(f"DUDO_ALLOWED_ORIGINS: {entry.strip()!r} is not an origin "
                             "like https://dudo.example or http://localhost:8000")
        origins.append(origin)
    return tuple(origins)


def _without_default_port(netloc: str, scheme: str) -> str:
    default = {"http": ":80", "https": ":443"}.get(scheme)
    return netloc[:-len(default)] if default and netloc.endswith(default) else netloc


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
    return (_without_default_port(parts.netloc, parts.scheme)
            == _without_default_port(host.strip().lower(), parts.scheme))


# Only this site's own files: no inline scripts, no other origins, no <style> element but
# the rules sheet's own (by its hash). style-src-attr: the table places its seats with
# style="left:..;top:.." (web/js/table.js).
CONTENT_SECURITY_POLICY = (
    f"default-src 'self'; script-src 'self'; style-src 'self' {STYLE_HASH}; "
    "style-src-attr 'unsafe-inline'; img-src 'self'; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'")


class SecurityHeaders:
    """Headers for every HTTP response: a content security policy, no MIME sniffing, no
    referrer, and no framing by other sites, except the rules sheet asked for with
    ``?embed=1`` (meant for iframes anywhere)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        embeddable = (scope["path"] == "/rules"
                      and embed_requested(QueryParams(scope["query_string"])))
        policy = CONTENT_SECURITY_POLICY + ("" if embeddable else "; frame-ancestors 'none'")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers["Content-Security-Policy"] = policy
                headers["X-Content-Type-Options"] = "nosniff"
                headers["Referrer-Policy"] = "no-referrer"
                if not embeddable:
                    headers["X-Frame-Options"] = "DENY"
            await send(message)

        await self.app(scope, receive, send_with_headers)


INTERNAL_ERROR = {"error": "internal",
                  "message": "something went wrong on the server; it has been logged"}


class CatchAll:
    """An exception a handler did not expect: logged once (with its traceback), and the
    client gets a JSON 500 in the usual error shape (a WebSocket: close code 1011)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        started = closed = False

        async def watch(message: Message) -> None:
            nonlocal started, closed
            if message["type"] in ("http.response.start", "websocket.accept",
                                   "websocket.http.response.start"):
                started = True
            elif message["type"] == "websocket.close":
                closed = True
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except Exception:
            if scope["type"] == "http" and started:
                raise  # half a response is out: the server logs it and drops the connection
            # The path only: a WebSocket's query string carries its seat token.
            log.error("unhandled_error", exc_info=True, extra={"fields": {
                "event": "unhandled_error", "method": scope.get("method", "WEBSOCKET"),
                "path": scope["path"][:200]}})
            with contextlib.suppress(Exception):
                if scope["type"] == "http":
                    await JSONResponse(INTERNAL_ERROR, status_code=500)(scope, receive, send)
                elif not closed:
                    await send({"type": "websocket.close", "code": 1011})


class QuietBadFrames(logging.Filter):
    """uvicorn logs a text frame that is not UTF-8 as an error with a traceback (then
    closes the socket with 1007): that is a client's mistake, worth one line at info."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if not isinstance(error, UnicodeDecodeError) or "utf-8" not in str(record.msg).lower():
            return True  # (an app's own UnicodeDecodeError is a bug: logged as it is)
        if not logging.getLogger(record.name).isEnabledFor(logging.INFO):
            return False
        record.levelno, record.levelname = logging.INFO, "INFO"
        record.exc_info = record.exc_text = None
        record.msg, record.args = "bad_utf8_frame", ()
        record.__dict__["fields"] = {
            "event": "bad_utf8_frame",
            "message": "a WebSocket text frame was not UTF-8: closed with 1007"}
        return True


Level = Annotated[str, Field(pattern="^(easy|normal|hard)$")]
ProfileSecret = Annotated[str, Field(pattern=SECRET_PATTERN)]


class CreateRoom(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Field(min_length=1, max_length=64)]
    rules: dict[str, Any] = Field(default_factory=lambda: {"preset": "perudo"})
    seats: Annotated[int, Field(ge=2, le=6)] = 4
    bots: Annotated[list[Level | None], Field(max_length=6)] = Field(default_factory=list)
    timer: Annotated[int, Field(ge=0, le=600)] = 0
    public: bool = False
    show_lost_dice: bool = True  # a display option: dice lost so far, drawn greyed
    profile: ProfileSecret | None = None  # this device's profile secret (dudo.profiles)


class JoinRoom(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Field(min_length=1, max_length=64)]
    invite: Annotated[str, Field(max_length=64)] | None = None  # for a locked room
    profile: ProfileSecret | None = None


class QuickGame(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Field(min_length=1, max_length=64)]
    rules: dict[str, Any] | None = None  # house rules; players are matched by them
    profile: ProfileSecret | None = None


class Metrics:
    """Counters for /metrics (Prometheus text format)."""

    def __init__(self) -> None:
        self.messages = 0
        self.rejected = 0
        self.sockets = 0
        self.closed_sockets = 0
        self.started = time.time()


async def stop_task(task: asyncio.Task[Any], patience: float = 5.0) -> None:
    """Cancel a background task and wait for it to end, cancelling again if the first
    cancellation was lost (redis-py's asyncio client can swallow one that lands mid-command,
    redis/redis-py#2028), so that shutting down can never hang on it."""
    end = time.monotonic() + patience
    while not task.done():
        if time.monotonic() > end:
            log_event(log, "task_would_not_stop", logging.WARNING, task=task.get_name())
            return
        task.cancel()
        await asyncio.wait({task}, timeout=0.2)
    if not task.cancelled() and task.exception() is not None:
        log.error("background task failed", exc_info=task.exception())


def create_app(settings: ServerSettings | None = None, store: Store | None = None,
               lobby_factory: Callable[[Store, RoomConfig], Lobby] | None = None) -> Starlette:
    """The dudo server as an ASGI app (``dudo serve`` runs it with uvicorn).

    ``store`` and ``lobby_factory`` let tests put in their own storage, clock and entropy.
    """
    settings = settings or ServerSettings.from_env()
    allowed_origins = parse_origins(",".join(settings.allowed_origins))
    origin_warnings = OriginWarnings()
    metrics = Metrics()
    gate = Gate(settings.gate)
    state: dict[str, Any] = {}

    quiet = QuietBadFrames()
    refusals = HandshakeRefusals()
    # DUDO_ANALYSIS_WORKER=thread: analyses in a thread of the server, as they once were
    # (bench/analysis_flood.py compares the two).
    analyses = Analyses(lambda game_id: state["store"].load_game(game_id),
                        executor=None if os.environ.get("DUDO_ANALYSIS_WORKER") == "thread"
                        else worker_pool)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        logging.getLogger("uvicorn.error").addFilter(quiet)
        logging.getLogger("uvicorn.error").addFilter(refusals)
        chosen = store or open_store(settings.database)
        await chosen.open()
        state["book"] = await open_book(chosen)
        room_config = settings.room
        if room_config.after_game is None:
            room_config = dataclasses.replace(
                room_config, after_game=game_recorder(lambda: state["book"]))
        lobby = (lobby_factory or Lobby)(chosen, room_config)
        lobby.configure(settings.limits)
        tasks = []
        if settings.cluster:
            cluster = Cluster(settings.cluster, settings.advertise or "http://127.0.0.1:8000",
                              settings.cluster_settings)
            await cluster.join()
            relay = state["relay"] = Relay(lambda: cluster.secret)
            site = RedisSite(cluster, relay.join)
            lobby.join_site(site)
            state["cluster"] = cluster
            timings = settings.cluster_settings
            keeper = state["keeper"] = LeaseKeeper(
                settings.cluster, lambda: cluster.node_key, cluster.address, timings.lease,
                timings.renew_every, timings.stall_limit)
            keeper.start()
            app.state.cluster, app.state.keeper = cluster, keeper  # for tests and tools
            tasks.append(asyncio.create_task(keeper.beat_forever(), name="dudo-heartbeat"))
        recovered = await lobby.recover()
        state["lobby"], state["store"] = lobby, chosen
        log_event(log, "server_started", database=hide_password(settings.database),
                  rooms_recovered=recovered,
                  node=lobby.site.node_id)
        if isinstance(lobby.site, RedisSite):
            tasks.append(asyncio.create_task(lobby.site.keep_forever(lobby), name="dudo-lease"))
        tasks.append(asyncio.create_task(lobby.sweep_forever(settings.sweep_interval),
                                         name="dudo-room-sweeper"))
        app.state.drain = lobby.drain  # DrainingServer hands rooms off on SIGTERM
        if settings.gc_policy == "clock":
            collector = state["collector"] = Collector(
                released=lambda: metrics.closed_sockets + lobby.closed_rooms,
                live=lambda: metrics.sockets)
            collector.start()
            tasks.append(asyncio.create_task(collector.run(), name="dudo-gc"))
        try:
            yield
        finally:
            for task in tasks:
                await stop_task(task)
            if "collector" in state:
                state.pop("collector").stop()
            if "keeper" in state:  # before the drain ends the lease (it could not revive
                state.pop("keeper").stop()  # it anyway: it renews only a living key)
            await lobby.drain()  # a cluster node hands its rooms off (no-op alone)
            await lobby.close()
            if "relay" in state:
                await state.pop("relay").close()
            if "cluster" in state:
                await state.pop("cluster").close()
            await chosen.close()
            logging.getLogger("uvicorn.error").removeFilter(quiet)
            logging.getLogger("uvicorn.error").removeFilter(refusals)
            analyses.close()

    def lobby() -> Lobby:
        found: Lobby = state["lobby"]
        return found

    def relayed(request: Request | WebSocket) -> bool:
        """Whether another node of the cluster sent this request on (with the secret)."""
        relay: Relay | None = state.get("relay")
        return relay is not None and relay.trusted(request.headers)

    def client_of(request: Request | WebSocket) -> str:
        if relayed(request):
            return request.headers.get(ADDRESS_HEADER, "unknown")[:64]
        return request.client.host if request.client else "unknown"

    def client_id_of(request: Request | WebSocket) -> str | None:
        """The browser's own random id (header X-Dudo-Client, or ``client`` in a WebSocket's
        query), so the guess limit can tell apart people behind one address."""
        found = request.headers.get("x-dudo-client") or request.query_params.get("client")
        return found[:64] if found else None

    def refused(error: RoomError) -> JSONResponse:
        status = {"no_room": 404, "too_many_guesses": 429, "full": 409, "started": 409,
                  "server_full": 503, "too_large": 413, "too_many_rooms": 429, "locked": 403,
                  "unsupported_media_type": 415, "moved": 503,
                  "unavailable": 503}.get(error.code, 400)
        headers = {"Retry-After": "1"} if error.code == "unavailable" else None
        return JSONResponse({"error": error.code, "message": str(error)}, status_code=status,
                            headers=headers)

    async def read_json(request: Request, model: type[BaseModel]) -> Any:
        """The body as ``model``: JSON (by Content-Type: a form cannot send it from another
        site), read only up to the size limit (a bigger one is refused as soon as that is
        known, from Content-Length or the stream, and the rest is never read)."""
        body = await read_body(request)
        try:
            return model.model_validate_json(body or b"{}")
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "body"
            raise RoomError("bad_request", f"{where}: {first['msg']}") from None

    async def read_body(request: Request) -> bytes:
        """A JSON request's body, up to the size limit (see read_json)."""
        too_large = RoomError("too_large", f"requests are limited to {MAX_MESSAGE_BYTES} bytes")
        declared = request.headers.get("content-length")
        if declared is not None:
            if not (declared.isascii() and declared.isdigit()):
                raise RoomError("bad_request", "Content-Length is not a number")
            if int(declared) > MAX_MESSAGE_BYTES:
                raise too_large
        media_type = request.headers.get("content-type", "").partition(";")[0]
        if media_type.strip().lower() != "application/json":
            raise RoomError("unsupported_media_type",
                            "send the body as JSON, with Content-Type: application/json")
        body = bytearray()
        try:
            async for chunk in request.stream():
                body += chunk
                if len(body) > MAX_MESSAGE_BYTES:
                    raise too_large
        except ClientDisconnect:
            raise RoomError("bad_request", "the request ended before its body") from None
        return bytes(body)

    async def locate(request: Request | WebSocket) -> Any:
        """The room a request names: a Room here, or Elsewhere (another node holds it)."""
        return await lobby().locate(request.path_params["code"], client_of(request),
                                    client_id_of(request), relayed=relayed(request))

    async def relay_http(request: Request, where: Elsewhere, body: bytes | None) -> Response:
        relay: Relay = state["relay"]
        query = f"?{request.url.query}" if request.url.query else ""
        return await relay.forward(where.address, request.method, request.url.path + query,
                                   body, client_of(request), client_id_of(request))

    async def profile_of(request: Request, secret: str | None) -> str | None:
        """The public id of the profile a join names by its secret; an unknown secret
        counts as a guess and the seat is taken without a profile."""
        if secret is None:
            return None
        found = await state["book"].by_key(key_hash(secret))
        if found is None:
            await lobby().wrong_key(client_of(request), client_id_of(request))
            return None
        return str(found.id)

    async def create_room(request: Request) -> Response:
        try:
            body: CreateRoom = await read_json(request, CreateRoom)
            name = clean_name(body.name)
            rules = Rules.from_json(body.rules)
            if body.timer and body.timer < 5:
                raise RoomError("bad_timer", "the turn timer is 0 (off) or 5 to 600 seconds")
            joined = await lobby().create(name, rules=rules, seats=body.seats, bots=body.bots,
                                          timer=body.timer, public=body.public,
                                          show_lost_dice=body.show_lost_dice,
                                          client=client_of(request),
                                          profile=await profile_of(request, body.profile))
        except RoomError as error:
            return refused(error)
        except (RulesError, ValueError) as error:
            return JSONResponse({"error": "bad_request", "message": str(error)}, 400)
        return JSONResponse({**joined, "url": f"/r/{joined['code']}"}, status_code=201)

    async def join_room(request: Request) -> Response:
        try:
            room = await locate(request)
            if isinstance(room, Elsewhere):
                return await relay_http(request, room, await read_body(request))
            body: JoinRoom = await read_json(request, JoinRoom)
            try:
                profile = await profile_of(request, body.profile)
                if relayed(request) and request.headers.get(PROFILE_HEADER):
                    profile = request.headers[PROFILE_HEADER][:32]  # found by the sender
                joined = await room.call("join", clean_name(body.name), body.invite, profile)
            except RoomError as error:
                if error.code == "locked" and body.invite:
                    await lobby().wrong_key(client_of(request), client_id_of(request))
                raise
        except RoomError as error:
            return refused(error)
        except ValueError as error:
            return JSONResponse({"error": "bad_request", "message": str(error)}, 400)
        return JSONResponse({**joined, "url": f"/r/{joined['code']}"})

    async def quick_game(request: Request) -> Response:
        try:
            wanted: QuickGame = await read_json(request, QuickGame)
            rules = Rules.from_json(wanted.rules) if wanted.rules is not None else None
            joined = await lobby().quick(clean_name(wanted.name), client=client_of(request),
                                         rules=rules,
                                         profile=await profile_of(request, wanted.profile))
        except RoomError as error:
            return refused(error)
        except (RulesError, ValueError) as error:
            return JSONResponse({"error": "bad_request", "message": str(error)}, 400)
        return JSONResponse({**joined, "url": f"/r/{joined['code']}"})

    async def room_info(request: Request) -> Response:
        try:
            room = await locate(request)
            if isinstance(room, Elsewhere):
                return await relay_http(request, room, None)
        except RoomError as error:
            return refused(error)
        return JSONResponse(await room.call("summary"))

    def own_origin(connection: Request | WebSocket, origin: str | None) -> bool:
        """Whether ``origin`` is this site's (its Host, an allowed origin, or the public host
        a trusted proxy names in X-Forwarded-Host / Forwarded): one rule for the table's
        socket and the share panel's QR code."""
        if origin_allowed(origin, connection.headers.get("host"), allowed_origins):
            return True
        forwarded = connection.scope.get(SCOPE_KEY)
        return (forwarded is not None and forwarded.believed
                and origin_allowed(origin, forwarded.host))

    async def room_qr(request: Request) -> Response:
        """The share panel's QR code (dudo.server.web.share): the room's link for the page's
        ``?origin=``, with the host's ``?invite=`` key if given. An unknown room, or a key
        that is not the room's, is answered like an address that does not exist."""
        nothing = JSONResponse({"error": "not_found",
                                "message": "there is nothing at this address"}, 404)
        invite = request.query_params.get("invite") or None
        origin = clean_origin(request.query_params.get("origin", ""))
        if not relayed(request) and (origin is None or not own_origin(request, origin)):
            return JSONResponse({"error": "bad_request", "message": "origin: give this "
                                 "site's own origin, as the page's location.origin"}, 400)
        try:
            room = await locate(request)
            if isinstance(room, Elsewhere):
                return await relay_http(request, room, None)
            if invite is not None and not await room.call("invite_matches", invite):
                return nothing
        except RoomError as error:
            return nothing if error.code == "no_room" else refused(error)
        assert origin is not None
        # The image is the same for the same address: the browser keeps it a day. Private:
        # the host's address carries the invite key.
        return Response(qr_svg(share_link(origin, room.code, invite)),
                        media_type="image/svg+xml",
                        headers={"Cache-Control": "private, max-age=86400"})

    async def public_rooms(request: Request) -> Response:
        return JSONResponse({"rooms": await lobby().list_public()})

    async def game_record(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        if not (game_id.isascii() and game_id.isalnum()) or len(game_id) > 40:
            return JSONResponse({"error": "bad_request", "message": "not a game id"}, 400)
        record = await state["store"].load_game(game_id)
        if record is None:
            return JSONResponse({"error": "no_game",
                                 "message": "no finished game with that id"}, 404)
        return JSONResponse(record)

    async def answers(check: Awaitable[Any], patience: float = HEALTH_PATIENCE) -> bool:
        """Whether a probe comes back true in time (a blackholed database or Redis must
        not hold /healthz up: it answers within a second whatever they do)."""
        try:
            return bool(await within(check, patience))
        except Exception:
            return False

    async def database_answers() -> bool:
        await state["store"].is_live("....")  # one round trip; no room has that code
        return True

    async def health(request: Request) -> Response:
        answer: dict[str, Any] = {"status": "ok", "version": __version__,
                                  "protocol": PROTOCOL_VERSION, "rooms": len(lobby().rooms)}
        cluster: Cluster | None = state.get("cluster")
        # Healthy when the database answers (one round trip) and, in a cluster, Redis
        # does and the node holds its lease: a load balancer stops sending it players
        # otherwise. Both probes run at once, each for at most HEALTH_PATIENCE.
        probes = [answers(database_answers())]
        if cluster is not None:
            probes.append(answers(cluster.ping()))
        database, *rest = await asyncio.gather(*probes)
        answer["database"] = database
        if cluster is None:
            return JSONResponse(answer | {"status": "ok" if database else "unhealthy"},
                                status_code=200 if database else 503)
        redis_ok = rest[0]
        healthy = redis_ok and database and cluster.healthy and not lobby().draining
        answer.update(status="ok" if healthy else "unhealthy", node=cluster.node_id,
                      redis=redis_ok, database=database, lease=cluster.healthy,
                      draining=lobby().draining)
        return JSONResponse(answer, status_code=200 if healthy else 503)

    async def metrics_endpoint(request: Request) -> Response:
        rooms = lobby().rooms.values()
        store_ = state["store"]
        lines = [
            "# TYPE dudo_rooms gauge", f"dudo_rooms {len(lobby().rooms)}",
            "# TYPE dudo_rooms_playing gauge",
            f"dudo_rooms_playing {sum(1 for r in rooms if r.status == 'playing')}",
            "# TYPE dudo_sockets gauge", f"dudo_sockets {metrics.sockets}",
            "# TYPE dudo_sockets_refused_total counter",
            f"dudo_sockets_refused_total {gate.refused_sockets}",
            "# TYPE dudo_connections_dropped_total counter",
            f"dudo_connections_dropped_total {gate.dropped_connections}",
            "# TYPE dudo_room_creations_refused_total counter",
            f"dudo_room_creations_refused_total {lobby().refused_creations}",
            "# TYPE dudo_messages_total counter", f"dudo_messages_total {metrics.messages}",
            "# TYPE dudo_messages_rejected_total counter",
            f"dudo_messages_rejected_total {metrics.rejected}",
            "# TYPE dudo_store_commits_total counter",
            f"dudo_store_commits_total {getattr(store_, 'commits', 0)}",
            "# TYPE dudo_store_entries_total counter",
            f"dudo_store_entries_total {getattr(store_, 'appended', 0)}",
            "# TYPE dudo_store_slowest_commit_seconds gauge",
            f"dudo_store_slowest_commit_seconds {getattr(store_, 'slowest_commit', 0.0):.4f}",
            "# TYPE dudo_store_slow_commits_total counter",
            f"dudo_store_slow_commits_total {getattr(store_, 'slow_commits', 0)}",
            # Python's own allocations, to tell a leak (these grow) from memory the
            # allocator keeps for reuse (these fall back while the RSS stays).
            "# TYPE dudo_python_allocated_blocks gauge",
            f"dudo_python_allocated_blocks {sys.getallocatedblocks()}",
            "# TYPE dudo_uptime_seconds gauge",
            f"dudo_uptime_seconds {time.time() - metrics.started:.0f}",
            *(state["collector"].metrics() if "collector" in state else []),
            *refusals.metrics(),
            "# TYPE dudo_analyses_made_total counter",
            f"dudo_analyses_made_total {analyses.made}",
            "# TYPE dudo_analyses_refused_total counter",
            *(f'dudo_analyses_refused_total{{reason="{reason}"}} {count}'
              for reason, count in sorted(analyses.refused.items())),
            *lobby().health.metrics(),
            *cluster_metrics(),
        ]
        return PlainTextResponse("\n".join(lines) + "\n")

    def cluster_metrics() -> list[str]:
        cluster: Cluster | None = state.get("cluster")
        relay: Relay | None = state.get("relay")
        keeper: LeaseKeeper | None = state.get("keeper")
        if cluster is None or relay is None:
            return []
        return [
            "# TYPE dudo_node_lease gauge", f"dudo_node_lease {int(cluster.healthy)}",
            "# TYPE dudo_node_leases_lost_total counter",
            f"dudo_node_leases_lost_total {cluster.lease_lost}",
            "# TYPE dudo_lease_thread_renewals_total counter",
            f"dudo_lease_thread_renewals_total {keeper.renewals if keeper else 0}",
            "# TYPE dudo_rooms_taken_over_total counter",
            f"dudo_rooms_taken_over_total {lobby().adopted}",
            "# TYPE dudo_relayed_requests_total counter",
            f"dudo_relayed_requests_total {relay.requests}",
            "# TYPE dudo_relayed_sockets gauge", f"dudo_relayed_sockets {relay.sockets}",
            "# TYPE dudo_relayed_sockets_total counter",
            f"dudo_relayed_sockets_total {relay.sockets_total}",
        ]

    async def room_socket(websocket: WebSocket) -> None:
        address = client_of(websocket)
        refusal = gate.admit(address)
        if refusal is not None:
            # A flood from one address is refused in the handshake itself (HTTP 429 with
            # the error shape), before the socket costs an upgrade, a task and a close.
            code, message = refusal
            refusals.refused(code)  # counted; uvicorn's error line about it is dropped
            await websocket.send_denial_response(JSONResponse(
                {"error": code, "message": message}, status_code=429))
            return
        try:
            offered = websocket.scope.get("subprotocols") or []
            await websocket.accept(subprotocol=SUBPROTOCOL if SUBPROTOCOL in offered else None)
            await seated_socket(websocket, address, offered)
        finally:
            gate.release(address)

    async def seated_socket(websocket: WebSocket, address: str, offered: list[str]) -> None:
        # Any page may open a WebSocket anywhere (no same-origin rule for sockets): only
        # this site's own pages, and origins the operator allows, may take a seat.
        # Behind a proxy that does not pass Host on, the public host comes in
        # X-Forwarded-Host (or Forwarded), believed only from --forwarded-allow-ips.
        origin = websocket.headers.get("origin")
        if not own_origin(websocket, origin):
            origin_warnings.refused(origin or "", websocket.headers.get("host"),
                                    websocket.scope.get(SCOPE_KEY))
            await websocket.send_text(json.dumps(error_message(
                "bad_origin", "pages from another site cannot connect to this server")))
            await websocket.close(code=4403)
            return
        try:
            room = await locate(websocket)
        except RoomError as error:
            await websocket.send_text(json.dumps(error_message(error.code, str(error))))
            await websocket.close(code=4412 if error.code == "moved" else 4404)
            return
        except RedisError:  # a cluster node that cannot reach Redis: try again later
            await websocket.send_text(json.dumps(error_message(
                "unavailable", "the server cannot reach its cluster just now: reconnect")))
            await websocket.close(code=1013)
            return
        if isinstance(room, Elsewhere):
            relay: Relay = state["relay"]
            await relay.socket(websocket, room.address, room.code, offered, address,
                               client_id_of(websocket))
            return
        # The seat token: in the subprotocol list ("token.<token>"), so no URL (and no
        # proxy's access log) carries it; ?token= still works, deprecated.
        token = next((part[len("token."):] for part in offered if part.startswith("token.")),
                     None) or websocket.query_params.get("token")
        seat = None
        if token:
            seat = room.seat_of(token)
            if seat is None:
                await websocket.send_text(json.dumps(error_message(
                    "bad_token", "that seat token is not valid for this room")))
                await websocket.close(code=4401)
                return
        connection = Connection(websocket.send_text, seat)

        async def write_then_close() -> None:
            # The writer ends when the room lets go of the socket (too slow to keep up,
            # replaced by a newer socket of the seat, no room for another watcher).
            await connection.write_forever()
            with contextlib.suppress(Exception):
                await websocket.close(code=connection.close_code)

        writer = asyncio.create_task(write_then_close())
        # One message budget per seat (all its sockets) and per address: more sockets
        # never buy more messages. A spectator's socket is a seat of its own.
        budget = (room.code, seat) if seat is not None else ("watcher", connection.opened)
        metrics.sockets += 1
        room.inbox.put_nowait(("connect", connection))
        try:
            while not connection.closed:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                metrics.messages += 1
                text = message.get("text")
                if text is None:
                    text = message.get("bytes") or b""
                try:
                    parsed = parse_client_message(text)
                except ProtocolError as error:
                    metrics.rejected += 1
                    if not gate.message(address, budget):
                        continue  # a flood of junk gets no answers beyond the limit
                    connection.send(error_message(error.code, str(error)))
                    continue
                if not gate.message(address, budget):
                    # Not remembered under the id: the same action may be sent again later.
                    metrics.rejected += 1
                    connection.send(error_message("rate_limited", "too many messages: slow down",
                                                  getattr(parsed, "id", None)))
                    continue
                room.inbox.put_nowait(("message", connection, parsed))
        except WebSocketDisconnect:
            pass
        finally:
            metrics.sockets -= 1
            metrics.closed_sockets += 1
            room.inbox.put_nowait(("disconnect", connection))
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await writer
            with contextlib.suppress(Exception):
                await websocket.close()

    async def guess_blocked(request: Request) -> bool:
        found = lobby()
        client, client_id = client_of(request), client_id_of(request)
        return await found.guess_blocked(client, client_id)

    async def guess_missed(request: Request) -> None:
        await lobby().wrong_key(client_of(request), client_id_of(request))

    desk = ProfileDesk(book=lambda: state["book"],
                       load_game=lambda game_id: state["store"].load_game(game_id),
                       read_json=read_json, client_of=client_of, guess_blocked=guess_blocked,
                       guess_missed=guess_missed, clean_name=clean_name,
                       creations=CreationLimit())

    routes = [
        *desk.routes(),
        *page_routes(),
        Route("/api/rooms", create_room, methods=["POST"]),
        Route("/api/rooms", public_rooms, methods=["GET"]),
        Route("/api/rooms/{code}", room_info),
        Route("/r/{code}/qr.svg", room_qr),
        Route("/api/rooms/{code}/join", join_room, methods=["POST"]),
        Route("/api/quick", quick_game, methods=["POST"]),
        Route("/api/games/{game_id}", game_record),
        *replay_routes(analyses.load, client_of, analyses),
        Route("/healthz", health),
        Route("/metrics", metrics_endpoint),
        WebSocketRoute("/ws/{code}", room_socket),
    ]

    async def cluster_unreachable(request: Request, error: Exception) -> Response:
        """Redis away (a cluster node): the request changed nothing; try again shortly."""
        log_event(log, "cluster_unreachable", logging.WARNING, path=request.url.path[:200],
                  error=str(error)[:200])
        return JSONResponse({"error": "unavailable", "message": "the server cannot reach "
                             "its cluster just now: try again in a moment"}, status_code=503)

    async def http_error(request: Request, error: Exception) -> Response:
        """Not found, method not allowed...: the JSON error shape, or a page for a browser
        that navigated there (outside /api/)."""
        assert isinstance(error, HTTPException)
        status, headers = error.status_code, error.headers
        if status < 400:
            return Response(status_code=status, headers=headers)
        code, message = {
            404: ("not_found", "there is nothing at this address"),
            405: ("method_not_allowed", "this address does not take that method"),
        }.get(status, ("bad_request", str(error.detail)))
        if ("text/html" in request.headers.get("accept", "")
                and not request.url.path.startswith("/api/")):
            return HTMLResponse(error_page(message), status_code=status, headers=headers)
        return JSONResponse({"error": code, "message": message}, status_code=status,
                            headers=headers)

    application = Starlette(routes=routes, lifespan=lifespan,
                            exception_handlers={HTTPException: http_error,
                                                RedisError: cluster_unreachable},
                            middleware=[Middleware(ForwardedHeaders, proxies=settings.proxies),
                                        Middleware(SecurityHeaders),
                                        Middleware(CompressDynamic), Middleware(CatchAll)])
    application.state.gate = gate  # dudo serve drops a flooding address's connections
    application.state.profiles = desk  # the profile API (dudo.profiles.desk), for tests
    return application
