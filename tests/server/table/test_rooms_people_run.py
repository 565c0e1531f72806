"""Rooms people can run: the host changes the room between games and removes a player, a
spectator sits down for the rematch, quick games match players by house rules, and moves
a player did not make are marked."""

from __future__ import annotations

import contextlib
from typing import Any

from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from dudo.store import MemoryStore
from serverkit import FakeClock, app_and_lobby, fast_config
from socketkit import connect, seat_table

ONE_DIE = {"preset": "tavern", "starting_dice": 1, "first_opener": "host"}


def finish(socks: list[Any]) -> dict[str, Any]:
    """Play until the game is over: whoever's turn it is calls dudo if it can, else makes
    the lowest bid (one die each: a game of a few rounds)."""
    while True:
        state = socks[0].wait_for(
            lambda m: m["game"] is not None and (m["game"]["phase"] in ("over", "bidding"))
        )
        if state["game"]["phase"] == "over":
            return state
        sock = socks[state["game"]["turn"]]
        version: int = state["version"]
        mine = sock.wait_for(lambda m, v=version: m["version"] >= v)
        legal = mine["game"]["legal"]
        if "dudo" in legal["calls"]:
            message = {"type": "call", "call": "dudo"}
        else:
            quantity, face = legal["bids"][0]
            message = {"type": "bid", "quantity": quantity, "face": face}
        reply = sock.reply_to({"id": f"m{mine['version']}", "version": mine["version"], **message})
        assert reply["type"] == "ack", reply
        acked: int = reply["version"]
        socks[0].wait_for(lambda m, v=acked: m["version"] >= v)


def test_between_games_the_host_frees_a_seat_and_a_spectator_takes_it() -> None:
    app, _ = app_and_lobby()
    with TestClient(app) as client:
        table = seat_table(client, 2, rules=ONE_DIE)
        with (
            connect(client, table.code, table.tokens[0], "host") as host,
            connect(client, table.code, table.tokens[1], "guest") as guest,
        ):
            assert host.reply_to({"type": "start", "id": "go"})["type"] == "ack"
            early = host.reply_to({"type": "remove", "id": "r0", "seat": 1})
            assert early["type"] == "error" and early["code"] == "not_now"
            finish_both = finish([host, guest])
            assert finish_both["room"]["status"] == "over"
            # Between games: rules and timer change, and the guest's seat is freed.
            changed = host.reply_to(
                {
                    "type": "configure",
                    "id": "cfg",
                    "timer": 30,
                    "show_lost_dice": False,
                    "rules": {"preset": "tavern", "starting_dice": 2},
                }
            )
            assert changed["type"] == "ack", changed
            assert host.reply_to({"type": "remove", "id": "r1", "seat": 1})["type"] == "ack"
            gone = guest.until(lambda m: m["type"] == "error")
            assert gone["code"] == "removed"
            with contextlib.suppress(WebSocketDisconnect):
                guest.recv()
            assert guest.close_code == 4410
            not_yet = host.reply_to({"type": "rematch", "id": "too-soon"})
            assert not_yet["type"] == "error" and not_yet["code"] == "not_ready"
            # The old token no longer holds the seat; a spectator joins into it.
            with connect(client, table.code, table.tokens[1], "old token") as old:
                assert '"bad_token"' in old.texts[0]
            joined = client.post(f"/api/rooms/{table.code}/join", json={"name": "Dee"})
            assert joined.status_code == 200 and joined.json()["seat"] == 1
            summary = client.get(f"/api/rooms/{table.code}").json()
            assert summary["timer"] == 30 and summary["show_lost_dice"] is False
            assert summary["rules"]["starting_dice"] == 2
            assert host.reply_to({"type": "rematch", "id": "again"})["type"] == "ack"
            state = host.wait_for(
                lambda m: m["game"] is not None and m["game"]["phase"] == "bidding"
            )
            assert state["game"]["dice_counts"] == [2, 2]  # the new house rules


def test_quick_games_match_players_who_chose_the_same_rules() -> None:
    app, _ = app_and_lobby(fast_config(quick_fill=60.0), clock=FakeClock())
    with TestClient(app) as client:
        tavern = {"preset": "tavern", "calza": "off"}
        a = client.post("/api/quick", json={"name": "Ann", "rules": tavern}).json()
        b = client.post("/api/quick", json={"name": "Bo"}).json()  # Perudo
        c = client.post("/api/quick", json={"name": "Cy", "rules": tavern}).json()
        assert a["code"] == c["code"] != b["code"]
        rules = client.get(f"/api/rooms/{a['code']}").json()["rules"]
        assert rules["calza"] == "off"
        bad = client.post("/api/quick", json={"name": "Di", "rules": {"preset": "nope"}})
        assert bad.status_code == 400 and bad.json()["error"] == "bad_rules"
        assert "unknown preset 'nope'" in bad.json()["message"]


def test_a_move_made_by_the_timer_is_marked() -> None:
    clock = FakeClock()
    app, _ = app_and_lobby(fast_config(), clock=clock)
    with TestClient(app) as client:
        table = seat_table(client, 2, rules={"preset": "perudo", "first_opener": "host"}, timer=10)
        with (
            connect(client, table.code, table.tokens[0], "host") as host,
            connect(client, table.code, table.tokens[1], "guest") as guest,
        ):
            assert host.reply_to({"type": "start", "id": "go"})["type"] == "ack"
            guest.wait_for(lambda m: m["game"] is not None and m["game"]["phase"] == "bidding")
            clock.advance(11)
            host.ping()
            moved = guest.until(
                lambda m: (
                    m["type"] == "state"
                    and any(event["event"] in ("bid", "reveal") for event in m["events"])
                )
            )
            event = next(e for e in moved["events"] if e["event"] in ("bid", "reveal"))
            assert event["by"] == "timer" and event.get("seat", 0) == 0
            # A move the player made carries no mark.
            turn = moved["game"]["turn"]
            assert turn == 1
            legal = moved["game"]["legal"]
            quantity, face = legal["bids"][0]
            guest.send({"type": "bid", "id": "mine", "quantity": quantity, "face": face})
            mine = host.until(
                lambda m: (
                    m["type"] == "state"
                    and any(e["event"] == "bid" and e["seat"] == 1 for e in m["events"])
                )
            )
            assert all("by" not in e for e in mine["events"])


def test_show_lost_dice_is_chosen_when_the_room_is_created_and_survives_a_restart() -> None:
    store = MemoryStore()
    app, _ = app_and_lobby(store=store)
    with TestClient(app) as client:
        made = client.post("/api/rooms", json={"name": "Host", "show_lost_dice": False})
        assert made.status_code == 201, made.text
        code = made.json()["code"]
        assert client.get(f"/api/rooms/{code}").json()["show_lost_dice"] is False
        default = client.post("/api/rooms", json={"name": "Other"}).json()["code"]
        assert client.get(f"/api/rooms/{default}").json()["show_lost_dice"] is True
        wrong = client.post("/api/rooms", json={"name": "X", "show_lost_dice": "maybe"})
        assert wrong.status_code == 400
    app2, _ = app_and_lobby(store=store)  # the server restarted on the same store
    with TestClient(app2) as client:
        assert client.get(f"/api/rooms/{code}").json()["show_lost_dice"] is False
