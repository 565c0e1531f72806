"""Every message the server sends matches its declaration in dudo.server.protocol.

The room sends its messages as pre-encoded JSON text (the fast path); the declarations
(:data:`dudo.server.protocol.ServerMessage`) are what a client may rely on. Whole games are
played here over real sockets, with bids, calls (dudo and calza), reveals, the game's end,
a rematch, refusals, table talk, reactions and pings, and every payload each socket got
(the players' and a spectator's) is validated against the declarations.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

import pytest
from starlette.testclient import TestClient

from dudo.server.protocol import SERVER_MESSAGES
from serverkit import fast_config, make_app
from socketkit import Sock, connect, legal_bid, seat_table


def play_to_the_end(socks: dict[int, Sock], version: int) -> int:
    """Play the game on until it is over: mostly the lowest legal bid, every third move a
    call (calza and dudo in turn; a calza refused is a refusal to collect too)."""
    moves = 0
    while moves < 2000:
        state = socks[0].settle(version)
        if state["room"]["status"] == "over":
            return version
        turn = state["game"]["turn"]
        seat_state = socks[turn].settle(state["version"])
        moves += 1
        bid = legal_bid(seat_state)
        if bid is not None and (seat_state["game"]["standing"] is None or moves % 3):
            reply = socks[turn].reply_to(
                {"type": "bid", "id": f"b{moves}", **bid, "version": seat_state["version"]}
            )
        else:
            call = "calza" if moves % 2 else "dudo"
            reply = socks[turn].reply_to({"type": "call", "id": f"c{moves}", "call": call})
        if reply["type"] == "ack":
            version = reply["version"]
    raise AssertionError("the game did not end")


@pytest.mark.parametrize(
    "rules", [{"preset": "perudo"}, {"preset": "perudo", "first_opener": "rolloff"}]
)
def test_every_message_of_whole_games_matches_its_declaration(rules: dict[str, Any]) -> None:
    with TestClient(make_app(fast_config(emote_interval=0, chat_interval=0))) as client:
        table = seat_table(client, 3, rules=rules)
        with contextlib.ExitStack() as stack:
            socks = {
                seat: stack.enter_context(connect(client, table.code, token))
                for seat, token in table.tokens.items()
            }
            watcher = stack.enter_context(connect(client, table.code))
            host, guest = socks[0], socks[1]
            assert guest.reply_to({"type": "start", "id": "early"})["code"] == "not_host"
            guest.send({"type": "chat", "text": "good luck"})
            guest.send({"type": "emote", "emote": "🎲"})
            assert guest.reply_to({"type": "bid"})["code"] == "bad_message"  # not one of ours
            guest.ping()
            version = host.reply_to({"type": "start", "id": "go"})["version"]
            version = play_to_the_end(socks, version)
            version = host.reply_to({"type": "rematch", "id": "again"})["version"]
            play_to_the_end(socks, version)
            for sock in (*socks.values(), watcher):
                sock.ping()
            received = [text for sock in (*socks.values(), watcher) for text in sock.texts]
    kinds: set[str] = set()
    events: set[str] = set()
    calls: set[str] = set()
    for text in received:
        SERVER_MESSAGES.validate_json(text)  # raises naming the field that differs
        message = json.loads(text)
        kinds.add(message["type"])
        for event in message.get("events", []):
            events.add(event["event"])
            if event["event"] == "reveal":
                calls.add(event["call"])
    assert kinds == {"state", "ack", "error", "pong", "chat", "emote"}
    assert {"round", "bid", "reveal", "out", "game_over"} <= events
    assert calls == {"dudo", "calza"}
    if rules.get("first_opener") == "rolloff":
        assert "rolloff" in events
