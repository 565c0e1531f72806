"""The names bots take at a table (audit item 23): never one that reads like another
seat's, by its look or its first word (in any case, accents, emoji and punctuation aside),
whenever a bot is named (the room made, a quick table filled, a seat a player left); and in
the host's language ("Onkel Bo" at a German table, "Tío Bo" at a Spanish one), which the
create and quick requests carry as ``lang`` (docs/protocol.md)."""

from __future__ import annotations

import asyncio
import re
import unicodedata
from typing import Any

import pytest
from starlette.testclient import TestClient

from dudo.bots.registry import LEVELS as BOTS
from dudo.rules import Rules
from dudo.server.table.room import Room
from dudo.server.table.schedule import Fill
from dudo.server.table.state import RoomState
from dudo.store import LogEntry
from dudo.store.base import MemoryStore
from serverkit import CountingEntropy, FakeClock, app_and_lobby, fast_config


def first_word(name: str) -> str:
    """What a reader takes a name for in the log: its first word of letters and digits,
    lower case, accents dropped ("¡TOMÁS! 🎲" -> "tomas")."""
    bare = "".join(
        ch for ch in unicodedata.normalize("NFKD", name) if not unicodedata.combining(ch)
    )
    words = re.findall(r"[^\W_]+", bare.casefold())
    return words[0] if words else bare


def assert_told_apart(names: list[str]) -> None:
    """No two seats' names share their first word."""
    firsts = [first_word(name) for name in names if name]
    assert len(set(firsts)) == len(firsts), names


async def made(lang: str | None = None, **settings: Any) -> tuple[Room, MemoryStore]:
    """A room on a memory store, its loop not started: the test drives it."""
    store = MemoryStore()
    room = await Room.create(
        "ROOM",
        store,
        fast_config(quick_fill=8.0),
        rules=Rules.preset("perudo"),
        timer=0,
        public=False,
        clock=FakeClock(),
        entropy=CountingEntropy(),
        **({"lang": lang} if lang is not None else {}),
        **settings,
    )
    assert room is not None
    return room, store


# Players whose names begin with a word a bot's name begins with, written otherwise: other
# case, an accent more or less, emoji or punctuation before or after it.
CLASHING = ["¡HENRIK!", "🎲TOMAS el grande", "Ingrid-Marie", "kofi."]


@pytest.mark.parametrize("player", CLASHING)
def test_in_the_lobby_a_bot_gives_way_to_a_player_whose_first_word_it_has(player: str) -> None:
    """Five normal bots sit in seats 1..5 (Henrik, Ana, Tomás, Ingrid, Kofi); a host whose
    name begins with one of theirs keeps it, the bot takes another name, and a room
    rebuilt from its log has the same names."""

    async def test() -> None:
        room, store = await made(seats=6, bots=[None, *["normal"] * 5])
        before = [seat.name for seat in room.seats[1:]]
        assert first_word(player) in [first_word(name) for name in before], before
        joined = await room.requests.join(player)
        names = [seat.name for seat in room.seats]
        assert joined["name"] == player == names[0]
        assert_told_apart(names)
        again = await Room.load("ROOM", store, fast_config(), clock=FakeClock())
        assert [seat.name for seat in again.seats] == names

    asyncio.run(test())


def test_five_bots_of_a_level_with_too_few_names_left_borrow_another_levels() -> None:
    """A Spanish table of five hard bots: El Capitán and El Profesor begin alike, and a
    host "MEI 🐉" takes Mei's, so the level has four names for five bots: the last
    borrows another level's (never "Mei 5" or a second "El")."""

    async def test() -> None:
        room, _ = await made("es", seats=6, bots=[None, *["hard"] * 5])
        await room.requests.join("MEI 🐉")
        names = [seat.name for seat in room.seats]
        assert_told_apart(names)
        assert not any(re.search(r" \d+$", name) for name in names), names
        assert "El Profesor" in names or "El Capitán" in names, names

    asyncio.run(test())


def test_a_quick_table_filled_with_bots_names_them_apart_and_in_its_language() -> None:
    """A Spanish quick table: its host is "¡henrik! 🎲", the seat whose persona is Henrik
    is filled with another name, and the easy bot there is Tío Bo."""

    async def test() -> None:
        room, _ = await made("es", seats=6, bots=[], quick=True)
        await room.requests.join("¡henrik! 🎲")
        assert room.state.fill_at is not None
        room.clock.advance(8.0)  # type: ignore[attr-defined]
        due = room.schedule.due()
        assert isinstance(due, Fill)
        await room.dealer.fill_with_bots(due)
        names = [seat.name for seat in room.seats]
        assert [seat.kind for seat in room.seats] == ["human"] + ["bot"] * 5
        assert_told_apart(names)
        assert "Tío Bo" in names and "Uncle Bo" not in names, names
        assert room.state.status == "playing" and room.state.game_names == names

    asyncio.run(test())


def test_a_bot_taking_a_seat_a_player_left_is_told_apart_from_the_others() -> None:
    """Between games a bot (normal) takes the seat of a player who left: in seat 3 that is
    Tomás unless a player's name begins so; then Ingrid, unless..."""
    state = RoomState("ROOM", fast_config(), lambda *_: ())
    state.apply(
        LogEntry(
            0,
            0.0,
            "created",
            {
                "rules": Rules.preset("perudo").to_json(),
                "seats": [{"kind": "open"}] * 4,
                "timer": 0,
                "public": False,
            },
        )
    )
    for seat, name in enumerate(["TOMAS 🎲", "ingrid-marie", "¿Kofi?", "Leaver"]):
        state.apply(
            LogEntry(
                state.seq, 1.0, "joined", {"seat": seat, "name": name, "token_hash": f"h{seat}"}
            )
        )
    state.status = "over"  # the game of these four has ended (as a log that played it)
    state.apply(LogEntry(state.seq, 2.0, "left", {"seat": 3}))
    names = [seat.name for seat in state.seats]
    assert state.seats[3].kind == "bot" and names[3] != "Leaver"
    assert_told_apart(names)


# Seats 1..4 are easy (Lucy, Pablo, Nina, Uncle Bo), seat 5 hard (The Professor).
LEVELS = [None, "easy", "easy", "easy", "easy", "hard"]
NAMES = {
    "en": ["Lucy", "Pablo", "Nina", "Uncle Bo", "The Professor"],
    "de": ["Lucy", "Pablo", "Nina", "Onkel Bo", "Der Professor"],
    "es": ["Lucy", "Pablo", "Nina", "Tío Bo", "El Profesor"],
}


@pytest.mark.parametrize("lang", ["en", "de", "es"])
def test_a_rooms_bots_are_named_in_its_hosts_language(lang: str) -> None:
    """The create request's ``lang`` names the bots (English without one, as the Python
    client sends), no longer than the English names are."""
    app, _ = app_and_lobby()
    with TestClient(app) as client:
        bodies = [{"lang": lang}] + ([{}] if lang == "en" else [])
        for extra in bodies:
            made = client.post(
                "/api/rooms", json={"name": "Host", "seats": 6, "bots": LEVELS, **extra}
            )
            assert made.status_code == 201, made.text
            seats = client.get(f"/api/rooms/{made.json()['code']}").json()["seats"]
            assert [seat["name"] for seat in seats[1:]] == NAMES[lang], extra
            assert all(len(seat["name"]) <= 13 for seat in seats)  # as short as the English


def test_a_german_host_whose_name_begins_like_a_german_bot_keeps_it() -> None:
    """ "Onkel Fritz" hosts a German room with Onkel Bo at the table, and a guest "DER
    Dicke" joins beside Der Professor: each keeps their name and each bot takes another,
    German too."""
    german = {persona.name_in("de") for level in LEVELS[2:] for persona in BOTS[level].personas}
    app, _ = app_and_lobby()
    with TestClient(app) as client:
        made = client.post(
            "/api/rooms",
            json={
                "name": "Onkel Fritz",
                "seats": 6,
                "bots": [None, None, *LEVELS[2:]],
                "lang": "de",
            },
        ).json()
        code = made["code"]
        before = [seat["name"] for seat in client.get(f"/api/rooms/{code}").json()["seats"]]
        joined = client.post(f"/api/rooms/{code}/join", json={"name": "DER Dicke"}).json()
        names = [seat["name"] for seat in client.get(f"/api/rooms/{code}").json()["seats"]]
        assert (made["name"], joined["name"]) == ("Onkel Fritz", "DER Dicke") == tuple(names[:2])
        assert "Onkel Bo" not in before and "Der Professor" in before, before
        assert "Der Professor" not in names and set(names[2:]) <= german, names
        assert_told_apart(names)


@pytest.mark.parametrize(
    "lang, said",
    [("fr", "en|de|es"), ("DE", "en|de|es"), ("", "en|de|es"), (1, "string"), (None, "string")],
)
def test_a_language_the_page_does_not_have_is_refused_by_name(lang: object, said: str) -> None:
    """As the other fields: a bad ``lang`` is a 400 ``bad_request`` naming it and the
    languages there are, and no room is made; a quick game's is checked the same."""
    app, _ = app_and_lobby()
    with TestClient(app) as client:
        for path in ("/api/rooms", "/api/quick"):
            answer = client.post(path, json={"name": "Ana", "lang": lang})
            assert answer.status_code == 400, answer.text
            refusal = answer.json()
            assert refusal["error"] == "bad_request", refusal
            assert refusal["message"].startswith("lang:") and said in refusal["message"]
        assert client.get("/api/rooms").json()["rooms"] == []


def test_a_quick_game_opens_its_table_in_the_players_language() -> None:
    """A quick game that opens a table names its bots in the player's language (the
    room's log says so); without one the table is English."""
    app, holder = app_and_lobby()
    with TestClient(app) as client:
        german = client.post("/api/quick", json={"name": "Ana", "lang": "de"}).json()
        assert holder.lobby.rooms[german["code"]].state.lang == "de"
        plain = client.post("/api/quick", json={"name": "Cy", "rules": {"preset": "tavern"}}).json()
        assert plain["code"] != german["code"]
        assert holder.lobby.rooms[plain["code"]].state.lang == "en"
