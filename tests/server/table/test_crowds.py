"""Crowds cost the room little: a spectator joining or leaving sends nothing to the others
(O(1) per join, not a state to every socket), watchers are capped per room, and a seat
keeps a bounded number of sockets."""

from __future__ import annotations

import contextlib

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from dudo.server.table import room as room_module
from serverkit import app_and_lobby, fast_config
from socketkit import connect, seat_table


def test_spectators_coming_and_going_send_nothing_to_anyone_else() -> None:
    app, _ = app_and_lobby()
    with TestClient(app) as client:
        table = seat_table(client, 3, humans=1, bots=[None, "easy", "easy"])
        with (
            connect(client, table.code, table.tokens[0], "host") as host,
            connect(client, table.code, None, "first watcher") as first,
        ):
            host.ping()
            first.ping()
            heard_host, heard_first = len(host.texts), len(first.texts)
            with contextlib.ExitStack() as stack:
                crowd = [
                    stack.enter_context(connect(client, table.code, None, f"w{n}"))
                    for n in range(12)
                ]
                for watcher in crowd:
                    assert watcher.state is not None  # each got its own state, once
                    assert watcher.state["room"]["spectators"] >= 1
            host.ping()
            first.ping()
            # Only the pongs arrived: no state per watcher joining or leaving.
            assert [t for t in host.texts[heard_host:] if '"pong"' not in t] == []
            assert [t for t in first.texts[heard_first:] if '"pong"' not in t] == []
            latest = client.get(f"/api/rooms/{table.code}").json()
            assert latest["spectators"] == 1  # the crowd left; the first watcher stays


def test_a_room_full_of_watchers_says_so() -> None:
    app, _ = app_and_lobby(fast_config(max_spectators=3))
    with TestClient(app) as client:
        table = seat_table(client, 2, humans=1)
        with contextlib.ExitStack() as stack:
            for n in range(3):
                stack.enter_context(connect(client, table.code, None, f"w{n}"))
            with connect(client, table.code, None, "one too many") as late:
                assert late.state is None  # no state: the refusal came instead
                assert '"watchers_full"' in late.texts[0], late.texts
                with pytest.raises(WebSocketDisconnect):
                    late.recv()
                assert late.close_code == room_module.CLOSE_WATCHERS_FULL
            # Players still come in.
            with connect(client, table.code, table.tokens[0], "host") as host:
                assert host.state is not None and host.state["you"]["seat"] == 0


def test_a_seats_extra_sockets_replace_its_oldest() -> None:
    app, holder = app_and_lobby()
    with TestClient(app) as client:
        table = seat_table(client, 2, humans=1)
        limit = room_module.SOCKETS_PER_SEAT
        with contextlib.ExitStack() as stack:
            socks = [
                stack.enter_context(connect(client, table.code, table.tokens[0], f"s{n}"))
                for n in range(limit)
            ]
            for sock in socks:
                sock.ping()
            newest = stack.enter_context(connect(client, table.code, table.tokens[0], "new"))
            replaced = socks[0].until(lambda m: m["type"] == "error")
            assert replaced["code"] == "replaced"
            with pytest.raises(WebSocketDisconnect):
                socks[0].recv()
            assert socks[0].close_code == room_module.CLOSE_REPLACED
            for sock in (*socks[1:], newest):
                sock.ping()  # the others are still in
            lobby = holder.lobby
            assert lobby is not None
            assert len(lobby.rooms[table.code].seats[0].connections) == limit
