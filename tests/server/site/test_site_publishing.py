"""A node tells its site only what changed about its rooms since it last told."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from dudo.rules import Rules
from dudo.server.site.base import rules_key
from dudo.server.site.publishing import Told, publication


def room(
    code: str, status: str = "lobby", public: bool = True, quick: bool = False, open_seats: int = 1
) -> Any:
    seats = [SimpleNamespace(kind="open") for _ in range(open_seats)]
    seats.append(SimpleNamespace(kind="human"))
    return SimpleNamespace(
        code=code,
        status=status,
        closed=False,
        public=public,
        quick=quick,
        seats=seats,
        rules=Rules.preset("perudo"),
        summary=lambda: {"code": code, "status": status},
    )


def test_a_public_lobby_is_listed_once_and_unlisted_when_it_starts() -> None:
    told: dict[str, Told] = {}
    rooms = {"ABCD": room("ABCD")}
    left, public, quick = publication(rooms, told)
    assert left == [] and public == {"ABCD": '{"code":"ABCD","status":"lobby"}'} and quick == {}
    assert publication(rooms, told) == ([], {}, {})  # nothing changed: nothing to tell
    rooms["ABCD"] = room("ABCD", status="playing")
    left, public, _ = publication(rooms, told)
    assert left == ["ABCD"] and public == {"ABCD": None}


def test_a_quick_table_is_told_open_then_closed_by_its_rules() -> None:
    told: dict[str, Told] = {}
    key = rules_key(Rules.preset("perudo"))
    rooms = {"QQQQ": room("QQQQ", quick=True)}
    assert publication(rooms, told)[2] == {"QQQQ": (key, True)}
    rooms["QQQQ"] = room("QQQQ", quick=True, open_seats=0)
    assert publication(rooms, told)[2] == {"QQQQ": (key, False)}


def test_a_private_room_is_never_listed_and_a_gone_room_is_forgotten() -> None:
    told: dict[str, Told] = {}
    assert publication({"PRIV": room("PRIV", public=False)}, told) == ([], {}, {})
    assert "PRIV" in told
    publication({}, told)
    assert told == {}


def test_the_rules_key_is_stable_and_tells_rule_sets_apart() -> None:
    assert rules_key(Rules.preset("perudo")) == rules_key(Rules.preset("perudo"))
    assert rules_key(Rules.preset("perudo")) != rules_key(Rules.preset("tavern"))
    assert len(rules_key(Rules.preset("dudo"))) == 16
