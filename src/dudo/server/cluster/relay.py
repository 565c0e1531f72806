"""Relaying a request to the node that holds its room, so that any node answers any request
and a load balancer in front of the cluster needs no stickiness.

A relayed request carries the cluster's shared secret (``X-Dudo-Relay``) and the client's
own address (``X-Dudo-Address``): the holder applies its limits to the real client, and
trusts those headers only with the secret. The node that took the client's connection has
already checked its Origin; the holder checks the seat token.

A WebSocket is relayed frame by frame over a WebSocket of its own to the holder. When the
holder goes away (it died, or hands the room off), the client's socket is closed with
4412 "moved" and the client reconnects, to whichever node now holds the room.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
from collections.abc import Callable
from typing import Any

import httpx
from starlette.responses import JSONResponse, Response
from starlette.websockets import WebSocket
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from dudo.server.protocol import MAX_MESSAGE_BYTES, error_message
from dudo.server.table.room import CLOSE_MOVED, RoomError

log = logging.getLogger("dudo.relay")

RELAY_HEADER = "x-dudo-relay"
ADDRESS_HEADER = "x-dudo-address"
CLIENT_HEADER = "x-dudo-client"
# A quick game's join relayed to the node holding the table: the public id of the player's
# profile (dudo.profiles), already found by the node the player reached (never the secret).
PROFILE_HEADER = "x-dudo-relay-profile"


class Relay:
    """This node's way to other nodes: an HTTP client and WebSocket pipes."""

    def __init__(self, secret: Callable[[], str]) -> None:
        self._secret = secret  # read each time: nodes agree on it anew after Redis lost it
        self.http = httpx.AsyncClient(
            timeout=httpx.Timeout(10.0), limits=httpx.Limits(max_connections=256)
        )
        self.requests = 0  # relayed so far (for /metrics)
        self.sockets = 0  # open now
        self.sockets_total = 0

    async def close(self) -> None:
        await self.http.aclose()

    def trusted(self, headers: Any) -> bool:
        """Whether a request came from another node of this cluster."""
        sent, secret = headers.get(RELAY_HEADER), self._secret()
        return bool(sent and secret and hmac.compare_digest(sent, secret))

    def _headers(self, client: str, client_id: str | None) -> dict[str, str]:
        headers = {RELAY_HEADER: self._secret(), ADDRESS_HEADER: client}
        if client_id:
            headers[CLIENT_HEADER] = client_id
        return headers

    async def forward(
        self,
        address: str,
        method: str,
        path: str,
        body: bytes | None,
        client: str,
        client_id: str | None,
        extra: dict[str, str] | None = None,
    ) -> Response:
        """An HTTP request answered by the holder, its answer passed on as it is."""
        self.requests += 1
        headers = {**self._headers(client, client_id), **(extra or {})}
        if body is not None:
            headers["content-type"] = "application/json"
        try:
            answer = await self.http.request(method, address + path, content=body, headers=headers)
        except httpx.HTTPError:
            return JSONResponse(
                {
                    "error": "moved",
                    "message": "the server holding this room did not answer: try again",
                },
                503,
            )
        return Response(
            answer.content,
            status_code=answer.status_code,
            media_type=answer.headers.get("content-type", "application/json"),
        )

    async def join(
        self, address: str, code: str, name: str, client: str, profile: str | None = None
    ) -> dict[str, Any]:
        """Join a room another node holds (quick games); a refusal as a RoomError."""
        answer = await self.forward(
            address,
            "POST",
            f"/api/rooms/{code}/join",
            json.dumps({"name": name}).encode(),
            client,
            None,
            {PROFILE_HEADER: profile} if profile else None,
        )
        data = json.loads(bytes(answer.body))
        if answer.status_code != 200:
            raise RoomError(data.get("error", "full"), data.get("message", "refused"))
        joined: dict[str, Any] = data
        return joined

    async def socket(
        self,
        websocket: WebSocket,
        address: str,
        code: str,
        offered: list[str],
        client: str,
        client_id: str | None,
    ) -> None:
        """Pipe an accepted client socket to the holder's own socket for the room (its
        query string too: the deprecated ``?token=`` still seats a player)."""
        url = "ws" + address.removeprefix("http") + f"/ws/{code}"
        query = websocket.scope.get("query_string", b"").decode("latin-1")
        if query:
            url += "?" + query
        try:
            upstream = await connect(
                url,
                subprotocols=offered or None,  # type: ignore[arg-type]
                additional_headers=self._headers(client, client_id),
                max_size=MAX_MESSAGE_BYTES * 64,
                open_timeout=5,
                compression=None,
            )
        except (OSError, TimeoutError, InvalidHandshake) as error:
            status = error.response.status_code if isinstance(error, InvalidStatus) else 0
            code_, message = (
                ("rate_limited", "too many connections: slow down")
                if status == 429
                else ("moved", "the server holding this room did not answer: reconnect")
            )
            with contextlib.suppress(Exception):
                await websocket.send_text(json.dumps(error_message(code_, message)))
                await websocket.close(code=4429 if status == 429 else CLOSE_MOVED)
            return
        self.sockets += 1
        self.sockets_total += 1
        try:
            await self._pipe(websocket, upstream)
        finally:
            self.sockets -= 1

    async def _pipe(self, websocket: WebSocket, upstream: ClientConnection) -> None:
        async def down() -> None:  # the holder to the client
            async for message in upstream:
                if isinstance(message, str):
                    await websocket.send_text(message)
                else:
                    await websocket.send_bytes(message)

        async def up() -> None:  # the client to the holder
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    return
                data = message.get("text")
                await upstream.send(data if data is not None else message.get("bytes") or b"")

        tasks = [asyncio.create_task(down()), asyncio.create_task(up())]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, ConnectionClosed, Exception):
                    await task
            with contextlib.suppress(Exception):
                await upstream.close()
        # The holder's own close code when it closed the socket (4401 bad token, 4409
        # replaced...); "moved" when it vanished, so the client reconnects.
        close_code = upstream.close_code
        if close_code is None or close_code in (1006, 1011, 1012):
            close_code = CLOSE_MOVED
        with contextlib.suppress(Exception):
            await websocket.close(code=close_code)
