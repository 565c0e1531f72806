"""The WebSocket and HTTP protocol of a live server (issue 4): bad input, rate limits,
exactly-once actions, seat tokens, reconnection, absent players, the turn timer,
spectators, quick games, the host's powers, rematches, next_round and room codes.

The tests run the app in-process (starlette's TestClient) on a memory store, with a
FakeClock where timers matter (any message, a ping say, wakes the room to look at the
clock); the last one runs ``dudo serve`` as a process to test the transport's own limit.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect as ws_connect

from dudo.fairness import server_seat_seed
from dudo.server.guard.gate import GateLimits
from dudo.server.protocol import MAX_MESSAGE_BYTES
from dudo.server.site.lobby import CODE_ALPHABET
from dudo.server.table.schedule import GraceOver, Schedule
from dudo.store.base import MemoryStore
from serverkit import (
    CountingEntropy,
    FakeClock,
    app_and_lobby,
    fast_config,
    make_app,
    real_seat_limits,
    server_process,
    sqlite_url,
)
from socketkit import (
    Sock,
    Table,
    bidding,
    connect,
    legal_bid,
    seat_table,
    settled,
)

HOST_OPENS = {"preset": "perudo", "first_opener": "host"}


def entries(store: MemoryStore, code: str, kind: str | None = None) -> list[Any]:
    return [entry for entry in store.logs[code] if kind is None or entry.kind == kind]


@dataclass
class Live:
    """A running game: client, store, clock, table, and a socket per human seat."""

    client: TestClient
    store: MemoryStore
    clock: FakeClock
    table: Table
    socks: dict[int, Sock]

    @property
    def code(self) -> str:
        return self.table.code

    def log_size(self) -> int:
        """Stored changes; refusals are stored too (so a retry gets the same answer), but
        they change nothing."""
        return sum(1 for entry in self.store.logs[self.code] if entry.kind != "refused")


@contextlib.contextmanager
def live_game(
    seats: int = 2,
    *,
    rules: dict[str, Any] | None = None,
    bots: list[str | None] | None = None,
    timer: int = 0,
    start: bool = True,
    gate: GateLimits | None = None,
    **config: Any,
) -> Iterator[Live]:
    """A room with humans in every seat not given to a bot, each with a socket; started
    (and rolled) unless ``start`` is False."""
    store, clock = MemoryStore(), FakeClock()
    app = make_app(
        fast_config(**config),
        store=store,
        clock=clock,
        entropy=CountingEntropy("protocol"),
        **({"gate": gate} if gate else {}),
    )
    with TestClient(app) as client, contextlib.ExitStack() as stack:
        table = seat_table(client, seats, rules=rules or HOST_OPENS, bots=bots, timer=timer)
        socks = {
            seat: stack.enter_context(connect(client, table.code, token, f"seat {seat}"))
            for seat, token in sorted(table.tokens.items())
        }
        if start:
            assert socks[0].reply_to({"type": "start", "id": "start"})["type"] == "ack"
            for sock in socks.values():
                sock.wait_for(bidding)
        yield Live(client, store, clock, table, socks)


# -- bad input ------------------------------------------------------------------------

NESTED = "[" * 2000 + "]" * 2000

BAD_MESSAGES: list[tuple[str, str | bytes, str, str]] = [
    # (name, what is sent, error code, a word the error message must contain), sent by
    # seat 1 while the host (seat 0) is to bid; the last few by the host itself.
    ("not json", "dudo!", "bad_json", "JSON"),
    ("binary junk", b"\xff\xfe\x00\x81", "bad_json", "JSON"),
    ("empty", "", "bad_json", "JSON"),
    ("array", "[1, 2]", "bad_message", "object"),
    ("string", '"bid"', "bad_message", "object"),
    ("no type", "{}", "bad_message", "type"),
    ("type not a string", '{"type": 5}', "bad_message", "type"),
    ("unknown type", '{"type": "fly", "id": "x"}', "unknown_type", "fly"),
    ("other version", '{"type": "ping", "v": 2}', "bad_version", "version"),
    ("version true", '{"type": "ping", "v": true}', "bad_version", "version"),
    ("version as float", '{"type": "ping", "v": 1.0}', "bad_version", "version"),
    (
        "quantity as text",
        '{"type": "bid", "id": "x", "quantity": "3", "face": 4}',
        "bad_message",
        "quantity",
    ),
    (
        "quantity as bool",
        '{"type": "bid", "id": "x", "quantity": true, "face": 4}',
        "bad_message",
        "quantity",
    ),
    (
        "quantity a float",
        '{"type": "bid", "id": "x", "quantity": 3.0, "face": 4}',
        "bad_message",
        "quantity",
    ),
    (
        "quantity overflows",
        '{"type": "bid", "id": "x", "quantity": 1e400, "face": 4}',
        "bad_message",
        "quantity",
    ),
    (
        "huge face",
        '{"type": "bid", "id": "x", "quantity": 3, "face": 1' + "0" * 40 + "}",
        "bad_message",
        "face",
    ),
    ("missing face", '{"type": "bid", "id": "x", "quantity": 3}', "bad_message", "face"),
    (
        "extra key",
        '{"type": "bid", "id": "x", "quantity": 3, "face": 4, "dice": [6]}',
        "bad_message",
        "dice",
    ),
    ("empty id", '{"type": "bid", "id": "", "quantity": 3, "face": 4}', "bad_message", "id"),
    (
        "long id",
        '{"type": "bid", "id": "' + "i" * 65 + '", "quantity": 3, "face": 4}',
        "bad_message",
        "id",
    ),
    ("no id", '{"type": "call", "call": "dudo"}', "bad_message", "id"),
    ("unknown call", '{"type": "call", "id": "x", "call": "liar"}', "bad_message", "call"),
    ("unknown emote", '{"type": "emote", "emote": "x"}', "bad_message", "emote"),
    ("seed not hex", '{"type": "seed", "round": 1, "seed": "not hex"}', "bad_seed", "hex"),
    ("seed too long", '{"type": "seed", "seed": "' + "a" * 129 + '"}', "bad_message", "seed"),
    (
        "oversized",
        '{"type": "ping", "pad": "' + "x" * MAX_MESSAGE_BYTES + '"}',
        "too_large",
        "4096",
    ),
    (
        "oversized in bytes, not characters",
        '{"type": "ping", "pad": "' + "\N{GAME DIE}" * 1100 + '"}',
        "too_large",
        "4096",
    ),
    ("nested too deep", NESTED, "bad_json", "JSON"),
    (
        "nested too deep in a field",
        '{"type": "ping", "x": ' + NESTED[:3000] + "}",
        "bad_json",
        "JSON",
    ),
    (
        "out of turn",
        '{"type": "bid", "id": "x", "quantity": 9, "face": 6, "v": 1}',
        "not_your_turn",
        "turn",
    ),
    ("call with no bid", '{"type": "call", "id": "x", "call": "dudo"}', "no_bid", "bid"),
    (
        "seed for round zero",
        '{"type": "seed", "id": "x", "round": 0, "seed": "ab"}',
        "bad_message",
        "rolloff-1",
    ),
    (
        "seed for a roll-off label out of range",
        '{"type": "seed", "id": "x", "round": "rolloff-0", "seed": "ab"}',
        "bad_message",
        "round's number",
    ),
    ("start, not the host", '{"type": "start", "id": "x"}', "not_host", "host"),
    (
        "configure, not the host",
        '{"type": "configure", "id": "x", "timer": 30}',
        "not_host",
        "host",
    ),
    ("next round while bidding", '{"type": "next_round", "id": "x"}', "not_now", "round"),
    ("rematch in play", '{"type": "rematch", "id": "x"}', "not_now", "after"),
    (
        "host: impossible bid",
        '{"type": "bid", "id": "x", "quantity": 0, "face": 9}',
        "bad_bid",
        "face",
    ),
    (
        "host: bid over the cap",
        '{"type": "bid", "id": "x", "quantity": 16, "face": 3}',
        "over_cap",
        "more dice",
    ),
    (
        "classic bid in the hand's field",
        '{"type": "bid", "id": "x", "bid": [3, 4]}',
        "bad_message",
        "'quantity' and 'face'",
    ),
    ("host: start again", '{"type": "start", "id": "x"}', "not_now", "started"),
    (
        "host: configure in play",
        '{"type": "configure", "id": "x", "timer": 30}',
        "not_now",
        "between games",
    ),
]


def readable_id(sent: str | bytes) -> str | None:
    """The id a message carries, if it is a JSON object with an id of the protocol's form."""
    try:
        data = json.loads(sent)
    except (ValueError, RecursionError):
        return None
    action_id = data.get("id") if isinstance(data, dict) else None
    return action_id if isinstance(action_id, str) and 1 <= len(action_id) <= 64 else None


@pytest.fixture(scope="module")
def running() -> Iterator[Live]:
    """One game for every bad-input case (they must leave it as it is)."""
    with live_game(3) as live:
        yield live


@pytest.mark.parametrize(
    "name, sent, code, word", BAD_MESSAGES, ids=[case[0] for case in BAD_MESSAGES]
)
def test_a_bad_message_gets_an_error_naming_the_problem_and_changes_nothing(
    running: Live, name: str, sent: str | bytes, code: str, word: str
) -> None:
    seat = 0 if name.startswith("host") else 1
    if isinstance(sent, str):  # a fresh id per case (a used id gets its first answer)
        sent = sent.replace('"id": "x"', f'"id": "{name}"')
    with connect(running.client, running.code, running.table.tokens[seat], name) as sock:
        before_version = sock.ping()
        before_log = running.log_size()
        sock.send(sent)
        reply = sock.until(lambda m: m["type"] in ("error", "ack", "pong"))
        assert reply["type"] == "error", f"{name}: {reply}"
        assert reply["code"] == code, f"{name}: {reply}"
        assert word.lower() in reply["message"].lower(), reply
        # The error answers the message's id whenever one could be read, so that a client
        # waiting on it is not left waiting (a message too large is not read at all).
        assert reply.get("id") == (None if code == "too_large" else readable_id(sent)), reply
        assert sock.ping() == before_version, "the state changed"
        assert running.log_size() == before_log
        # The connection is still usable: an action is still judged and answered.
        again = sock.reply_to({"type": "call", "id": f"after {name}", "call": "dudo"})
        assert again["type"] == "error" and again["code"] == "no_bid"


def test_a_connection_stays_usable_after_every_kind_of_bad_message() -> None:
    with live_game(2) as live, connect(live.client, live.code, live.table.tokens[0]) as host:
        version = host.ping()
        for name, sent, _, _ in BAD_MESSAGES[:20]:
            host.send(sent)
            assert host.until(lambda m: m["type"] in ("error", "ack"))["type"] == "error", name
        assert host.ping() == version
        bid = legal_bid(host.state or {})
        assert bid is not None
        ack = host.reply_to({"type": "bid", "id": "good", **bid})
        assert ack == {"type": "ack", "v": 1, "id": "good", "version": version + 1}


def test_bad_http_requests_get_an_error_naming_the_problem() -> None:
    with TestClient(make_app()) as client:
        cases = [
            ({"name": ""}, "name"),
            ({"name": "Ann", "seats": 7}, "seats"),
            ({"name": "Ann", "rules": {"preset": "poker"}}, "poker"),
            ({"name": "Ann", "rules": {"starting_dice": "five"}}, "starting_dice"),
            ({"name": "Ann", "timer": 3}, "timer"),
            ({"name": "Ann", "colour": "red"}, "colour"),
            ({"name": "\u200b\x00"}, "name"),
        ]
        for body, word in cases:
            response = client.post("/api/rooms", json=body)
            assert response.status_code == 400, body
            assert word in response.json()["message"], response.json()
        response = client.post(
            "/api/rooms",
            content=b"x" * (MAX_MESSAGE_BYTES + 1),
            headers={"content-type": "application/json"},
        )
        assert response.status_code == 413 and response.json()["error"] == "too_large"
        assert client.get("/api/rooms").json() == {"rooms": []}


# -- rate limits ------------------------------------------------------------------------


def test_each_seat_is_rate_limited_on_its_own() -> None:
    with live_game(2, gate=real_seat_limits()) as live:
        host, other = live.socks[0], live.socks[1]
        version = host.ping()
        flood = 100
        for _ in range(flood):
            host.send({"type": "ping"})
        replies = [host.until(lambda m: m["type"] in ("pong", "error")) for _ in range(flood)]
        limited = [r for r in replies if r["type"] == "error"]
        assert limited and all(r["code"] == "rate_limited" for r in limited)
        assert "slow down" in limited[0]["message"]
        assert len(replies) - len(limited) >= 20  # the burst went through
        assert all(r["version"] == version for r in replies if r["type"] == "pong")
        # Another connection is not held back by this one's flood...
        assert other.ping() == version
        # ...and this one recovers as its allowance refills (8 a second).
        time.sleep(0.5)
        assert host.ping() == version
        bid = legal_bid(host.state or {})
        assert host.reply_to({"type": "bid", "id": "after-flood", **(bid or {})})["type"] == "ack"


def test_rate_limited_actions_are_not_applied() -> None:
    app, _ = app_and_lobby(gate=GateLimits(messages_per_second=0.001, message_burst=3))
    with TestClient(app) as client:
        table = seat_table(client, 2, rules=HOST_OPENS)
        with connect(client, table.code, table.tokens[0]) as host:
            host.send({"type": "ping"})
            host.send({"type": "ping"})
            host.send({"type": "ping"})
            host.send({"type": "start", "id": "late"})
            replies = [
                host.until(lambda m: m["type"] in ("pong", "error", "ack")) for _ in range(4)
            ]
            # (the refusal may overtake the pongs: it comes from the socket, not the room)
            assert sorted(r["type"] for r in replies) == ["error", "pong", "pong", "pong"]
            assert [r["code"] for r in replies if r["type"] == "error"] == ["rate_limited"]
            assert client.get(f"/api/rooms/{table.code}").json()["status"] == "lobby"


# -- exactly once -----------------------------------------------------------------------


def test_a_repeated_action_id_is_applied_once_and_answered_the_same() -> None:
    with live_game(2) as live:
        host, other = live.socks[0], live.socks[1]
        bid = legal_bid(host.state or {})
        message = {"type": "bid", "id": "b-1", **(bid or {})}
        host.send(message)
        first = host.until(lambda m: m["type"] == "ack")
        first_text = host.texts[-1]
        other.until(lambda m: m["type"] == "state" and m["version"] == first["version"])
        size = live.log_size()
        heard = len(other.texts)
        # The same message again, and another action under the same id: the first answer.
        host.send(message)
        host.send({"type": "call", "id": "b-1", "call": "dudo"})
        host.send({"type": "bid", "id": "b-1", "quantity": 30, "face": 6})
        for _ in range(3):
            host.until(lambda m: m["type"] in ("ack", "error"))
            assert host.texts[-1] == first_text
        assert host.ping() == first["version"]
        assert live.log_size() == size
        assert other.ping() == first["version"]
        # Nobody was told of a change.
        assert [json.loads(text)["type"] for text in other.texts[heard:]] == ["pong"]
        # Retried after a reconnect: still the first answer.
        with connect(live.client, live.code, live.table.tokens[0], "host again") as again:
            again.send(message)
            again.until(lambda m: m["type"] == "ack")
            assert again.texts[-1] == first_text
        assert live.log_size() == size


def test_a_refused_action_id_is_answered_with_the_same_refusal() -> None:
    with live_game(2) as live:
        host, other = live.socks[0], live.socks[1]
        early = {"type": "bid", "id": "early", "quantity": 1, "face": 5}
        refusal = other.reply_to(early)
        assert refusal["type"] == "error" and refusal["code"] == "not_your_turn"
        assert refusal["id"] == "early"
        refusal_text = other.texts[-1]
        bid = legal_bid(host.state or {})
        host.reply_to({"type": "bid", "id": "opening", **(bid or {})})
        other.until(lambda m: m["type"] == "state" and m["game"]["turn"] == 1)
        # Now the same bid could be legal, but the id was answered already.
        size = live.log_size()
        again = other.reply_to(early)
        assert other.texts[-1] == refusal_text and again["code"] == "not_your_turn"
        assert live.log_size() == size


def test_a_refused_action_says_which_cause_in_a_detail_beside_the_old_fields() -> None:
    # The error said only "calza is not allowed now": not that perudo's calza needs 3
    # players. The old fields stay as they were, for older clients.
    with live_game(2) as live:
        host, other = live.socks[0], live.socks[1]
        early = other.reply_to({"type": "call", "id": "early", "call": "dudo"})
        assert early["code"] == "no_bid" and early["detail"]["key"] == "no_bid.first"
        out_of_turn = other.reply_to({"type": "bid", "id": "soon", "quantity": 9, "face": 6})
        assert out_of_turn["code"] == "not_your_turn"
        assert out_of_turn["message"] == "it is not your turn"
        assert out_of_turn["detail"] == {
            "key": "not_your_turn.bid",
            "params": {"seat": 0, "name": "Host"},
            "text": "It is Host's turn: you may bid only on your turn.",
        }
        host.reply_to({"type": "bid", "id": "opening", "quantity": 2, "face": 5})
        other.until(lambda m: m["type"] == "state" and m["game"]["turn"] == 1)
        refusal = other.reply_to({"type": "call", "id": "exact", "call": "calza"})
        assert refusal["code"] == "calza_not_allowed" and refusal["id"] == "exact"
        assert refusal["message"] == "calza is not allowed now"
        assert refusal["detail"] == {
            "key": "calza_not_allowed.min_players",
            "params": {"min": 3, "alive": 2},
            "text": "Calza needs at least 3 players in the game, and only 2 are left.",
        }
        again = other.reply_to({"type": "call", "id": "exact", "call": "calza"})
        assert again == refusal  # remembered under its id, detail and all
        low = other.reply_to({"type": "bid", "id": "low", "quantity": 2, "face": 4})
        assert low["detail"]["key"] == "not_a_raise.plain"
        assert low["detail"]["params"] == {"bid": [2, 5], "face": 4, "least": [3, 4]}
        ignored = host.reply_to({"type": "rematch", "id": "r"})
        assert ignored["code"] == "not_now" and "detail" not in ignored


def test_an_action_made_against_an_old_version_is_refused() -> None:
    with live_game(2) as live:
        host = live.socks[0]
        version = host.ping()
        bid = legal_bid(host.state or {})
        stale = host.reply_to({"type": "bid", "id": "stale", "version": version - 1, **(bid or {})})
        assert stale["type"] == "error" and stale["code"] == "stale"
        assert str(version) in stale["message"]
        fresh = host.reply_to({"type": "bid", "id": "fresh", "version": version, **(bid or {})})
        assert fresh["type"] == "ack" and fresh["version"] == version + 1


def test_two_sockets_of_one_seat_sending_the_same_action_apply_it_once() -> None:
    with live_game(2) as live:
        host = live.socks[0]
        with connect(live.client, live.code, live.table.tokens[0], "host's phone") as phone:
            bid = legal_bid(host.state or {})
            message = {"type": "bid", "id": "twice", **(bid or {})}
            host.send(message)
            phone.send(message)
            one = host.until(lambda m: m["type"] in ("ack", "error"))
            two = phone.until(lambda m: m["type"] in ("ack", "error"))
            assert one == two and one["type"] == "ack"
            assert len(entries(live.store, live.code, "action")) == 1


def test_start_and_rematch_are_applied_once() -> None:
    with live_game(2, rules={**HOST_OPENS, "starting_dice": 1}, start=False) as live:
        host, other = live.socks[0], live.socks[1]
        start = {"type": "start", "id": "go"}
        first = host.reply_to(start)
        assert first["type"] == "ack"
        assert host.reply_to(start) == first
        assert len(entries(live.store, live.code, "started")) == 1
        # One die each: a bid and a call end the game.
        host.wait_for(bidding)
        host.reply_to({"type": "bid", "id": "b", **(legal_bid(host.state or {}) or {})})
        other.until(lambda m: bidding(m) and m["game"]["turn"] == 1)
        assert other.reply_to({"type": "call", "id": "c", "call": "dudo"})["type"] == "ack"
        host.until(lambda m: m["type"] == "state" and m["room"]["status"] == "over")
        # Both ask for a rematch at once: one is applied, the other is told it is too late.
        host.send({"type": "rematch", "id": "again"})
        other.send({"type": "rematch", "id": "me too"})
        answers = [
            host.until(lambda m: m["type"] in ("ack", "error")),
            other.until(lambda m: m["type"] in ("ack", "error")),
        ]
        assert sorted(a["type"] for a in answers) == ["ack", "error"]
        assert [a["code"] for a in answers if a["type"] == "error"] == ["not_now"]
        assert len(entries(live.store, live.code, "rematch")) == 1


def test_actions_are_applied_once_across_a_server_restart() -> None:
    store, clock = MemoryStore(), FakeClock()
    first_app = make_app(store=store, clock=clock, entropy=CountingEntropy("restart"))
    with TestClient(first_app) as client:
        table = seat_table(client, 2, rules=HOST_OPENS)
        with connect(client, table.code, table.tokens[0]) as host:
            host.reply_to({"type": "start", "id": "go"})
            dealt = host.wait_for(bidding)["game"]["dice"]
            message = {"type": "bid", "id": "before-crash", **(legal_bid(host.state or {}) or {})}
            ack = host.reply_to(message)
            ack_text = host.texts[-1]
    size = len(store.logs[table.code])
    second_app = make_app(store=store, clock=clock, entropy=CountingEntropy("restart 2"))
    with TestClient(second_app) as client, connect(client, table.code, table.tokens[0]) as host:
        state = host.state or {}
        assert state["version"] == ack["version"]
        assert state["game"]["dice"] == dealt  # the same seat, the same dice
        host.send(message)
        host.until(lambda m: m["type"] == "ack")
        assert host.texts[-1] == ack_text
        assert host.ping() == ack["version"]
    assert len(store.logs[table.code]) == size


# -- seats and tokens ---------------------------------------------------------------------


def test_seat_tokens_are_random_secret_and_only_stored_hashed() -> None:
    store = MemoryStore()
    with TestClient(make_app(store=store)) as client:
        tokens: list[str] = []
        for _ in range(4):
            table = seat_table(client, 4)
            tokens.extend(table.tokens.values())
        assert len(set(tokens)) == len(tokens) == 16
        for token in tokens:
            assert re.fullmatch(r"[A-Za-z0-9_-]{32,}", token)
        stored = json.dumps([entry.data for log in store.logs.values() for entry in log])
        assert not any(token in stored for token in tokens)
        assert not any(
            token in client.get(f"/api/rooms/{code}").text
            for code in store.logs
            for token in tokens
        )


def test_a_wrong_token_gets_no_seat() -> None:
    with TestClient(make_app()) as client:
        table = seat_table(client, 2)
        other = seat_table(client, 2)
        token = table.tokens[1]
        for wrong in (
            token[:-1] + ("A" if token[-1] != "A" else "B"),
            token[:-1],
            other.tokens[1],
            "x",
            "%00" * 3,
            "a" * 500,
            "",  # "?token=": an empty token is a wrong one, not a spectator's socket
        ):
            with connect(client, table.code, wrong) as sock:
                assert sock.texts[0] and json.loads(sock.texts[0])["code"] == "bad_token"
                with pytest.raises(WebSocketDisconnect):
                    sock.recv()
                assert sock.close_code == 4401
        # the same offered as the subprotocol "token." with nothing after it
        with client.websocket_connect(
            f"/ws/{table.code}", subprotocols=["dudo.v1", "token."]
        ) as session:
            assert session.receive_json()["code"] == "bad_token"
            with pytest.raises(WebSocketDisconnect) as closed:
                session.receive_json()
            assert closed.value.code == 4401
        with connect(client, table.code, token) as sock:
            assert (sock.state or {})["you"] == {"seat": 1, "role": "player", "host": False}


def test_tokens_are_compared_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    compared: list[tuple[str, str]] = []
    real = hmac.compare_digest

    def spy(a: str, b: str) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    with TestClient(make_app()) as client:
        table = seat_table(client, 3)
        with connect(client, table.code, table.tokens[2]) as sock:
            assert (sock.state or {})["you"]["seat"] == 2
    # Every seat's hash was compared (no early exit that would time the match).
    assert len(compared) == 3


def test_reconnecting_mid_round_returns_the_same_seat_and_dice_at_once() -> None:
    with live_game(3) as live:
        seat1 = live.socks[1]
        dice = (seat1.state or {})["game"]["dice"]
        host = live.socks[0]
        host.reply_to({"type": "bid", "id": "open", **(legal_bid(host.state or {}) or {})})
        version = host.ping()
        seat1.close()
        summary = live.client.get(f"/api/rooms/{live.code}").json()
        assert summary["seats"][1]["connected"] is False
        assert summary["seats"][1]["kind"] == "human" and summary["seats"][1]["name"] == "P1"
        with connect(live.client, live.code, live.table.tokens[1], "seat 1 back") as back:
            state = back.state or {}  # the first payload: the whole table, own dice
            assert state["version"] == version
            assert state["you"]["seat"] == 1
            assert state["game"]["dice"] == dice and state["game"]["turn"] == 1
            bid = legal_bid(state)
            assert back.reply_to({"type": "bid", "id": "back", **(bid or {})})["type"] == "ack"


def test_a_seat_is_kept_and_a_bot_plays_it_after_the_grace_period() -> None:
    with live_game(2, grace=30.0) as live:
        host, leaver = live.socks[0], live.socks[1]
        leaver.close()
        host.until(lambda m: m["type"] == "state" and m["room"]["seats"][1]["connected"] is False)
        host.reply_to({"type": "bid", "id": "open", **(legal_bid(host.state or {}) or {})})
        version = host.ping()
        # Within the grace period the seat waits for its player.
        live.clock.advance(29.0)
        assert host.ping() == version
        summary = live.client.get(f"/api/rooms/{live.code}").json()
        assert summary["seats"][1]["bot_playing"] is False
        # Past it, a bot plays the seat's turn.
        live.clock.advance(2.0)
        host.ping()
        host.until(lambda m: m["type"] == "state" and m["version"] > version)
        acted = [e.data for e in entries(live.store, live.code, "action") if e.data["seat"] == 1]
        assert [data["by"] for data in acted] == ["bot"]
        summary = live.client.get(f"/api/rooms/{live.code}").json()
        assert summary["seats"][1] == {
            "kind": "human",
            "name": "P1",
            "level": None,
            "connected": False,
            "bot_playing": True,
        }
        # Nobody else can take the seat meanwhile.
        assert (
            live.client.post(f"/api/rooms/{live.code}/join", json={"name": "Thief"}).status_code
            == 409
        )
        # The player comes back to the same seat: the bot stops playing it.
        with connect(live.client, live.code, live.table.tokens[1], "back") as back:
            state = back.state or {}
            assert state["you"]["seat"] == 1
            assert state["room"]["seats"][1]["bot_playing"] is False
            for step in range(10):
                state = back.wait_for(lambda m: settled(m, 0))
                if state["game"]["turn"] == 1:
                    break
                bid = legal_bid(host.settle(state["version"]))
                message = (
                    {"type": "bid", "id": f"h{step}", **bid}
                    if bid
                    else {"type": "call", "id": f"h{step}", "call": "dudo"}
                )
                back.settle(host.reply_to(message)["version"])
            assert (back.state or {})["game"]["turn"] == 1
            version = back.ping()
            live.clock.advance(600.0)
            assert back.ping() == version
            assert (
                len([e for e in entries(live.store, live.code, "action") if e.data["seat"] == 1])
                == 1
            )


def test_the_turn_timer_plays_for_the_seat_once() -> None:
    with live_game(2, timer=10) as live:
        host, other = live.socks[0], live.socks[1]
        state = host.state or {}
        assert state["deadline"] == live.clock.now + 10
        version = host.ping()
        live.clock.advance(9.9)
        assert other.ping() == version
        live.clock.advance(0.2)
        other.ping()
        state = other.until(lambda m: m["type"] == "state" and m["version"] > version)
        for _ in range(5):
            other.ping()
        timed = [e.data for e in entries(live.store, live.code, "action")]
        assert len(timed) == 1 and timed[0]["seat"] == 0 and timed[0]["by"] == "timer"
        assert state["game"]["turn"] == 1
        # The next turn has its own full time, counted from now.
        assert state["deadline"] == live.clock.now + 10
        # A player who acts in time is not played for.
        bid = legal_bid(state)
        assert other.reply_to({"type": "bid", "id": "mine", **(bid or {})})["type"] == "ack"
        live.clock.advance(9.0)
        host.ping()
        assert [e.data["by"] for e in entries(live.store, live.code, "action")] == [
            "timer",
            "player",
        ]


def bot_plays(state: dict[str, Any], *seats: int) -> bool:
    return state["type"] == "state" and all(
        state["room"]["seats"][seat]["bot_playing"] for seat in seats
    )


def states_within(sock: Sock, seconds: float) -> list[dict[str, Any]]:
    """Every state the socket receives in the next ``seconds``."""
    states = []
    end = time.monotonic() + seconds
    while (left := end - time.monotonic()) > 0:
        try:
            message = sock.recv(timeout=left)
        except AssertionError:  # nothing more came
            break
        if message["type"] == "state":
            states.append(message)
    return states


def test_the_table_sees_a_bot_take_away_seats_when_their_grace_ends_with_nobody_moving() -> None:
    """Nothing is logged when a player's grace ends, but the table is told then that a bot
    plays the seat (it went on showing "away" until the next move before), seat by seat.
    The real clock and a short grace: the room must wake by itself, nobody pings."""
    store = MemoryStore()
    app = make_app(fast_config(grace=0.5), store=store)
    with TestClient(app) as client, contextlib.ExitStack() as stack:
        table = seat_table(client, 3, rules=HOST_OPENS)
        socks = {
            seat: stack.enter_context(connect(client, table.code, token, f"seat {seat}"))
            for seat, token in sorted(table.tokens.items())
        }
        watcher = stack.enter_context(connect(client, table.code, None, "spectator"))
        assert socks[0].reply_to({"type": "start", "id": "start"})["type"] == "ack"
        watcher.wait_for(bidding)
        socks[1].close()
        watcher.until(lambda m: m["type"] == "state" and not m["room"]["seats"][1]["connected"])
        socks[2].close()
        away = watcher.until(
            lambda m: m["type"] == "state" and not m["room"]["seats"][2]["connected"]
        )
        assert not bot_plays(away, 2)
        seen = watcher.until(lambda m: bot_plays(m, 1, 2))
        assert socks[0].wait_for(lambda m: bot_plays(m, 1, 2))["version"] == seen["version"]
        # Nobody moved: the host (seat 0) is still to open the round.
        assert seen["game"]["turn"] == 0 and seen["game"]["phase"] == "bidding"
        assert entries(store, table.code, "action") == []
        # Told once: no more states while nothing happens.
        assert states_within(watcher, 1.5) == []


def test_a_grace_end_is_told_as_it_was_found_when_the_clock_moves_on_before_the_state(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The state telling of a grace end is judged at the time the end was found. Judged by
    a later reading of the clock (a busy machine between finding and telling), it showed a
    second away seat's grace over too, and that seat's own announcement then came with
    nothing new: an extra state, seen under load."""
    found_by = Schedule.due

    def due_then_busy(schedule: Schedule) -> Any:
        found = found_by(schedule)
        if isinstance(found, GraceOver):
            live.clock.advance(5.0)  # the machine busy before the state is made
        return found

    with live_game(3, grace=30.0) as live:
        monkeypatch.setattr(Schedule, "due", due_then_busy)
        host = live.socks[0]
        live.socks[1].close()
        host.until(lambda m: m["type"] == "state" and not m["room"]["seats"][1]["connected"])
        live.clock.advance(2.0)
        live.socks[2].close()
        host.until(lambda m: m["type"] == "state" and not m["room"]["seats"][2]["connected"])
        live.clock.advance(28.5)  # seat 1 away 30.5 s (over), seat 2 28.5 s (not yet)
        host.ping()
        first = host.until(lambda m: bot_plays(m, 1))
        assert not bot_plays(first, 2), "seat 2's grace was not over when seat 1's was found"
        # The busy machine took seat 2 past its grace (33.5 s): its own announcement next.
        second = host.until(lambda m: m["type"] == "state")
        assert bot_plays(second, 1, 2)
        assert second["version"] == first["version"]  # nothing logged, nobody moved


def test_a_player_back_within_the_grace_is_never_shown_as_played_by_a_bot() -> None:
    app = make_app(fast_config(grace=1.0))
    with TestClient(app) as client, contextlib.ExitStack() as stack:
        table = seat_table(client, 2, rules=HOST_OPENS)
        host = stack.enter_context(connect(client, table.code, table.tokens[0], "host"))
        guest = stack.enter_context(connect(client, table.code, table.tokens[1], "guest"))
        assert host.reply_to({"type": "start", "id": "start"})["type"] == "ack"
        host.wait_for(bidding)
        guest.close()
        host.until(lambda m: m["type"] == "state" and not m["room"]["seats"][1]["connected"])
        with connect(client, table.code, table.tokens[1], "guest back"):
            host.until(lambda m: m["type"] == "state" and m["room"]["seats"][1]["connected"])
            assert not any(bot_plays(state, 1) for state in states_within(host, 2.5))


def test_after_a_restart_the_table_is_told_when_the_grace_of_a_player_not_back_ends() -> None:
    """A restarted room counts its players away from the restart: one who does not come
    back is shown played by a bot when that grace ends, with nobody moving."""
    store, config = MemoryStore(), fast_config(grace=0.5)
    with TestClient(make_app(config, store=store)) as client:
        table = seat_table(client, 2, rules=HOST_OPENS)
        with connect(client, table.code, table.tokens[0]) as host:
            assert host.reply_to({"type": "start", "id": "start"})["type"] == "ack"
            host.wait_for(bidding)
    with (
        TestClient(make_app(config, store=store)) as client,
        connect(client, table.code, table.tokens[0], "host after the restart") as host,
    ):
        assert not bot_plays(host.state or {}, 1)
        seen = host.until(lambda m: bot_plays(m, 1))
        assert seen["game"]["turn"] == 0
        assert entries(store, table.code, "action") == []


def test_no_bot_plays_for_an_away_player_in_the_lobby_nor_after_the_game() -> None:
    """``bot_playing`` said true for a player away past the grace in the lobby and after
    the game, when no bot plays for anyone (the browser then said "a bot plays" there):
    only while the game is played. The real clock and a short grace, as above."""
    app = make_app(fast_config(grace=0.5))
    one_round = {**HOST_OPENS, "starting_dice": 1}
    with TestClient(app) as client, contextlib.ExitStack() as stack:
        table = seat_table(client, 2, rules=one_round)
        host = stack.enter_context(connect(client, table.code, table.tokens[0], "host"))
        with connect(client, table.code, table.tokens[1], "guest"):
            host.until(lambda m: m["type"] == "state" and m["room"]["seats"][1]["connected"])
        host.until(lambda m: m["type"] == "state" and not m["room"]["seats"][1]["connected"])
        time.sleep(1.0)  # twice the grace
        lobby = client.get(f"/api/rooms/{table.code}").json()
        assert lobby["status"] == "lobby"
        assert lobby["seats"][1]["connected"] is False
        assert lobby["seats"][1]["bot_playing"] is False
        with connect(client, table.code, None, "spectator") as watcher:
            assert (watcher.state or {})["room"]["seats"][1]["bot_playing"] is False
        # The game: a bot plays the away seat from the start, and the table is told so.
        assert host.reply_to({"type": "start", "id": "start"})["type"] == "ack"
        assert host.wait_for(lambda m: bot_plays(m, 1))["room"]["status"] == "playing"
        version = 0
        for step in range(10):  # one die each: the first call ends the game
            state = host.wait_for(
                lambda m, after=version: (
                    settled(m, after) and (m["room"]["status"] == "over" or m["game"]["turn"] == 0)
                )
            )
            if state["room"]["status"] == "over":
                break
            bid = legal_bid(state)
            message = (
                {"type": "call", "id": f"h{step}", "call": "dudo"}
                if state["game"]["standing"] is not None
                else {"type": "bid", "id": f"h{step}", **(bid or {})}
            )
            ack = host.reply_to(message)
            assert ack["type"] == "ack", ack
            version = ack["version"]
        over = host.wait_for(lambda m: m["room"]["status"] == "over")
        seat = over["room"]["seats"][1]
        assert seat["kind"] == "human" and seat["connected"] is False
        assert seat["bot_playing"] is False and "left" not in seat
        summary = client.get(f"/api/rooms/{table.code}").json()
        assert summary["status"] == "over" and summary["seats"][1]["bot_playing"] is False


# -- spectators ---------------------------------------------------------------------------


def test_spectators_see_the_table_but_no_dice_and_cannot_act() -> None:
    with live_game(2) as live, connect(live.client, live.code, None, "watcher") as watcher:
        state = watcher.state or {}
        assert state["you"] == {"seat": None, "role": "spectator", "host": False}
        assert state["game"]["phase"] == "bidding" and state["game"]["dice"] == []
        assert state["game"]["dice_counts"] == [5, 5]
        assert state["game"]["legal"] == {"bids": [], "calls": []}
        for message in (
            {"type": "bid", "id": "s", "quantity": 1, "face": 2},
            {"type": "call", "id": "s2", "call": "dudo"},
            {"type": "next_round", "id": "s3"},
            {"type": "rematch", "id": "s4"},
            {"type": "emote", "emote": "\N{GAME DIE}"},
            {"type": "seed", "round": 1, "seed": "abcd"},
        ):
            reply = watcher.reply_to(message)
            assert reply["type"] == "error" and reply["code"] == "spectator"
        host = live.socks[0]
        host.reply_to({"type": "bid", "id": "b", **(legal_bid(host.state or {}) or {})})
        seen = watcher.until(lambda m: m["type"] == "state" and m["game"]["bids"])
        assert seen["game"]["dice"] == [] and '"cups"' not in watcher.texts[-1]
        assert watcher.ping() == host.ping()


def test_a_room_code_is_four_letters_and_unknown_codes_are_rate_limited() -> None:
    app, holder = app_and_lobby()
    with TestClient(app) as client:
        table = seat_table(client, 2)
        assert len(table.code) == 4 and set(table.code) <= set(CODE_ALPHABET)
        assert client.get(f"/api/rooms/{table.code.lower()}").status_code == 200
        unknown = next(c * 4 for c in CODE_ALPHABET if c * 4 != table.code)
        with connect(client, unknown) as sock:
            assert json.loads(sock.texts[0])["code"] == "no_room"
            with pytest.raises(WebSocketDisconnect):
                sock.recv()
            assert sock.close_code == 4404
        statuses = [client.get(f"/api/rooms/{unknown}").status_code for _ in range(19)]
        assert statuses == [404] * 19  # with the socket's miss, 20 in all
        assert client.get(f"/api/rooms/{unknown}").status_code == 429
        # Blocked for any code now, the real one too, over HTTP and WebSocket alike.
        assert client.get(f"/api/rooms/{table.code}").status_code == 429
        assert (
            client.post(f"/api/rooms/{table.code}/join", json={"name": "Late"}).status_code == 429
        )
        with connect(client, table.code, table.tokens[1]) as sock:
            assert json.loads(sock.texts[0])["code"] == "too_many_guesses"
        # Other clients are not blocked; this one is again after a minute.
        lobby = holder.lobby
        assert lobby is not None
        assert lobby.find(table.code, "someone else").code == table.code
        now = time.monotonic()
        lobby.guesses.clock = lambda: now + 61.0
        assert client.get(f"/api/rooms/{table.code}").status_code == 200


# -- quick games, the host, rematch, next round ---------------------------------------------


def test_quick_game_seats_players_together_then_fills_with_bots() -> None:
    clock = FakeClock()
    app = make_app(fast_config(quick_fill=8.0), clock=clock)
    with TestClient(app) as client:
        first = client.post("/api/quick", json={"name": "Ann"}).json()
        second = client.post("/api/quick", json={"name": "Ann"}).json()
        assert first["code"] == second["code"]
        assert (first["seat"], second["seat"]) == (0, 1)
        assert second["name"] == "Ann 2"  # names are unique at a table
        listed = client.get("/api/rooms").json()["rooms"]
        assert [room["code"] for room in listed] == [first["code"]]
        assert listed[0]["quick"] is True and listed[0]["status"] == "lobby"
        with connect(client, first["code"], first["token"]) as sock:
            clock.advance(8.0)
            sock.ping()
            state = sock.wait_for(bidding)
            assert state["room"]["status"] == "playing"
            kinds = [seat["kind"] for seat in state["room"]["seats"]]
            assert kinds == ["human", "human", "bot", "bot"]
        assert client.get("/api/rooms").json()["rooms"] == []


def test_a_full_quick_table_starts_at_once() -> None:
    app = make_app(fast_config(quick_fill=60.0), clock=FakeClock())
    with TestClient(app) as client:
        joined = [client.post("/api/quick", json={"name": f"P{i}"}).json() for i in range(5)]
        assert len({j["code"] for j in joined[:4]}) == 1
        assert joined[4]["code"] != joined[0]["code"]  # a full table takes nobody else
        summary = client.get(f"/api/rooms/{joined[0]['code']}").json()
        assert summary["status"] == "playing"
        assert [seat["kind"] for seat in summary["seats"]] == ["human"] * 4


def test_only_the_host_configures_and_starts_and_only_before_the_start() -> None:
    with live_game(3, start=False) as live:
        host, guest = live.socks[0], live.socks[1]
        size = live.log_size()
        for message in (
            {"type": "configure", "id": "g1", "rules": {"preset": "tavern"}},
            {"type": "start", "id": "g2"},
        ):
            reply = guest.reply_to(message)
            assert reply["type"] == "error" and reply["code"] == "not_host"
        assert live.log_size() == size
        refusals = [
            ({"rules": {"preset": "poker"}}, "bad_rules"),
            ({"rules": {"starting_dice": 0}}, "bad_rules"),
            ({"timer": 3}, "bad_timer"),
            ({"seats": [None, None]}, "bad_seats"),
            ({"seats": [None, {"kind": "bot"}, None]}, "bad_seats"),
        ]
        for number, (change, code) in enumerate(refusals):
            assert isinstance(change, dict)
            reply = host.reply_to({"type": "configure", "id": f"r{number}", **change})
            assert reply["type"] == "error" and reply["code"] == code, (change, reply)
        assert live.log_size() == size
        assert (
            host.reply_to(
                {
                    "type": "configure",
                    "id": "ok",
                    "timer": 20,
                    "public": True,
                    "rules": {"preset": "tavern", "starting_dice": 3},
                }
            )["type"]
            == "ack"
        )
        state = guest.until(lambda m: m["type"] == "state" and m["room"]["timer"] == 20)
        assert state["room"]["rules"]["starting_dice"] == 3 and state["room"]["public"]
        assert host.reply_to({"type": "start", "id": "go"})["type"] == "ack"
        state = guest.wait_for(bidding)
        assert state["game"]["dice_counts"] == [3, 3, 3]
        reply = host.reply_to({"type": "configure", "id": "late", "timer": 0})
        assert reply["type"] == "error" and reply["code"] == "not_now"


def test_the_host_cannot_start_with_an_open_seat_but_can_give_it_to_a_bot() -> None:
    store = MemoryStore()
    with TestClient(make_app(store=store)) as client:
        table = seat_table(client, 3, humans=2)
        with connect(client, table.code, table.tokens[0]) as host:
            reply = host.reply_to({"type": "start", "id": "early"})
            assert reply["type"] == "error" and reply["code"] == "not_ready"
            assert (
                host.reply_to(
                    {
                        "type": "configure",
                        "id": "bot",
                        "seats": [None, None, {"kind": "bot", "level": "easy"}],
                    }
                )["type"]
                == "ack"
            )
            assert host.reply_to({"type": "start", "id": "go"})["type"] == "ack"
            state = host.wait_for(bidding)
            assert [s["kind"] for s in state["room"]["seats"]] == ["human", "human", "bot"]


def test_rematch_after_the_game_by_anyone_at_the_table() -> None:
    with live_game(2, rules={**HOST_OPENS, "starting_dice": 1}) as live:
        host, guest = live.socks[0], live.socks[1]
        early = guest.reply_to({"type": "rematch", "id": "early"})
        assert early["type"] == "error" and early["code"] == "not_now"
        host.reply_to({"type": "bid", "id": "b", **(legal_bid(host.state or {}) or {})})
        guest.until(lambda m: bidding(m) and m["game"]["turn"] == 1)
        guest.reply_to({"type": "call", "id": "c", "call": "dudo"})
        over = guest.until(lambda m: m["type"] == "state" and m["room"]["status"] == "over")
        assert over["game"]["winners"]
        late = guest.reply_to({"type": "bid", "id": "late", "quantity": 1, "face": 2})
        assert late["type"] == "error" and late["code"] == "not_now"
        assert guest.reply_to({"type": "rematch", "id": "again"})["type"] == "ack"
        state = host.wait_for(lambda m: bidding(m) and m["room"]["game"] == 2)
        assert state["room"]["game"] == 2 and state["game"]["dice_counts"] == [1, 1]


def test_next_round_rolls_at_once_for_anyone_at_the_table() -> None:
    with live_game(3, reveal_pause=8.0) as live:
        host, second, third = live.socks[0], live.socks[1], live.socks[2]
        host.reply_to({"type": "bid", "id": "b", **(legal_bid(host.state or {}) or {})})
        second.until(lambda m: bidding(m) and m["game"]["turn"] == 1)
        second.reply_to({"type": "call", "id": "c", "call": "dudo"})
        waiting = third.until(lambda m: m["type"] == "state" and m["game"]["phase"] == "roll")
        assert waiting["roll_at"] == live.clock.now + 8.0
        with connect(live.client, live.code, None, "watcher") as watcher:
            refused = watcher.reply_to({"type": "next_round", "id": "w"})
            assert refused["code"] == "spectator"
        assert third.reply_to({"type": "next_round", "id": "now"})["type"] == "ack"
        state = third.wait_for(bidding)
        assert state["game"]["round"] == 2
        again = host.reply_to({"type": "next_round", "id": "now too"})
        assert again["type"] == "error" and again["code"] == "not_now"
        assert len(entries(live.store, live.code, "rolled")) == 2


def test_emotes_reach_the_table_and_are_rate_limited() -> None:
    with live_game(2) as live:
        host, guest = live.socks[0], live.socks[1]
        version = host.ping()
        host.send({"type": "emote", "emote": "\N{GAME DIE}"})
        seen = guest.until(lambda m: m["type"] == "emote")
        assert seen == {"type": "emote", "v": 1, "seat": 0, "emote": "\N{GAME DIE}"}
        again = host.reply_to({"type": "emote", "emote": "\N{THUMBS UP SIGN}"})
        assert again["type"] == "error" and again["code"] == "rate_limited"
        live.clock.advance(2.0)
        host.send({"type": "emote", "emote": "\N{THUMBS UP SIGN}"})
        guest.until(lambda m: m["type"] == "emote")
        assert host.ping() == version


# -- seeds ----------------------------------------------------------------------------------


def test_a_players_seed_goes_into_the_roll() -> None:
    with live_game(2, start=False, seed_window=5.0) as live:
        host, guest = live.socks[0], live.socks[1]
        assert host.reply_to({"type": "start", "id": "go"})["type"] == "ack"
        reply = host.reply_to({"type": "seed", "id": "s1", "round": 1, "seed": "ABCDEF0123"})
        assert reply["type"] == "ack", reply
        (seeded,) = entries(live.store, live.code, "seeded")  # logged before the ack
        assert seeded.data == {"seat": 0, "round": 1, "seed": "abcdef0123", "ack": [0, "s1"]}
        version = host.ping()
        live.clock.advance(5.0)
        guest.ping()
        guest.settle(version + 1)
        (rolled,) = entries(live.store, live.code, "rolled")
        (started,) = entries(live.store, live.code, "started")
        assert rolled.data["seat_seeds"][0] == "abcdef0123"
        # The silent seat's seed is the server's, bound to the committed server seed.
        assert rolled.data["server_seats"] == [1]
        assert rolled.data["seat_seeds"][1] == server_seat_seed(started.data["server_seed"], 1, 1)


def test_a_seed_names_its_round_and_late_or_early_seeds_are_refused() -> None:
    """A seed counts only for the round waiting to be rolled: one for a round already
    dealt, or for a round whose commitment is not out yet, is refused and changes
    nothing, so a client always knows where its seed went."""
    with live_game(2, start=False, seed_window=5.0) as live:
        host, guest = live.socks[0], live.socks[1]
        early = host.reply_to({"type": "seed", "id": "e", "round": 1, "seed": "ab"})
        assert early["type"] == "error" and early["code"] == "wrong_round"  # lobby
        assert host.reply_to({"type": "start", "id": "go"})["type"] == "ack"
        ahead = host.reply_to({"type": "seed", "id": "a", "round": 2, "seed": "ab"})
        assert ahead["type"] == "error" and ahead["code"] == "wrong_round"
        assert "round 1 is waiting" in ahead["message"]
        # A round's number of 4,000 digits is quoted cut, as every refusal quotes.
        huge = host.reply_to({"type": "seed", "id": "h", "round": int("9" * 4000), "seed": "ab"})
        assert huge["code"] == "wrong_round" and len(huge["message"]) < 120, huge
        version = host.ping()
        live.clock.advance(5.0)
        guest.ping()
        guest.settle(version + 1)
        late = host.reply_to({"type": "seed", "id": "l", "round": 1, "seed": "ab"})
        assert late["type"] == "error" and late["code"] == "wrong_round"
        assert entries(live.store, live.code, "seeded") == []
        (rolled,) = entries(live.store, live.code, "rolled")
        assert rolled.data["server_seats"] == [0, 1]


def test_one_seed_per_seat_and_round_is_stored_and_a_flood_stores_nothing_more() -> None:
    """docs/protocol.md: the first seed of a seat for a round counts; later ones get
    ``seeded`` and are not stored (a seat sending 8 a second once stored 159 rows in 20 s
    while a round waited). The same id asked again gets the same answer."""
    with live_game(2, start=False, seed_window=5.0) as live:
        host, guest = live.socks[0], live.socks[1]
        assert host.reply_to({"type": "start", "id": "go"})["type"] == "ack"
        assert (
            host.reply_to({"type": "seed", "id": "s0", "round": 1, "seed": "aa"})["type"] == "ack"
        )
        rows = len(live.store.logs[live.code])
        for number in range(1, 40):
            again = host.reply_to(
                {"type": "seed", "id": f"s{number}", "round": 1, "seed": f"{number:04x}"}
            )
            assert again["type"] == "error" and again["code"] == "seeded", again
        repeat = host.reply_to({"type": "seed", "id": "s7", "round": 1, "seed": "bb"})
        assert repeat["code"] == "seeded" and repeat["id"] == "s7"
        assert (
            host.reply_to({"type": "seed", "id": "s0", "round": 1, "seed": "aa"})["type"] == "ack"
        )  # the first one's own answer, once more
        assert len(live.store.logs[live.code]) == rows  # nothing more was written
        version = host.ping()
        live.clock.advance(5.0)
        guest.ping()
        guest.settle(version + 1)
        (rolled,) = entries(live.store, live.code, "rolled")
        assert rolled.data["seat_seeds"][0] == "aa"  # the first seed counted


def test_a_seat_seed_is_hex_digits_only(running: Live) -> None:
    """docs/protocol.md: a seed is 1..128 hex digits, else ``bad_seed``."""
    accepted = []
    with connect(running.client, running.code, running.table.tokens[1]) as sock:
        for seed in ["-1", "+f", " ab", "ab\n", "a_b", "\u0661\u0662", "0x1f"]:
            sock.send({"type": "seed", "round": 1, "seed": seed})
            sock.send({"type": "ping"})
            reply = sock.until(lambda m: m["type"] in ("error", "pong"))
            if reply["type"] == "pong":
                accepted.append(seed)
            else:
                assert reply["code"] == "bad_seed", reply
                sock.until(lambda m: m["type"] == "pong")
    assert accepted == [], f"seeds that are not hex digits were accepted: {accepted}"


# -- a real server process --------------------------------------------------------------------


def test_a_real_server_refuses_big_frames_and_the_room_carries_on(tmp_path: Path) -> None:
    """Over uvicorn: a message over 4,096 bytes gets ``too_large`` on a usable connection;
    a frame over the transport's 16 KiB closes that socket only; the room carries on."""
    with server_process(sqlite_url(tmp_path)) as (base, _process):
        created = httpx.post(f"{base}/api/rooms", json={"name": "Ana", "seats": 2}).json()
        url = f"{base.replace('http', 'ws')}/ws/{created['code']}?token={created['token']}"

        def answer(socket: Any) -> dict[str, Any]:
            while True:
                data: dict[str, Any] = json.loads(socket.recv(timeout=10))
                if data["type"] in ("error", "pong", "ack"):
                    return data

        with ws_connect(url) as socket:
            assert json.loads(socket.recv(timeout=10))["type"] == "state"
            socket.send(json.dumps({"type": "ping", "pad": "x" * 10_000}))
            assert answer(socket)["code"] == "too_large"
            socket.send(json.dumps({"type": "ping"}))
            assert answer(socket)["type"] == "pong"
            socket.send("x" * 100_000)
            with pytest.raises(ConnectionClosed):
                while True:
                    socket.recv(timeout=10)
        with ws_connect(url) as socket:
            state = json.loads(socket.recv(timeout=10))
            assert state["you"]["seat"] == 0
            socket.send(json.dumps({"type": "configure", "id": "c", "timer": 30}))
            assert answer(socket)["type"] == "ack"


def test_a_quick_tables_host_only_gives_open_seats_to_bots_before_its_first_game() -> None:
    """Players were matched to a quick table's rules, timer and seats: until its first
    game is over its host cannot change them (nor remove anyone), only fill open seats
    with bots, as the page's "start now" does."""
    app = make_app(fast_config(quick_fill=60.0), clock=FakeClock())
    with TestClient(app) as client:
        body = {"name": "A", "rules": {"preset": "ones-lock"}}
        first = client.post("/api/quick", json=body).json()
        second = client.post("/api/quick", json={**body, "name": "B"}).json()
        assert first["code"] == second["code"]
        with connect(client, first["code"], first["token"]) as host:
            refusals = [
                ({"rules": {"preset": "perudo", "starting_dice": 1}}, "not_now"),
                ({"timer": 0}, "not_now"),
                ({"public": False}, "not_now"),
                ({"locked": True}, "not_now"),
                ({"seats": [None, None, {"kind": "open"}, None]}, "bad_seats"),
            ]
            for number, (change, code) in enumerate(refusals):
                reply = host.reply_to({"type": "configure", "id": f"q{number}", **change})
                assert reply["type"] == "error" and reply["code"] == code, (change, reply)
            reply = host.reply_to({"type": "remove", "id": "out", "seat": 1})
            assert reply["type"] == "error" and reply["code"] == "not_now", reply
            summary = client.get(f"/api/rooms/{first['code']}").json()
            assert summary["rules"]["ones_bids"] == "lock" and summary["timer"] == 30
            bots = [None, None, {"kind": "bot"}, {"kind": "bot", "level": "hard"}]
            assert (
                host.reply_to({"type": "configure", "id": "fill", "seats": bots})["type"] == "ack"
            )
            assert host.reply_to({"type": "start", "id": "go"})["type"] == "ack"


def test_a_configure_that_changes_nothing_stores_nothing_and_keeps_the_version() -> None:
    with live_game(3, start=False) as live:
        host = live.socks[0]
        change = {"timer": 20, "chat": True, "public": False, "rules": {"preset": "tavern"}}
        assert host.reply_to({"type": "configure", "id": "c1", **change})["type"] == "ack"
        state = host.wait_for(lambda m: m["room"]["timer"] == 20)
        size, version = live.log_size(), state["version"]
        for number in range(3):
            reply = host.reply_to({"type": "configure", "id": f"same{number}", **change})
            assert reply == {"type": "ack", "v": 1, "id": f"same{number}", "version": version}
        assert live.log_size() == size
        # a change among settings that stay is stored, and only it
        reply = host.reply_to({"type": "configure", "id": "c2", **change, "timer": 30})
        assert reply["type"] == "ack" and reply["version"] == version + 1
        assert live.log_size() == size + 1


def test_the_host_is_told_to_leave_rather_than_remove_their_own_seat() -> None:
    with live_game(3, start=False) as live:
        # seat 0 can never be removed (the message's schema); seat 1 runs the room once
        # its host has left
        assert live.socks[0].reply_to({"type": "leave", "id": "bye"})["type"] == "ack"
        successor = live.socks[1]
        successor.wait_for(lambda m: m["you"]["host"] is True)
        reply = successor.reply_to({"type": "remove", "id": "me", "seat": 1})
        assert reply["type"] == "error" and reply["code"] == "bad_seats", reply
        assert "leave" in reply["message"]
        assert successor.reply_to({"type": "remove", "id": "other", "seat": 2})["type"] == "ack"
