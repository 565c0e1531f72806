"""A client that leaves while the server is still answering its WebSocket handshake.

The chaos run on a cluster losing nodes once found node 0 logging ``unhandled_error``: a
send to a client that had gone (uvicorn raises ``ClientDisconnected``, an ``OSError``, which
Starlette turns into ``WebSocketDisconnect``) reached the catch-all. Here the whole app
(middleware included) gets an ASGI ``send`` that fails as uvicorn's does once the client
is gone, at each step of a refusal: the socket ends quietly, nothing is logged as an error.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from dudo.server.web.app import create_app
from dudo.server.web.settings import ServerSettings


class Gone(OSError):
    """What uvicorn raises when the client has gone (``ClientDisconnected``)."""


def socket_scope(path: str) -> dict[str, Any]:
    return {
        "type": "websocket",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "scheme": "ws",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"127.0.0.1:8000"), (b"origin", b"http://127.0.0.1:8000")],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "subprotocols": [],
        "state": {},
    }


@pytest.mark.timeout(60)
@pytest.mark.parametrize("fails_at", ["websocket.accept", "websocket.send", "websocket.close"])
def test_a_client_gone_during_a_refusal_is_no_server_error(
    fails_at: str, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(ServerSettings(database="memory://"))
    sent: list[str] = []

    async def receive() -> dict[str, Any]:
        return {"type": "websocket.connect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == fails_at:
            raise Gone("the client has gone")
        sent.append(message["type"])

    async def run() -> None:
        lifespan = app.router.lifespan_context(app)
        async with lifespan:
            # No room has this code: the server refuses it (an error, then the close).
            await app(socket_scope("/ws/ZZZZ"), receive, send)

    with caplog.at_level(logging.INFO, logger="dudo"):
        asyncio.run(run())
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [], [r.getMessage() for r in errors]
    assert fails_at not in sent
