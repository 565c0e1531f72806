"""A room found on this node can stop before it answers: its node drains for a rolling
restart and hands it off between the lookup and the question. Every HTTP handler that asks a
room then answers 503 "moved" (the client tries again and reaches the new holder), never a
500, and a socket that arrives then is sent to reconnect (4412), never left open with
nothing coming. A CI run of the HAProxy deploy test once saw a 500 there
(GET /api/rooms/CODE)."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from test_web_assets import new_room

from dudo.server.table.room import CLOSE_MOVED, Room
from serverkit import app_and_lobby


def stopping_after_lookup(monkeypatch: pytest.MonkeyPatch, lobby: Any) -> None:
    """The lobby finds the room, which then stops before the handler asks it anything."""
    found = lobby.locate

    async def locate_then_stop(*args: Any, **kwargs: Any) -> Any:
        room = await found(*args, **kwargs)
        if isinstance(room, Room):
            await room.stop()
        return room

    monkeypatch.setattr(lobby, "locate", locate_then_stop)


@pytest.mark.parametrize(
    "ask",
    [
        pytest.param(lambda client, code: client.get(f"/api/rooms/{code}"), id="summary"),
        pytest.param(
            lambda client, code: client.post(f"/api/rooms/{code}/join", json={"name": "Bea"}),
            id="join",
        ),
    ],
)
def test_a_room_that_stops_before_it_answers_is_moved_not_an_error(
    monkeypatch: pytest.MonkeyPatch, ask: Any
) -> None:
    app, holder = app_and_lobby()
    with TestClient(app, raise_server_exceptions=False) as client:
        code = new_room(client)
        assert client.get(f"/api/rooms/{code}").status_code == 200
        stopping_after_lookup(monkeypatch, holder.lobby)
        answer = ask(client, code)
        assert answer.status_code == 503, answer.text
        assert answer.json()["error"] == "moved"


def test_a_socket_that_arrives_as_its_room_stops_is_sent_to_reconnect(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Before, the socket's arrival went into the inbox of a room that reads no more: the
    # socket stayed open and never heard a thing (this test then hung until its timeout).
    app, holder = app_and_lobby()
    with TestClient(app, raise_server_exceptions=False) as client:
        code = new_room(client)
        stopping_after_lookup(monkeypatch, holder.lobby)
        with client.websocket_connect(f"/ws/{code}", subprotocols=["dudo.v1"]) as session:
            told = session.receive_json()
            assert (told["type"], told["code"]) == ("error", "moved"), told
            with pytest.raises(WebSocketDisconnect) as closed:
                session.receive_json()
            assert closed.value.code == CLOSE_MOVED
