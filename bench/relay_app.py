"""The floor for bench/load.py: a minimal Starlette app that relays each text message to
the other sockets of its room, and does nothing else (no parsing, no storage, no game).

It runs under uvicorn with the same settings as ``dudo serve`` (uvloop and httptools when
installed, 16 KiB frames, pings every 20 s, no access log), so the difference between the
two servers is what dudo does with a message, not the transport.

    python bench/relay_app.py --port 8100
"""

from __future__ import annotations

import argparse
import resource
from collections import defaultdict

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

rooms: dict[str, set[WebSocket]] = defaultdict(set)


async def relay(websocket: WebSocket) -> None:
    await websocket.accept()
    members = rooms[websocket.path_params["room"]]
    members.add(websocket)
    try:
        while True:
            text = await websocket.receive_text()
            for other in list(members):
                if other is not websocket:
                    await other.send_text(text)
    except WebSocketDisconnect:
        pass
    finally:
        members.discard(websocket)


async def health(request: Request) -> Response:
    return PlainTextResponse("ok")


app = Starlette(routes=[Route("/healthz", health), WebSocketRoute("/ws/{room}", relay)])


def main() -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=args.port,
        log_level="warning",
        access_log=False,
        ws_max_size=16 * 1024,
        ws_ping_interval=20,
        ws_ping_timeout=20,
    )


if __name__ == "__main__":
    main()
