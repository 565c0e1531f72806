"""Common Hand (``bids: poker``) in a room over WebSocket (issue 25): the state carries
hand objects where quantity games carry ``[q, f]``, a bid message takes a hand as
``bid``, a game plays to the end with a record that verifies, and a bad hand gets a clear
``bad_bid`` (or ``bad_message``) and changes nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from test_server_rolloff import play_out

from dudo.fairness import verify_record
from dudo.refusals import KEYS
from dudo.store.base import MemoryStore
from serverkit import CountingEntropy, FakeClock, make_app
from serverkit import fast_config as fast
from socketkit import Sock, bidding, connect, seat_table

COMMON_HAND = {"preset": "common-hand", "first_opener": "host", "starting_dice": 3}


def test_a_common_hand_game_plays_to_the_end_over_websocket() -> None:
    app = make_app(fast(), store=MemoryStore(), clock=FakeClock(), entropy=CountingEntropy("hands"))
    with TestClient(app) as client:
        table = seat_table(client, 2, rules=COMMON_HAND, bots=[None, "normal"])
        with connect(client, table.code, table.tokens[0], "host") as host:
            host.reply_to({"type": "start", "id": "go"})
            state = host.wait_for(lambda m: bidding(m) and m["game"]["turn"] == 0)
            legal = state["game"]["legal"]["bids"]
            assert legal and all(isinstance(bid, dict) and "hand" in bid for bid in legal)
            assert {"hand": "pair", "faces": [1]} in legal and {"hand": "low_straight"} in legal
            reply = host.reply_to(
                {"type": "bid", "id": "open", "bid": {"hand": "pair", "faces": [2]}}
            )
            assert reply["type"] == "ack", reply
            after = host.wait_for(
                lambda m: m["game"]["bids"][:1] == [[0, {"hand": "pair", "faces": [2]}]]
            )
            assert after["events"] or after["game"]["bids"]
            over = play_out(host, 0)
            texts = list(host.texts)
            events = [event for text in texts for event in _events(text)]
        record = client.get(f"/api/games/{over['fair']['game_id']}").json()
    reveals = [event for event in events if event["event"] == "reveal"]
    assert reveals and all(
        isinstance(event["bid"], dict) and "count" not in event for event in reveals
    )
    assert all(event["outcome"] in ("holds", "fails") for event in reveals)
    assert {"seat": 0, "bid": {"hand": "pair", "faces": [2]}} in record["rounds"][0]["actions"]
    verify_record(record)
    # Privacy: cups only ever travel in a reveal, and a state's own dice are seat 0's.
    for text in texts:
        data = json.loads(text)
        if data.get("type") != "state" or not data.get("game"):
            continue
        for index, event in enumerate(data["events"]):
            assert "cups" not in event or event["event"] == "reveal", (index, event)
        game = data["game"]
        if game["dice"]:
            assert game["dice"] == record["rounds"][game["round"] - 1]["dice"][0]
        reveal = game["last_reveal"]
        assert set(game) >= {"dice"} and (reveal is None or "cups" in reveal)
        assert "cups" not in json.dumps({k: v for k, v in game.items() if k != "last_reveal"})


def test_a_common_hand_quick_game_seats_players_together_and_takes_a_hand_bid() -> None:
    """The home page's quick game with the Common Hand preset, end to end: two players
    asking for it share a table (a Perudo player gets another), the table fills with bots
    and starts, and a hand bid by the human whose turn it is reaches both of them."""
    clock = FakeClock()
    app = make_app(
        fast(quick_fill=8.0), store=MemoryStore(), clock=clock, entropy=CountingEntropy("quick")
    )
    wanted = {"preset": "common-hand"}  # what the home page sends for this preset
    with TestClient(app) as client:
        answers = [
            client.post("/api/quick", json={"name": name, "rules": wanted})
            for name in ("Ann", "Bo")
        ]
        assert [answer.status_code for answer in answers] == [200, 200], answers[0].text
        first, second = (answer.json() for answer in answers)
        assert first["code"] == second["code"] and (first["seat"], second["seat"]) == (0, 1)
        perudo = client.post("/api/quick", json={"name": "Cy"}).json()
        assert perudo["code"] != first["code"]  # quick tables are matched by their rules
        room = client.get(f"/api/rooms/{first['code']}").json()
        assert room["rules"]["bids"] == "poker" and room["rules"]["wild_ones"] is False
        with (
            connect(client, first["code"], first["token"], "Ann") as ann,
            connect(client, second["code"], second["token"], "Bo") as bo,
        ):
            socks = {0: ann, 1: bo}
            clock.advance(8.0)  # nobody else came: bots take the last two seats
            ann.ping()
            state = ann.wait_for(lambda m: bidding(m) and m["game"]["turn"] in socks)
            assert state["room"]["status"] == "playing"
            assert [seat["kind"] for seat in state["room"]["seats"]] == [
                "human",
                "human",
                "bot",
                "bot",
            ]
            seat = state["game"]["turn"]
            legal = state["game"]["legal"]["bids"]
            assert legal and all(isinstance(bid, dict) and "hand" in bid for bid in legal)
            hand = legal[-1]  # the highest hand: no bot can raise it, only call
            mover = socks[seat]
            mover.state = None
            reply = mover.reply_to({"type": "bid", "id": "hand", "bid": hand})
            assert reply["type"] == "ack", reply

            # Both players see it: standing, or (a bot called it at once) in the reveal.
            def shows_it(message: dict[str, Any]) -> bool:
                game = message["game"]
                if game is None:
                    return False
                if [seat, hand] in game["bids"]:
                    return bool(game["standing"] == hand and game["bidder"] == seat)
                reveal = game["last_reveal"]
                return reveal is not None and reveal["bid"] == hand and reveal["bidder"] == seat

            for sock in socks.values():
                sock.wait_for(shows_it)
                told = [event for text in sock.texts for event in _events(text)]
                assert {"event": "bid", "seat": seat, **hand} in told, sock.label


def _events(text: str) -> list[dict[str, Any]]:
    data = json.loads(text)
    return list(data.get("events", [])) if data.get("type") == "state" else []


@pytest.fixture(scope="module")
def hands_table() -> Iterator[tuple[Sock, Sock]]:
    """A Common Hand game where the host is to open, and a perudo game likewise."""
    app = make_app(
        fast(), store=MemoryStore(), clock=FakeClock(), entropy=CountingEntropy("bad-hands")
    )
    with TestClient(app) as client:
        poker = seat_table(client, 2, rules=COMMON_HAND, bots=[None, "easy"])
        perudo = seat_table(
            client, 2, rules={"preset": "perudo", "first_opener": "host"}, bots=[None, "easy"]
        )
        with (
            connect(client, poker.code, poker.tokens[0], "poker") as hands,
            connect(client, perudo.code, perudo.tokens[0], "perudo") as quantities,
        ):
            for sock in (hands, quantities):
                sock.reply_to({"type": "start", "id": "go"})
                sock.wait_for(lambda m: bidding(m) and m["game"]["turn"] == 0)
            yield hands, quantities


BAD_HANDS = [
    # (what is sent as the bid, error code, words the message must contain)
    ({"bid": {"hand": "royal_flush"}}, "bad_bid", "no hand 'royal_flush'"),
    ({"bid": {"hand": "pair", "faces": [9]}}, "bad_bid", "9 is not a face 1..6"),
    ({"bid": {"hand": "pair", "faces": [0]}}, "bad_bid", "not a face"),
    ({"bid": {"hand": "full_house", "faces": [4]}}, "bad_bid", "names 2 faces, not 1"),
    ({"bid": {"hand": "full_house", "faces": [4, 4]}}, "bad_bid", "full_house"),
    ({"bid": {"hand": "two_pair", "faces": [2, 5]}}, "bad_bid", "higher pair first"),
    ({"bid": {"hand": "low_straight", "faces": [3]}}, "bad_bid", "names 0 faces"),
    ({"bid": {"faces": [3]}}, "bad_message", "hand"),
    ({"bid": {"hand": "pair", "faces": ["3"]}}, "bad_message", "faces"),
    ({"bid": {"hand": "pair", "faces": [3], "count": 2}}, "bad_message", "count"),
    ({"bid": {"hand": "pair", "faces": [3]}, "quantity": 2, "face": 3}, "bad_message", "not both"),
    ({"bid": "pair of 3s"}, "bad_message", "bid"),
    ({"quantity": 2, "face": 3}, "bad_bid", "bids poker hands"),  # [q, f] in a poker game
]


@pytest.mark.parametrize("sent, code, words", BAD_HANDS)
def test_a_bad_hand_is_refused_clearly_and_changes_nothing(
    hands_table: tuple[Sock, Sock], sent: dict[str, Any], code: str, words: str
) -> None:
    hands, _ = hands_table
    version = hands.ping()
    reply = hands.reply_to({"type": "bid", "id": f"bad{len(hands.texts)}", **sent})
    assert reply["type"] == "error" and reply["code"] == code, reply
    assert words in reply["message"], reply["message"]
    assert hands.ping() == version
    assert hands.state is not None and hands.state["game"]["bids"] == []


def test_a_hand_that_does_not_exist_is_refused_without_a_write() -> None:
    """It can never be accepted, so a flood of them stores nothing; a bid of the other form
    (which a change of rules could make right) is stored, answered the same after a
    restart. Each is answered exactly once all the same."""
    store = MemoryStore()
    app = make_app(fast(), store=store, clock=FakeClock(), entropy=CountingEntropy("floods"))
    with TestClient(app) as client:
        table = seat_table(client, 2, rules=COMMON_HAND, bots=[None, "easy"])
        with connect(client, table.code, table.tokens[0], "host") as host:
            host.reply_to({"type": "start", "id": "go"})
            host.wait_for(lambda m: bidding(m) and m["game"]["turn"] == 0)

            def refused() -> int:
                return sum(1 for entry in store.logs[table.code] if entry.kind == "refused")

            before = refused()
            for number in range(20):
                reply = host.reply_to(
                    {"type": "bid", "id": f"no{number}", "bid": {"hand": "pair", "faces": [9]}}
                )
                assert reply["code"] == "bad_bid", reply
            again = host.reply_to(
                {"type": "bid", "id": "no3", "bid": {"hand": "pair", "faces": [2]}}
            )
            assert again["code"] == "bad_bid" and again.get("id") == "no3"  # exactly once
            assert refused() == before
            reply = host.reply_to({"type": "bid", "id": "form", "quantity": 2, "face": 3})
            assert reply["code"] == "bad_bid", reply
            assert refused() == before + 1


def test_a_hand_in_a_quantity_game_is_a_bad_bid(hands_table: tuple[Sock, Sock]) -> None:
    _, quantities = hands_table
    version = quantities.ping()
    reply = quantities.reply_to(
        {"type": "bid", "id": "hand", "bid": {"hand": "pair", "faces": [3]}}
    )
    assert reply["type"] == "error" and reply["code"] == "bad_bid", reply
    assert "quantity and a face" in reply["message"]
    assert quantities.ping() == version


# The room refuses a bid of the wrong form, or a hand that does not exist, before the
# engine sees it: it once sent no detail, so a translated page fell back to English.
BAD_BID_DETAILS = [
    # (the table, what is sent, the detail's key and English text, the message)
    (
        "poker",
        {"quantity": 1, "face": 3},
        "bad_bid.not_a_hand",
        "This table bids poker hands, like a pair of 3s.",
        "this table bids poker hands (Common Hand): send the hand as "
        '"bid", like {"hand": "pair", "faces": [3]}',
    ),
    (
        "poker",
        {"bid": {"hand": "pair", "faces": [9]}},
        "bad_bid.hand",
        "That is not a hand: 9 is not a face 1..6.",
        'not a hand: {"hand": "pair", "faces": [9]}: 9 is not a face 1..6',  # JSON, not a dict
    ),
    (
        "poker",
        {"bid": {"hand": "royal_flush"}},
        "bad_bid.hand",
        "That is not a hand: there is no hand 'royal_flush' (hands: pair, two_pair, three, "
        "low_straight, high_straight, full_house, four, five).",
        'not a hand: {"hand": "royal_flush"}: there is no hand \'royal_flush\' '
        "(hands: pair, two_pair, three, low_straight, high_straight, full_house, four, five)",
    ),
    (
        "quantity",
        {"bid": {"hand": "pair", "faces": [3]}},
        "bad_bid.not_a_quantity",
        "This table bids a quantity and a face, like four 5s.",
        "this table bids a quantity and a face, not a hand",
    ),
]
LOCALES = sorted((Path(__file__).parents[3] / "src" / "dudo" / "web" / "locales").glob("*.json"))


@pytest.mark.parametrize("table, sent, key, text, message", BAD_BID_DETAILS)
def test_a_bid_of_the_wrong_form_says_which_cause_in_a_detail(
    hands_table: tuple[Sock, Sock],
    table: str,
    sent: dict[str, Any],
    key: str,
    text: str,
    message: str,
) -> None:
    sock = hands_table[0 if table == "poker" else 1]
    version = sock.ping()
    reply = sock.reply_to({"type": "bid", "id": f"form{len(sock.texts)}", **sent})
    assert reply["type"] == "error" and reply["code"] == "bad_bid", reply
    assert reply["message"] == message
    assert reply["detail"] == {"key": key, "params": {}, "text": text}, reply
    assert key in KEYS
    assert len(LOCALES) >= 3
    for path in LOCALES:  # the page says it in its language (refusal.js)
        assert f"why.{key}" in json.loads(path.read_text()), path.name
    assert sock.ping() == version
