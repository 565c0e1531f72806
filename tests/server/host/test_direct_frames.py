"""The direct text frames of ``dudo serve`` (dudo.server.host.direct_frames): a real uvicorn
with the protocol, a real WebSocket client reading what it writes, the fallbacks, and a whole
game through ``dudo serve`` that shows the rooms use it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import uvicorn
import websockets
from websockets.frames import Frame, Opcode

from dudo.bots.registry import make_bot
from dudo.client import Client
from dudo.server.host import direct_frames
from dudo.server.host.direct_frames import direct_frames_protocol, frame_header
from dudo.server.host.nodes import Launch, uvicorn_config
from dudo.server.web.table_socket import DIRECT_TEXT
from serverkit import free_port, make_app


@pytest.mark.parametrize("length", [0, 1, 125, 126, 127, 65535, 65536, 70000])
def test_a_frame_header_is_what_websockets_writes(length: int) -> None:
    payload = b"x" * length
    expected = Frame(Opcode.TEXT, payload).serialize(mask=False, extensions=[])
    assert frame_header(length) + payload == expected


@asynccontextmanager
async def serving(app: Any, ws: Any, deflate: bool = False) -> AsyncIterator[str]:
    """``app`` under uvicorn in this event loop, without per-message compression unless
    ``deflate`` (as ``dudo serve`` runs)."""
    port = free_port()
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        ws=ws,
        ws_per_message_deflate=deflate,
        log_level="warning",
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        assert not task.done(), "uvicorn did not start"
        await asyncio.sleep(0.01)
    try:
        yield f"ws://127.0.0.1:{port}/"
    finally:
        server.should_exit = True
        await task


def writer_app(seen: dict[str, Any]) -> Any:
    """An app that writes each message it is told of three ways: directly, through ASGI,
    directly again (so the order of the two paths shows), then closes on "bye"."""

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                event = (await receive())["type"]  # lifespan.startup, then .shutdown
                await send({"type": f"{event}.complete"})
                if event == "lifespan.shutdown":
                    return
        direct = scope["extensions"].get(DIRECT_TEXT)
        seen["offered"] = direct is not None
        seen["before_accept"] = direct(b"early") if direct else None
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                seen["after_close"] = direct(b"late") if direct else None
                return
            text = message["text"]
            if text == "bye":
                await send({"type": "websocket.close", "code": 1000})
                seen["after_close"] = direct(b"late") if direct else None
                continue
            payload = text * int(seen.get("repeat", 1))
            wrote = direct(f"direct {payload}".encode()) if direct else False
            await send({"type": "websocket.send", "text": f"asgi {payload}"})
            wrote_again = direct(f"direct again {payload}".encode()) if direct else False
            seen.setdefault("wrote", []).append((wrote, wrote_again))

    return app


def test_frames_written_directly_arrive_in_order_with_the_asgi_ones() -> None:
    seen: dict[str, Any] = {}

    async def run() -> list[str]:
        protocol = direct_frames_protocol()
        assert not isinstance(protocol, str), "uvicorn's protocol lacks what direct frames use"
        received: list[str] = []
        async with (
            serving(writer_app(seen), protocol) as url,
            websockets.connect(url, compression=None, max_size=None) as client,
        ):
            for text in ("héllo ✓", "b"):
                await client.send(text)
                received += [str(await client.recv(decode=True)) for _ in range(3)]
            seen["repeat"] = 40000  # a frame over 65,535 bytes: the 64-bit length
            await client.send("long ")
            received += [str(await client.recv(decode=True)) for _ in range(3)]
            await client.send("bye")
            with pytest.raises(websockets.ConnectionClosedOK):
                await client.recv()
        return received

    received = asyncio.run(run())
    assert received[:6] == [
        "direct héllo ✓",
        "asgi héllo ✓",
        "direct again héllo ✓",
        "direct b",
        "asgi b",
        "direct again b",
    ]
    assert received[6:] == [
        f"{how} {'long ' * 40000}" for how in ("direct", "asgi", "direct again")
    ]
    assert seen["offered"] and seen["wrote"] == [(True, True)] * 3
    # Nothing is written before the handshake is done or once the close is sent: the caller
    # is told so (and would send through ASGI, which raises for a closed socket).
    assert seen["before_accept"] is False
    assert seen["after_close"] is False


async def nothing(scope: Any, receive: Any, send: Any) -> None:
    pass


def protocol_on_a_fake_transport() -> tuple[Any, list[bytes]]:
    """The protocol as if a WebSocket were accepted, on a transport that keeps its writes."""
    protocol_class = direct_frames_protocol()
    assert not isinstance(protocol_class, str)
    config = uvicorn.Config(nothing)
    config.load()
    state = uvicorn.server.ServerState()
    protocol: Any = protocol_class(config=config, server_state=state, app_state={})
    protocol.handshake_complete = True
    written: list[bytes] = []

    class Transport:
        def write(self, data: bytes) -> None:
            written.append(data)

        def is_closing(self) -> bool:
            return False

    protocol.transport = Transport()
    protocol.conn.state = websockets.protocol.State.OPEN
    return protocol, written


def test_a_full_write_buffer_sends_through_asgi() -> None:
    """While the transport asks the protocol to pause writing, nothing is written directly:
    the caller's ASGI send waits for the buffer instead (uvicorn's flow control)."""

    async def run() -> None:
        protocol, written = protocol_on_a_fake_transport()
        assert protocol.write_text(b"now")
        protocol.pause_writing()
        assert not protocol.write_text(b"held")
        protocol.resume_writing()
        assert protocol.write_text(b"again")
        assert written == [frame_header(3) + b"now", frame_header(5) + b"again"]

    asyncio.run(run())


def test_several_frames_go_out_in_one_write_or_not_at_all() -> None:
    """An ack and its state: both frames in one write to the transport, in order; when the
    socket cannot take them, neither is written (the caller sends both through ASGI)."""

    async def run() -> None:
        protocol, written = protocol_on_a_fake_transport()
        long = b"s" * 200  # a 16-bit length after a 7-bit one
        assert protocol.write_text(b"ack", long)
        assert written == [frame_header(3) + b"ack" + frame_header(200) + long]
        protocol.pause_writing()
        assert not protocol.write_text(b"ack", b"state")
        assert len(written) == 1

    asyncio.run(run())


def test_nothing_is_written_directly_after_a_close() -> None:
    async def run() -> None:
        protocol, written = protocol_on_a_fake_transport()
        assert protocol.write_text(b"in time")
        protocol.close_sent = True  # a close frame went out (the server shutting down)
        assert not protocol.write_text(b"too late")
        protocol.close_sent = False
        protocol.conn.state = websockets.protocol.State.CLOSING  # the client's close
        assert not protocol.write_text(b"too late")
        assert written == [frame_header(7) + b"in time"]

    asyncio.run(run())


def test_an_unexpected_uvicorn_falls_back_to_its_own_protocol(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(direct_frames, "_NEEDED", (*direct_frames._NEEDED, "no_such_attribute"))
    assert direct_frames_protocol() == "auto"


def test_dudo_serve_runs_its_tables_on_the_direct_protocol() -> None:
    launch = Launch(host="127.0.0.1", port=0, database="sqlite://")
    config = uvicorn_config(launch, app=make_app())
    assert not isinstance(config.ws, str)
    assert hasattr(config.ws, "write_text")


@pytest.mark.parametrize("deflate", [False, True], ids=["plain", "compressed"])
def test_a_room_writes_its_messages_directly_and_a_whole_game_plays(deflate: bool) -> None:
    """dudo's own app under uvicorn with the protocol: a game between a program's seat and a
    bot is played to the end over the socket, and the room's messages to the seat went
    through the direct writer (counted), all of them whole JSON messages the client read.
    Where the client negotiated compression (a server run with it on), nothing is written
    directly (the frames would have to be compressed) and the game plays all the same."""
    protocol = direct_frames_protocol()
    assert not isinstance(protocol, str)
    written: list[bytes] = []
    writes: list[list[str]] = []  # the kinds of message each write carried

    class Counting(protocol):  # type: ignore[misc,valid-type]
        def write_text(self, *payloads: bytes) -> bool:
            wrote: bool = super().write_text(*payloads)
            if wrote:
                written.extend(payloads)
                writes.append([json.loads(payload)["type"] for payload in payloads])
            return wrote

    async def run() -> tuple[list[int], int]:
        async with serving(make_app(), Counting, deflate) as url:
            base = url.replace("ws://", "http://").rstrip("/")
            async with Client(base) as client:
                seat = await client.create_room("Ana", seats=2, bots=[None, "easy"])
                async with client.table(seat) as table:
                    await table.start()
                    winners = await table.play(make_bot("easy", seed=3), timeout=120)
                    return winners, len(table.received)

    winners, received = asyncio.run(run())
    assert winners
    if deflate:
        assert written == []
        return
    kinds = [json.loads(payload)["type"] for payload in written]
    assert kinds.count("state") >= 10 and "ack" in kinds, kinds[:20]
    # The ack of each of the seat's bids and calls went out with the state it led to, in
    # one write (only other answers, such as the start's, come alone).
    assert writes.count(["ack", "state"]) > writes.count(["ack"]), writes
    # The seat's messages came this way (a few, such as the first state on connecting,
    # may still go through ASGI): at least most of what the client received.
    assert len(written) >= received * 0.8, (len(written), received)
