"""Fuzzing a live server (issue 4): random JSON, random bytes and text, and valid messages
mutated every which way are thrown at a room in the middle of a game from a seat's socket.

After every message the room must still answer a ping; every message but a valid seed gets
exactly one direct answer (error, ack, pong or the emote itself); the state version moves
only when an action was acknowledged; everything the server sends, to the fuzzing socket
and to a spectator, is a JSON object with a ``type``. At the end a legal action is still
accepted. The HTTP endpoints get the same treatment: a 4xx answer, never a crash.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from dudo.server.protocol import (
    EMOTES,
    MAX_MESSAGE_BYTES,
    ProtocolError,
    parse_client_message,
)
from dudo.server.site.lobby import normalise_code
from dudo.store.base import MemoryStore
from serverkit import CountingEntropy, FakeClock, make_app
from socketkit import Sock, Table, connect, legal_bid, seat_table

KINDS = {"state", "ack", "error", "pong", "emote"}
FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))

# -- strategies -------------------------------------------------------------------------

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-1000, 1000)
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.sampled_from([2**63, -(2**63) - 1, 10**100, 0, -1, 1])
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30)
    | st.sampled_from(
        [
            "",
            "\x00",
            "\u202e",
            "\ud83c\udfb2",
            "🎲" * 50,
            "x" * 300,
            "dudo",
            "calza",
            "bid",
            "ping",
            "__proto__",
        ]
    )
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=12), children, max_size=5)
    ),
    max_leaves=25,
)
# Mostly fresh ids, sometimes one used before (answered with its first reply).
action_ids = st.one_of(
    st.uuids().map(str),
    st.uuids().map(str),
    st.uuids().map(str),
    st.sampled_from(["a", "retry"]),
    st.text(min_size=1, max_size=70),
)


@st.composite
def valid_messages(draw: st.DrawFn, state: dict[str, Any]) -> dict[str, Any]:
    """A message the protocol accepts (the room may still refuse it), shaped by the state."""
    game = state.get("game") or {}
    legal = (game.get("legal") or {}).get("bids") or [[1, 2]]
    kind = draw(
        st.sampled_from(
            [
                "bid",
                "bid",
                "call",
                "ping",
                "seed",
                "emote",
                "next_round",
                "start",
                "rematch",
                "configure",
            ]
        )
    )
    message: dict[str, Any] = {"type": kind}
    if kind not in ("ping", "seed", "emote"):
        message["id"] = draw(action_ids)
    # (every draw has the same shape whatever the state, so that Hypothesis can replay it)
    if kind == "bid":
        index = draw(st.integers(0, 7))
        if draw(st.booleans()):
            quantity, face = legal[index % len(legal)]
        else:
            quantity, face = draw(st.tuples(st.integers(-1000, 1000), st.integers(-1000, 1000)))
        message.update(quantity=quantity, face=face)
    elif kind == "call":
        message["call"] = draw(st.sampled_from(["dudo", "calza"]))
    elif kind == "seed":
        message["seed"] = draw(st.text("0123456789abcdefABCDEF", min_size=1, max_size=128))
        message["round"] = draw(st.integers(0, 3))
    elif kind == "emote":
        message["emote"] = draw(st.sampled_from(EMOTES))
    elif kind == "configure":
        message["timer"] = draw(st.sampled_from([0, 30]))
    if kind in ("bid", "call") and draw(st.booleans()):
        version = draw(st.sampled_from(["now", 0, -1]))
        message["version"] = state.get("version", 0) if version == "now" else version
    if draw(st.booleans()):
        message["v"] = 1
    return message


@st.composite
def mutated(draw: st.DrawFn, message: dict[str, Any]) -> Any:
    """``message`` changed a few times: keys dropped or added, values of the wrong type,
    huge numbers, long or strange strings, junk nested inside, or the whole thing wrapped."""
    value: Any = dict(message)
    for _ in range(draw(st.integers(1, 3))):
        how = draw(
            st.sampled_from(
                ["drop", "add", "retype", "huge", "long", "unicode", "nest", "wrap", "type"]
            )
        )
        if not isinstance(value, dict):
            break
        keys = sorted(value)
        if how == "drop" and keys:
            del value[draw(st.sampled_from(keys))]
        elif how == "add":
            value[draw(st.text(max_size=12) | st.sampled_from(["dice", "cups", "seat", "v"]))] = (
                draw(json_values)
            )
        elif how in ("retype", "huge", "long", "unicode", "nest") and keys:
            key = draw(st.sampled_from(keys))
            value[key] = draw(
                {
                    "retype": json_values,
                    "huge": st.sampled_from(
                        [2**64, -(2**64), 10**300, 1e308, -1e308, float("inf"), float("nan")]
                    ),
                    "long": st.text(min_size=65, max_size=5000),
                    "unicode": st.text(alphabet=st.characters(codec="utf-8"), max_size=40),
                    "nest": st.recursive(
                        st.just(value[key]), lambda inner: st.lists(inner, max_size=2), max_leaves=4
                    ),
                }[how]
            )
        elif how == "wrap":
            value = draw(st.sampled_from([[value], {"message": value}, {"type": value}]))
        elif how == "type":
            value["type"] = draw(st.text(max_size=20) | json_values)
    return value


@st.composite
def frames(draw: st.DrawFn, state: dict[str, Any]) -> str | bytes:
    """One frame: raw junk, any JSON, a valid message, or a mutated one; as text or bytes."""
    source = draw(
        st.sampled_from(
            [
                "bytes",
                "text",
                "json",
                "valid",
                "valid",
                "valid",
                "mutated",
                "mutated",
                "mutated",
                "truncated",
                "oversized",
            ]
        )
    )
    if source == "bytes":
        return draw(st.binary(max_size=300))
    if source == "text":
        return draw(st.text(max_size=300))
    if source == "json":
        value: Any = draw(json_values)
    elif source == "valid":
        value = draw(valid_messages(state))
    else:
        value = draw(mutated(draw(valid_messages(state))))
    text = json.dumps(value, ensure_ascii=draw(st.booleans()))
    if source == "truncated":
        text = text[: draw(st.integers(0, 10_000)) % max(1, len(text))]
    elif source == "oversized":
        text = (
            text[:-1] + ', "pad": "' + "p" * MAX_MESSAGE_BYTES + '"}'
            if text.endswith("}")
            else text + " " * MAX_MESSAGE_BYTES
        )
    if draw(st.integers(0, 4)) == 0:
        return text.encode(draw(st.sampled_from(["utf-8", "utf-16", "utf-32"])), "surrogatepass")
    return text


# -- checks ---------------------------------------------------------------------------------


def well_formed(text: str) -> dict[str, Any]:
    """A payload from the server: a JSON object with a known ``type``."""
    data = json.loads(text)
    assert isinstance(data, dict), text
    assert data.get("type") in KINDS, text
    assert data.get("v") == 1, text
    if data["type"] == "error":
        assert isinstance(data["code"], str) and data["code"], text
        assert isinstance(data["message"], str) and data["message"], text
    return data


def expected_replies(frame: str | bytes) -> tuple[int, bool]:
    """(direct replies, whether one is a pong) the server owes for ``frame``, judged by the
    protocol's own parser: every message is answered once. (Only an accepted seed without
    an id goes unanswered, and this room never waits for seeds: it rolls at once, so every
    seed is refused, as ``bad_seed`` or ``wrong_round``.)"""
    try:
        parsed = parse_client_message(frame)
    except ProtocolError:
        return 1, False
    return 1, parsed.type == "ping"


def quiet(state: dict[str, Any], version: int) -> bool:
    """Nothing will happen at this table until seat 0 acts: its turn, or no game on. (The
    rules have no calza, so no bot acts out of turn.)"""
    if state["version"] < version:
        return False
    game = state["game"]
    return bool(
        state["room"]["status"] != "playing" or (game["phase"] == "bidding" and game["turn"] == 0)
    )


def until_quiet(sock: Sock, version: int) -> dict[str, Any]:
    return sock.wait_for(lambda m: quiet(m, version))


@contextlib.contextmanager
def fuzz_room() -> Iterator[tuple[TestClient, Table, MemoryStore, Sock]]:
    """A game under way: seat 0 is the fuzzer's (a person), seats 1 and 2 are bots that
    answer at once; a spectator watches everything."""
    store = MemoryStore()
    app = make_app(store=store, clock=FakeClock(), entropy=CountingEntropy("fuzz"))
    with TestClient(app) as client:
        table = seat_table(
            client,
            3,
            rules={"preset": "tavern", "first_opener": "host"},
            bots=[None, "easy", "easy"],
        )
        with connect(client, table.code, None, "spectator") as spectator:
            with connect(client, table.code, table.tokens[0], "host") as host:
                ack = host.reply_to({"type": "start", "id": "start"})
                assert ack["type"] == "ack"
                until_quiet(host, ack["version"])
            yield client, table, store, spectator


def throw(
    client: TestClient, table: Table, frames_to_send: list[str | bytes], legal_at: int | None = None
) -> None:
    """Send each frame from a fresh seat-0 socket (its own rate allowance), each followed by
    a ping, and check what comes back. Frame ``legal_at`` is a legal action: unless an
    action was accepted before it, it must be accepted."""
    with connect(client, table.code, table.tokens[0], "fuzzer") as sock:
        version = (sock.state or {})["version"]
        accepted = False
        for index, frame in enumerate(frames_to_send):
            heard = len(sock.texts)
            sock.send(frame)
            sock.send({"type": "ping"})
            owed, pong_owed = expected_replies(frame)
            pongs_to_read = 2 if pong_owed else 1
            while pongs_to_read:
                try:
                    sock.recv()  # (keeps sock.state up to date)
                    data = well_formed(sock.texts[-1])
                except WebSocketDisconnect:
                    raise AssertionError(f"the server closed the socket after {frame!r}") from None
                pongs_to_read -= data["type"] == "pong"
            replies = [well_formed(text) for text in sock.texts[heard:]]
            sync = replies.pop()
            direct = [
                r
                for r in replies
                if r["type"] in ("error", "ack", "pong")
                or (r["type"] == "emote" and r["seat"] == 0)
            ]
            assert len(direct) == owed, (frame, replies)
            for reply in direct:  # (see --hypothesis-show-statistics)
                event(reply["type"] if reply["type"] != "error" else f"error {reply['code']}")
            if index == legal_at and not accepted:
                assert [r["type"] for r in direct] == ["ack"], (frame, replies)
            acks = [r for r in direct if r["type"] == "ack"]
            if acks:
                # Let the bots play their turns, then go on from there.
                accepted = True
                version = until_quiet(sock, acks[0]["version"])["version"]
            else:
                assert sync["version"] == version, (frame, replies)


def keep_playing(client: TestClient, table: Table) -> dict[str, Any]:
    """The room's state for seat 0, after a rematch if the last game is over (so that most
    examples land in a game being played)."""
    with connect(client, table.code, table.tokens[0], "referee") as sock:
        state = sock.state or {}
        if state["room"]["status"] == "over":
            reply = sock.reply_to({"type": "rematch", "id": f"rematch {state['version']}"})
            assert reply["type"] == "ack", reply
            state = sock.wait_for(
                lambda m: m["room"]["game"] > state["room"]["game"] and quiet(m, reply["version"])
            )
        return state


def final_action_is_accepted(client: TestClient, table: Table) -> None:
    with connect(client, table.code, table.tokens[0], "last") as sock:
        state = sock.state or {}
        if state["room"]["status"] == "over":
            message: dict[str, Any] = {"type": "rematch", "id": "final"}
        else:
            assert state["game"]["turn"] == 0, "the bots should have played their turns"
            bid = legal_bid(state)
            message = (
                {"type": "bid", "id": "final", **bid}
                if bid
                else {"type": "call", "id": "final", "call": "dudo"}
            )
        reply = sock.reply_to(message)
        assert reply["type"] == "ack", reply


def check_spectator(spectator: Sock) -> None:
    spectator.ping()
    for text in spectator.texts:
        data = well_formed(text)
        if data["type"] == "state" and data["game"] is not None:
            assert data["game"]["dice"] == []


# -- the tests -------------------------------------------------------------------------------


def test_random_and_mutated_messages_never_break_a_room() -> None:
    with fuzz_room() as (client, table, store, spectator):

        @FUZZ
        @given(st.data())
        def examples(data: st.DataObject) -> None:
            state = keep_playing(client, table)
            batch = data.draw(st.lists(frames(state), min_size=1, max_size=8))
            # Most batches also carry a legal move, as a player among the junk would.
            legal_at = None
            wanted = data.draw(st.integers(0, 3)) > 0
            position = data.draw(st.integers(0, len(batch)))
            if wanted and state["game"]["turn"] == 0:
                legal_at = position
                bid = legal_bid(state)
                move = (
                    {"type": "bid", "id": f"legal {state['version']}", **bid}
                    if bid
                    else {"type": "call", "id": f"legal {state['version']}", "call": "dudo"}
                )
                batch.insert(legal_at, json.dumps(move))
            throw(client, table, batch, legal_at)

        examples()
        final_action_is_accepted(client, table)
        check_spectator(spectator)
        assert store.logs[table.code]


def test_raw_junk_never_breaks_a_room() -> None:
    with fuzz_room() as (client, table, store, spectator):
        size = len(store.logs[table.code])

        @FUZZ
        @given(
            st.lists(
                st.binary(max_size=200) | st.text(max_size=200) | json_values.map(json.dumps),
                min_size=1,
                max_size=8,
            )
        )
        def examples(batch: list[str | bytes]) -> None:
            throw(client, table, batch)

        examples()
        # Junk can be valid by chance (a ping, a seed), but never an action.
        assert len(store.logs[table.code]) == size
        final_action_is_accepted(client, table)
        check_spectator(spectator)


def test_strange_tokens_and_room_codes_get_no_seat_and_a_clear_refusal() -> None:
    with TestClient(make_app()) as client:
        table = seat_table(client, 2)

        @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
        @given(st.text(min_size=1, max_size=80))
        def tokens(token: str) -> None:
            with connect(client, table.code, quote(token, safe="")) as sock:
                first = well_formed(sock.texts[0])
                assert first["type"] == "error" and first["code"] == "bad_token", first
                try:
                    sock.recv()
                    raise AssertionError("the socket stayed open")
                except WebSocketDisconnect:
                    assert sock.close_code == 4401

        tokens()
        with connect(client, table.code, table.tokens[1]) as sock:
            assert (sock.state or {})["you"]["seat"] == 1

        @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
        # (no '/' or '.': those change the path itself, not the code in it)
        @given(
            st.text(
                st.characters(codec="utf-8", exclude_characters="/.\\"), min_size=1, max_size=30
            ).filter(lambda c: normalise_code(c) != table.code)
        )
        def codes(code: str) -> None:
            with connect(client, quote(code, safe="")) as sock:
                first = well_formed(sock.texts[0])
                assert first["code"] in ("no_room", "too_many_guesses"), first

        codes()


def test_random_http_bodies_get_a_clear_refusal_never_a_crash() -> None:
    with TestClient(make_app()) as client:
        table = seat_table(client, 6, humans=1)

        @settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
        @given(
            st.sampled_from(["/api/rooms", f"/api/rooms/{table.code}/join", "/api/quick"]),
            json_values
            | st.fixed_dictionaries(
                {"name": st.text(max_size=30)},
                optional={
                    "seats": json_values,
                    "rules": json_values,
                    "bots": json_values,
                    "timer": json_values,
                },
            ),
        )
        def bodies(path: str, body: Any) -> None:
            response = client.post(
                path, content=json.dumps(body), headers={"content-type": "application/json"}
            )
            data = response.json()
            if response.status_code >= 400:
                assert response.status_code < 500, data
                assert set(data) == {"error", "message"} and data["message"], data
            else:
                assert response.status_code in (200, 201) and "token" in data

        bodies()
