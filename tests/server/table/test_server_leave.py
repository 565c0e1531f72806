"""Leaving the table (protocol `leave`): in the lobby the seat opens; during a game a
stand-in bot plays it to the end (its moves marked), then a bot keeps it; between games a
bot takes it at once. The leaver's sockets get the ack and close 4411, and the
token holds nothing any more. When the host leaves, the first player left runs the room."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from dudo.fairness import verify_record
from serverkit import app_and_lobby
from socketkit import Sock, connect, seat_table

ONE_DIE = {"preset": "tavern", "starting_dice": 1, "first_opener": "host"}


def leave(sock: Sock, action_id: str = "bye") -> None:
    """Leave; the ack comes, then the close (4411)."""
    assert sock.reply_to({"type": "leave", "id": action_id})["type"] == "ack"
    with pytest.raises(WebSocketDisconnect):
        sock.recv()
    assert sock.close_code == 4411


def test_leaving_the_lobby_opens_the_seat_and_the_token_holds_nothing() -> None:
    app, _ = app_and_lobby()
    with TestClient(app) as client:
        table = seat_table(client, 3)
        with (
            connect(client, table.code, table.tokens[0], "host") as host,
            connect(client, table.code, table.tokens[1], "guest") as guest,
        ):
            leave(guest)
            seats = host.wait_for(lambda m: m["room"]["seats"][1]["kind"] == "open")
            assert seats["you"]["host"] is True
        with connect(client, table.code, table.tokens[1], "again") as again:
            assert '"bad_token"' in again.texts[-1], again.texts


def test_a_player_who_leaves_mid_game_is_played_by_a_stand_in_then_a_bot() -> None:
    app, _ = app_and_lobby()
    with TestClient(app) as client:
        table = seat_table(client, 3, rules=ONE_DIE)
        with (
            connect(client, table.code, table.tokens[0], "host") as host,
            connect(client, table.code, table.tokens[1], "p1") as p1,
            connect(client, table.code, table.tokens[2], "p2") as p2,
        ):
            assert host.reply_to({"type": "start", "id": "go"})["type"] == "ack"
            host.wait_for(lambda m: m["game"] is not None and m["game"]["phase"] == "bidding")
            leave(p1)
            marked = []
            socks = {0: host, 2: p2}
            while True:
                state = host.wait_for(
                    lambda m: (
                        m["room"]["seats"][1].get("left") is True or m["room"]["status"] == "over"
                    )
                )
                for event in state["events"]:
                    if (event["event"] == "bid" and event["seat"] == 1) or (
                        event["event"] == "reveal" and event["caller"] == 1
                    ):
                        marked.append(event.get("by"))
                if state["room"]["status"] == "over":
                    break
                game = state["game"]
                if game["phase"] != "bidding" or game["turn"] == 1:
                    host.until(
                        lambda m, v=state["version"]: m["type"] == "state" and m["version"] > v
                    )
                    continue
                sock = socks[game["turn"]]
                mine = sock.wait_for(lambda m, v=state["version"]: m["version"] >= v)
                legal = mine["game"]["legal"]
                message = (
                    {"type": "call", "call": "dudo"}
                    if "dudo" in legal["calls"]
                    else {
                        "type": "bid",
                        "quantity": legal["bids"][0][0],
                        "face": legal["bids"][0][1],
                    }
                )
                reply = sock.reply_to(
                    {"id": f"m{mine['version']}", "version": mine["version"], **message}
                )
                if reply["type"] != "ack":
                    assert reply["code"] == "stale", reply
                host.wait_for(lambda m, v=state["version"]: m["version"] > v)
            assert state["room"]["seats"][1]["kind"] == "bot", state["room"]["seats"]
            assert state["names"][1] == table.names[1]  # the game keeps who played it
            assert marked and set(marked) <= {"stand_in"}, marked
            record = client.get(f"/api/games/{state['fair']['game_id']}").json()
            assert record["names"][1] == table.names[1] and 1 not in record["bots"]
            assert verify_record(record)
            # Between games a bot takes the seat at once.
            leave(p2, "bye too")
            after = host.wait_for(lambda m: m["room"]["seats"][2]["kind"] == "bot")
            assert after["names"] == state["names"]
            # The bots stay for the rematch: every seat is filled.
            assert host.reply_to({"type": "rematch", "id": "again"})["type"] == "ack"


def test_when_the_host_leaves_the_first_player_left_runs_the_room() -> None:
    app, _ = app_and_lobby()
    with TestClient(app) as client:
        table = seat_table(client, 2, rules=ONE_DIE)
        with (
            connect(client, table.code, table.tokens[0], "host") as host,
            connect(client, table.code, table.tokens[1], "p1") as p1,
        ):
            leave(host)
            state = p1.wait_for(lambda m: m["room"]["seats"][0]["kind"] == "open")
            assert state["you"]["host"] is True and state["room"]["host"] == 1, state["you"]
            filled = p1.reply_to(
                {
                    "type": "configure",
                    "id": "bots",
                    "seats": [{"kind": "bot", "level": "easy"}, None],
                }
            )
            assert filled["type"] == "ack", filled
            assert p1.reply_to({"type": "start", "id": "go"})["type"] == "ack"


def test_a_newcomer_in_the_seat_the_host_left_does_not_take_the_room() -> None:
    """The host role passes in joining order: whoever takes the seat the host left open
    joins as a player, and the player who ran the room since keeps running it."""
    app, _ = app_and_lobby()
    with TestClient(app) as client:
        table = seat_table(client, 3, humans=2)
        with (
            connect(client, table.code, table.tokens[0], "host") as host,
            connect(client, table.code, table.tokens[1], "p1") as p1,
        ):
            leave(host)
            p1.wait_for(lambda m: m["room"]["host"] == 1 and m["you"]["host"] is True)
            joined = client.post(f"/api/rooms/{table.code}/join", json={"name": "Late"})
            assert joined.status_code == 200, joined.text
            late_seat, late_token = joined.json()["seat"], joined.json()["token"]
            assert late_seat == 0  # the seat the host left, the first open one
            with connect(client, table.code, late_token, "late") as late:
                state = late.wait_for(lambda m: m["room"]["seats"][0]["kind"] == "human")
                assert state["you"]["host"] is False and "invite" not in state["you"]
                assert state["room"]["host"] == 1
                refused = late.reply_to({"type": "remove", "id": "grab", "seat": 1})
                assert refused["type"] == "error" and refused["code"] == "not_host", refused
                assert late.reply_to({"type": "start", "id": "go"})["code"] == "not_host"
            state = p1.wait_for(lambda m: m["room"]["seats"][0]["name"] == "Late")
            assert state["you"]["host"] is True and state["room"]["host"] == 1
