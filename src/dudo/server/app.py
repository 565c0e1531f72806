"""The ASGI application: HTTP endpoints for rooms, the WebSocket for play, health, metrics.

Transport code only: it parses, authenticates and forwards to the room's actor, and maps
refusals to responses. It never changes game state itself (DESIGN.md, principle 5).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
import unicodedata
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from dudo import __version__
from dudo.rules import Rules, RulesError
from dudo.server.collector import Collector
from dudo.server.connection import Connection
from dudo.server.lobby import Lobby
from dudo.server.logs import log_event
from dudo.server.pages import page_routes
from dudo.server.protocol import (
    MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    ProtocolError,
    error_message,
    parse_client_message,
)
from dudo.server.room import RoomConfig, RoomError
from dudo.store import Store, open_store

log = logging.getLogger("dudo.server")

DEFAULT_DATABASE = "sqlite:///dudo.db"


@dataclass
class ServerSettings:
    """How the server runs; ``from_env`` reads DUDO_DATABASE and friends."""

    database: str = DEFAULT_DATABASE
    room: RoomConfig = field(default_factory=RoomConfig)
    message_rate: float = 8.0
    message_burst: int = 24
    # "clock": the server's own collector policy (dudo.server.collector); "python": leave
    # Python's garbage collector as it is (for comparison; DUDO_GC=python).
    gc_policy: str = "clock"

    @classmethod
    def from_env(cls, database: str | None = None) -> ServerSettings:
        settings = cls(database=database or os.environ.get("DUDO_DATABASE", DEFAULT_DATABASE),
                       gc_policy=os.environ.get("DUDO_GC", "clock"))
        if settings.gc_policy not in ("clock", "python"):
            raise ValueError(f"DUDO_GC must be 'clock' or 'python', not {settings.gc_policy!r}")
        for name in ("bot_delay", "reveal_pause", "seed_window", "grace", "quick_fill"):
            value = os.environ.get(f"DUDO_{name.upper()}")
            if value is not None:
                try:
                    setattr(settings.room, name, float(value))
                except ValueError:
                    raise ValueError(f"DUDO_{name.upper()} must be a number of seconds, "
                                     f"not {value!r}") from None
        return settings


class TokenBucket:
    """A per-connection rate limit: ``rate`` messages a second, bursts up to ``burst``."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.updated = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.updated) * self.rate)
        self.updated = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


def clean_name(value: str) -> str:
    """A display name: trimmed, no control characters, 1..24 characters."""
    name = "".join(ch for ch in value if unicodedata.category(ch)[0] != "C").strip()
    if not name:
        raise ValueError("a name needs at least one visible character")
    return name[:24]


Level = Annotated[str, Field(pattern="^(easy|normal|hard)$")]


class CreateRoom(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Field(min_length=1, max_length=64)]
    rules: dict[str, Any] = Field(default_factory=lambda: {"preset": "perudo"})
    seats: Annotated[int, Field(ge=2, le=6)] = 4
    bots: Annotated[list[Level | None], Field(max_length=6)] = Field(default_factory=list)
    timer: Annotated[int, Field(ge=0, le=600)] = 0
    public: bool = False


class JoinRoom(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, Field(min_length=1, max_length=64)]


class Metrics:
    """Counters for /metrics (Prometheus text format)."""

    def __init__(self) -> None:
        self.messages = 0
        self.rejected = 0
        self.sockets = 0
        self.closed_sockets = 0
        self.started = time.time()


def create_app(settings: ServerSettings | None = None, store: Store | None = None,
               lobby_factory: Callable[[Store, RoomConfig], Lobby] | None = None) -> Starlette:
    """The dudo server as an ASGI app (``dudo serve`` runs it with uvicorn).

    ``store`` and ``lobby_factory`` let tests put in their own storage, clock and entropy.
    """
    settings = settings or ServerSettings.from_env()
    metrics = Metrics()
    state: dict[str, Any] = {}

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        chosen = store or open_store(settings.database)
        await chosen.open()
        lobby = (lobby_factory or Lobby)(chosen, settings.room)
        recovered = await lobby.recover()
        state["lobby"], state["store"] = lobby, chosen
        log_event(log, "server_started", database=settings.database.split("@")[-1],
                  rooms_recovered=recovered)
        sweeper = asyncio.create_task(lobby.sweep_forever(), name="dudo-room-sweeper")
        tasks = [sweeper]
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
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            if "collector" in state:
                state.pop("collector").stop()
            await lobby.close()
            await chosen.close()

    def lobby() -> Lobby:
        found: Lobby = state["lobby"]
        return found

    def client_of(request: Request | WebSocket) -> str:
        return request.client.host if request.client else "unknown"

    def refused(error: RoomError) -> JSONResponse:
        status = {"no_room": 404, "too_many_guesses": 429, "full": 409, "started": 409,
                  "server_full": 503}.get(error.code, 400)
        return JSONResponse({"error": error.code, "message": str(error)}, status_code=status)

    async def read_json(request: Request, model: type[BaseModel]) -> Any:
        body = await request.body()
        if len(body) > MAX_MESSAGE_BYTES:
            raise RoomError("too_large", f"requests are limited to {MAX_MESSAGE_BYTES} bytes")
        try:
            return model.model_validate_json(body or b"{}")
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "body"
            raise RoomError("bad_request", f"{where}: {first['msg']}") from None

    async def create_room(request: Request) -> Response:
        try:
            body: CreateRoom = await read_json(request, CreateRoom)
            name = clean_name(body.name)
            rules = Rules.from_json(body.rules)
            if body.timer and body.timer < 5:
                raise RoomError("bad_timer", "the turn timer is 0 (off) or 5 to 600 seconds")
            joined = await lobby().create(name, rules=rules, seats=body.seats, bots=body.bots,
                                          timer=body.timer, public=body.public)
        except RoomError as error:
            return refused(error)
        except (RulesError, ValueError) as error:
            return JSONResponse({"error": "bad_request", "message": str(error)}, 400)
        return JSONResponse({**joined, "url": f"/r/{joined['code']}"}, status_code=201)

    async def join_room(request: Request) -> Response:
        try:
            room = lobby().find(request.path_params["code"], client_of(request))
            body: JoinRoom = await read_json(request, JoinRoom)
            joined = await room.call("join", clean_name(body.name))
        except RoomError as error:
            return refused(error)
        except ValueError as error:
            return JSONResponse({"error": "bad_request", "message": str(error)}, 400)
        return JSONResponse({**joined, "url": f"/r/{joined['code']}"})

    async def quick_game(request: Request) -> Response:
        try:
            body: JoinRoom = await read_json(request, JoinRoom)
            joined = await lobby().quick(clean_name(body.name))
        except RoomError as error:
            return refused(error)
        except ValueError as error:
            return JSONResponse({"error": "bad_request", "message": str(error)}, 400)
        return JSONResponse({**joined, "url": f"/r/{joined['code']}"})

    async def room_info(request: Request) -> Response:
        try:
            room = lobby().find(request.path_params["code"], client_of(request))
        except RoomError as error:
            return refused(error)
        return JSONResponse(await room.call("summary"))

    async def public_rooms(request: Request) -> Response:
        return JSONResponse({"rooms": lobby().public_rooms()})

    async def game_record(request: Request) -> Response:
        game_id = request.path_params["game_id"]
        if not game_id.isalnum() or len(game_id) > 40:
            return JSONResponse({"error": "bad_request", "message": "not a game id"}, 400)
        record = await state["store"].load_game(game_id)
        if record is None:
            return JSONResponse({"error": "no_game",
                                 "message": "no finished game with that id"}, 404)
        return JSONResponse(record)

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok", "version": __version__,
                             "protocol": PROTOCOL_VERSION, "rooms": len(lobby().rooms)})

    async def metrics_endpoint(request: Request) -> Response:
        rooms = lobby().rooms.values()
        store_ = state["store"]
        lines = [
            "# TYPE dudo_rooms gauge", f"dudo_rooms {len(lobby().rooms)}",
            "# TYPE dudo_rooms_playing gauge",
            f"dudo_rooms_playing {sum(1 for r in rooms if r.status == 'playing')}",
            "# TYPE dudo_sockets gauge", f"dudo_sockets {metrics.sockets}",
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
            "# TYPE dudo_uptime_seconds gauge",
            f"dudo_uptime_seconds {time.time() - metrics.started:.0f}",
            *(state["collector"].metrics() if "collector" in state else []),
        ]
        return PlainTextResponse("\n".join(lines) + "\n")

    async def room_socket(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            room = lobby().find(websocket.path_params["code"], client_of(websocket))
        except RoomError as error:
            await websocket.send_text(json.dumps(error_message(error.code, str(error))))
            await websocket.close(code=4404)
            return
        token = websocket.query_params.get("token")
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
            # The writer ends when the client falls too far behind: drop the socket then.
            await connection.write_forever()
            with contextlib.suppress(Exception):
                await websocket.close(code=1008)

        writer = asyncio.create_task(write_then_close())
        bucket = TokenBucket(settings.message_rate, settings.message_burst)
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
                    if not bucket.take():
                        continue  # a flood of junk gets no answers beyond the limit
                    connection.send(error_message(error.code, str(error)))
                    continue
                if not bucket.take():
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

    routes = [
        *page_routes(),
        Route("/api/rooms", create_room, methods=["POST"]),
        Route("/api/rooms", public_rooms, methods=["GET"]),
        Route("/api/rooms/{code}", room_info),
        Route("/api/rooms/{code}/join", join_room, methods=["POST"]),
        Route("/api/quick", quick_game, methods=["POST"]),
        Route("/api/games/{game_id}", game_record),
        Route("/healthz", health),
        Route("/metrics", metrics_endpoint),
        WebSocketRoute("/ws/{code}", room_socket),
    ]
    return Starlette(routes=routes, lifespan=lifespan)
