"""The table's WebSocket (/ws/{code}): admitted by the gate, checked for the page's origin
and the seat token, then a reader that forwards each message to the room's actor and a
writer that sends what the room queues for this socket (dudo.server.table.connection).

Transport only: it parses and limits messages; the room decides what they do.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable

from redis.exceptions import RedisError
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect

from dudo.server.guard.proxies import SCOPE_KEY
from dudo.server.protocol import ProtocolError, error_message, parse_client_message
from dudo.server.site.lobby import Elsewhere
from dudo.server.table import inbox
from dudo.server.table.connection import Connection, WriteNow
from dudo.server.table.room import Room, RoomError
from dudo.server.web.callers import client_id_of, client_of, own_origin
from dudo.server.web.rooms import locate
from dudo.server.web.state import Server, server_of

# The WebSocket subprotocol a client offers (with "token.<seat token>" beside it); the
# server accepts it by name, as browsers require when a client offers any.
SUBPROTOCOL = "dudo.v1"

# The ASGI extension through which ``dudo serve``'s uvicorn protocol lets a room write a
# text frame without an ASGI message (dudo.server.host.direct_frames): a function of the
# frame's UTF-8 bytes that returns whether it wrote them.
DIRECT_TEXT = "dudo.direct_text"


class RoomSocket:
    """The table's socket as a plain ASGI app (Starlette runs a class instance as one): the
    room's messages to it are handed to the ASGI ``send`` itself rather than through
    :meth:`WebSocket.send_text` and the session's wrapper, two coroutines fewer for each of
    the ~6 messages an action sends. Everything else (accept, receive, close, headers)
    goes through Starlette's :class:`WebSocket` as usual."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        direct = (scope.get("extensions") or {}).get(DIRECT_TEXT)
        await room_socket(WebSocket(scope, receive=receive, send=send), text_writer(send), direct)


def text_writer(send: Send) -> Callable[[str], Awaitable[None]]:
    """What a :class:`Connection` writes with: one text frame per message."""

    async def write(text: str) -> None:
        await send({"type": "websocket.send", "text": text})

    return write


async def room_socket(
    websocket: WebSocket,
    write: Callable[[str], Awaitable[None]] | None = None,
    write_now: WriteNow | None = None,
) -> None:
    """One socket at a table, from the handshake to its close; ``write`` sends a text
    frame (``websocket.send_text`` if not given), ``write_now`` writes one at once when it
    can (the server's :data:`DIRECT_TEXT`, if it offers it)."""
    server = server_of(websocket)
    gate = server.gate
    address = client_of(websocket)
    refusal = gate.admit(address)
    if refusal is not None:
        # A flood from one address is refused in the handshake itself (HTTP 429 with
        # the error shape), before the socket costs an upgrade, a task and a close.
        code, message = refusal
        server.refusals.refused(code)  # counted; uvicorn's error line about it is dropped
        await websocket.send_denial_response(
            JSONResponse({"error": code, "message": message}, status_code=429)
        )
        return
    try:
        offered = websocket.scope.get("subprotocols") or []
        try:
            await websocket.accept(subprotocol=SUBPROTOCOL if SUBPROTOCOL in offered else None)
        except OSError:  # the client left during the handshake (uvicorn's ClientDisconnected)
            return
        await seated_socket(websocket, address, offered, write or websocket.send_text, write_now)
    except WebSocketDisconnect:
        # The client left before the server had its say (the accept, a refusal such as
        # "moved" while a node dies): there is no one to tell, and nothing went wrong here.
        pass
    finally:
        gate.release(address)


async def no_socket_here(websocket: WebSocket) -> None:
    """A WebSocket to an address that takes none (only ``/ws/CODE`` does): refused in the
    handshake with a 404 in the usual error shape, where Starlette would answer a bare
    403 that says nothing of what is wrong."""
    await websocket.send_denial_response(
        JSONResponse(
            {"error": "not_found", "message": "there is no WebSocket here: a room's is /ws/CODE"},
            status_code=404,
        )
    )


async def refuse(websocket: WebSocket, code: str, message: str, close_code: int) -> None:
    """An error message in the usual shape, then the close with its code."""
    await websocket.send_text(json.dumps(error_message(code, message)))
    await websocket.close(code=close_code)


async def seated_socket(
    websocket: WebSocket,
    address: str,
    offered: list[str],
    write: Callable[[str], Awaitable[None]],
    write_now: WriteNow | None = None,
) -> None:
    server = server_of(websocket)
    # Any page may open a WebSocket anywhere (no same-origin rule for sockets): only
    # this site's own pages, and origins the operator allows, may take a seat.
    # Behind a proxy that does not pass Host on, the public host comes in
    # X-Forwarded-Host (or Forwarded), believed only from --forwarded-allow-ips.
    origin = websocket.headers.get("origin")
    if not own_origin(websocket, origin):
        server.origin_warnings.refused(
            origin or "", websocket.headers.get("host"), websocket.scope.get(SCOPE_KEY)
        )
        await refuse(
            websocket, "bad_origin", "pages from another site cannot connect to this server", 4403
        )
        return
    try:
        room = await locate(websocket)
    except RoomError as error:
        await refuse(websocket, error.code, str(error), 4412 if error.code == "moved" else 4404)
        return
    except RedisError:  # a cluster node that cannot reach Redis: try again later
        await refuse(
            websocket,
            "unavailable",
            "the server cannot reach its cluster just now: reconnect",
            1013,
        )
        return
    if isinstance(room, Elsewhere):
        relay = server.live.relay
        assert relay is not None  # only a cluster node finds a room elsewhere
        await relay.socket(
            websocket, room.address, room.code, offered, address, client_id_of(websocket)
        )
        return
    # The seat token: in the subprotocol list ("token.<token>"), so no URL (and no
    # proxy's access log) carries it; ?token= still works, deprecated.
    # A token offered empty ("token.", "?token=") is a bad token, not a spectator's socket.
    token = next((part[len("token.") :] for part in offered if part.startswith("token.")), None)
    if token is None:
        token = websocket.query_params.get("token")
    seat = None
    if token is not None:
        seat = room.seat_of(token) if token else None
        if seat is None:
            await refuse(websocket, "bad_token", "that seat token is not valid for this room", 4401)
            return
    await play(server, websocket, room, Connection(write, seat, write_now), address)


async def play(
    server: Server, websocket: WebSocket, room: Room, connection: Connection, address: str
) -> None:
    """The socket's life at the table: the room hears of it, then of each message it reads
    (parsed and within the gate's budget), then of its end."""
    gate, metrics = server.gate, server.metrics

    async def write_then_close() -> None:
        # The writer ends when the room lets go of the socket (too slow to keep up,
        # replaced by a newer socket of the seat, no room for another watcher).
        await connection.write_forever()
        with contextlib.suppress(Exception):
            await websocket.close(code=connection.close_code)

    writer = asyncio.create_task(write_then_close())
    # One message budget per seat (all its sockets) and per address: more sockets
    # never buy more messages. A spectator's socket is a seat of its own.
    seat = connection.seat
    budget = (room.code, seat) if seat is not None else ("watcher", connection.opened)
    metrics.sockets += 1
    room.tell(inbox.Connect(connection))
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
                # Answered under its id when one could be read (not remembered under it:
                # the same id may come again, corrected).
                connection.send(error_message(error.code, str(error), error.action_id))
                continue
            if not gate.message(address, budget):
                # Not remembered under the id: the same action may be sent again later.
                metrics.rejected += 1
                connection.send(
                    error_message(
                        "rate_limited", "too many messages: slow down", getattr(parsed, "id", None)
                    )
                )
                continue
            room.tell(inbox.Deliver(connection, parsed))
    except WebSocketDisconnect:
        pass
    finally:
        metrics.sockets -= 1
        metrics.closed_sockets += 1
        room.tell(inbox.Disconnect(connection))
        if not connection.closed:  # else the room let go of it: the writer closes with its code
            writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await writer
        with contextlib.suppress(Exception):
            await websocket.close()
