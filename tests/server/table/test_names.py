"""Names at a table are clean and visibly distinct (docs/protocol.md, limits)."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from dudo.server.table.names import MAX_NAME, clean_name, distinct_name, skeleton
from serverkit import app_and_lobby


def test_a_long_name_keeps_its_number_so_every_seat_differs() -> None:
    long = "Maximiliana Fernández-Oy"  # 24 characters
    taken: list[str] = []
    for _ in range(4):
        taken.append(distinct_name(long, taken))
    assert len(set(taken)) == 4
    assert taken[1].endswith(" 2") and taken[3].endswith(" 4")
    assert all(len(name) <= MAX_NAME for name in taken)


@pytest.mark.parametrize(
    "first, second",
    [
        ("Ana", "\u0410na"),  # Cyrillic capital A
        ("Pedro", "\u0420edro"),  # Cyrillic capital ER looks like P
        ("Olga", "0lga"),  # digit zero
        ("Al", "AI"),  # small L and capital I
        ("Ana", "\uff21na"),  # fullwidth A (NFKC)
    ],
)
def test_look_alike_names_are_told_apart(first: str, second: str) -> None:
    assert skeleton(first) == skeleton(second)
    assert distinct_name(second, [first]) == f"{second} 2"


def test_different_names_stay_as_they_are() -> None:
    assert distinct_name("Ana", ["Ben", "Ann", "Anna"]) == "Ana"
    assert skeleton("Ana") != skeleton("Ann")


def test_emoji_sequences_survive_and_bidi_controls_do_not() -> None:
    family = "\U0001f469\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"
    assert clean_name(family) == family  # one family, not four people
    assert clean_name("\u202eAna\u202c") == "Ana"  # no right-to-left override
    assert clean_name("\u0633\u0627\u0631\u0627") == "\u0633\u0627\u0631\u0627"  # Arabic
    with pytest.raises(ValueError):
        clean_name("\u200d\u200d")
    assert not clean_name("x" * 23 + "\u200d\U0001f466").endswith("\u200d")


def test_a_table_never_seats_two_names_that_look_alike() -> None:
    app, _ = app_and_lobby()
    with TestClient(app) as client:
        created = client.post("/api/rooms", json={"name": "Ana", "seats": 4}).json()
        names = [created["name"]]
        for name in ("\u0410na", "Ana", "Ana 2"):
            joined = client.post(f"/api/rooms/{created['code']}/join", json={"name": name})
            names.append(joined.json()["name"])
        assert len({skeleton(name) for name in names}) == 4, names
