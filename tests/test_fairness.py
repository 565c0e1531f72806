"""Provably fair dice: derivation is deterministic, uniform, and bound to every seed."""

from __future__ import annotations

import collections

import pytest

from dudo.fairness import (
    FairnessError,
    check_seat_seed,
    commitment,
    derive_dice,
    verify_round,
)

SERVER = "11" * 32
SEATS = ["aa", "bb", "cc"]


def test_derivation_is_deterministic_and_has_the_right_shape() -> None:
    cups = derive_dice(SERVER, SEATS, 1, [5, 3, 0])
    assert cups == derive_dice(SERVER, SEATS, 1, [5, 3, 0])
    assert [len(cup) for cup in cups] == [5, 3, 0]
    assert all(1 <= die <= 6 for cup in cups for die in cup)


@pytest.mark.parametrize("change", ["server", "seat", "round"])
def test_every_input_changes_the_dice(change: str) -> None:
    base = derive_dice(SERVER, SEATS, 1, [10, 10, 10])
    server, seats, number = SERVER, list(SEATS), 1
    if change == "server":
        server = "12" + SERVER[2:]
    elif change == "seat":
        seats[2] = "cd"
    else:
        number = 2
    assert derive_dice(server, seats, number, [10, 10, 10]) != base


def test_faces_are_uniform() -> None:
    faces: collections.Counter[int] = collections.Counter()
    for number in range(600):
        for cup in derive_dice(SERVER, SEATS, number, [10, 10, 10]):
            faces.update(cup)
    total = sum(faces.values())
    assert set(faces) == {1, 2, 3, 4, 5, 6}
    for count in faces.values():  # 18,000 dice: a standard error of 0.0028 per face
        assert abs(count / total - 1 / 6) < 0.012


def test_verify_accepts_the_truth_and_rejects_a_changed_die_or_seed() -> None:
    promised = commitment(SERVER)
    cups = derive_dice(SERVER, SEATS, 3, [2, 2, 2])
    verify_round(SERVER, promised, SEATS, 3, cups)
    forged = [list(cup) for cup in cups]
    forged[0][0] = forged[0][0] % 6 + 1
    with pytest.raises(FairnessError, match="not the ones the seeds give"):
        verify_round(SERVER, promised, SEATS, 3, forged)
    with pytest.raises(FairnessError, match="does not match the commitment"):
        verify_round("22" * 32, promised, SEATS, 3, cups)


@pytest.mark.parametrize("bad", ["", "xyz", "a" * 129, "12 34"])
def test_seat_seeds_are_checked(bad: str) -> None:
    with pytest.raises(FairnessError):
        check_seat_seed(bad)
    assert check_seat_seed("ABCdef") == "abcdef"
