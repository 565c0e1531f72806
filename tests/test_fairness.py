"""Provably fair dice: derivation is deterministic, uniform, and bound to every seed."""

from __future__ import annotations

import collections
import copy
from typing import Any

import pytest

from dudo.fairness import (
    FairnessError,
    check_seat_seed,
    commitment,
    derive_dice,
    server_seat_seed,
    verify_record,
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


# -- the server's own seats are bound to its commitment --------------------------------------


def honest_record(server_seeds: list[str], players: int = 3) -> dict[str, Any]:
    """A finished-looking record in the server's format: seat 0 a player with seeds of its
    own, the other seats bots whose seeds the server derived from each round's seed."""
    rounds, fairness = [], []
    for number, server in enumerate(server_seeds, start=1):
        seeds = [f"{number:02x}aa"] + [server_seat_seed(server, number, seat)
                                       for seat in range(1, players)]
        cups = derive_dice(server, seeds, number, [5] * players)
        rounds.append({"dice": [list(cup) for cup in cups], "actions": []})
        fairness.append({"round": number, "commitment": commitment(server),
                         "server_seed": server, "seat_seeds": seeds,
                         "server_seats": list(range(1, players))})
    return {"players": players, "bots": list(range(1, players)), "rounds": rounds,
            "fairness": fairness}


def grind(server: str, number: int, player_seed: str) -> tuple[list[str], list[list[int]]]:
    """What a dishonest server could do once the player's seed is in: try bot seeds until
    the bots' cups hold as many ones as possible."""
    best: tuple[int, list[str], list[list[int]]] = (-1, [], [])
    for attempt in range(400):
        seeds = [player_seed, f"{attempt:032x}", f"{attempt + 1000:032x}"]
        cups = [list(cup) for cup in derive_dice(server, seeds, number, [5, 5, 5])]
        ones = cups[1].count(1) + cups[2].count(1)
        if ones > best[0]:
            best = (ones, seeds, cups)
    return best[1], best[2]


def test_a_server_grinding_its_own_seats_seeds_is_caught() -> None:
    servers = ["11" * 32, "22" * 32]
    record = honest_record(servers)
    assert verify_record_fairness(record)  # the honest record passes
    # The cheat: bot seeds chosen after seeing the player's, dice recomputed to match, so
    # every die still follows from the published seeds and the commitment still holds.
    forged = copy.deepcopy(record)
    for index, server in enumerate(servers):
        number = index + 1
        seeds, cups = grind(server, number, record["fairness"][index]["seat_seeds"][0])
        assert sum(cup.count(1) for cup in cups[1:]) >= 4  # the grinding did pay off
        forged["fairness"][index]["seat_seeds"] = seeds
        forged["rounds"][index]["dice"] = cups
    with pytest.raises(FairnessError, match="does not follow from the committed server seed"):
        verify_record_fairness(forged)
    # Claiming the bots' seeds came from players does not help: a bot's seat is the
    # server's to seed.
    for fair in forged["fairness"]:
        fair["server_seats"] = []
    with pytest.raises(FairnessError, match="is a bot"):
        verify_record_fairness(forged)
    # Nor does leaving out which seats the server seeded.
    for fair in forged["fairness"]:
        del fair["server_seats"]
    with pytest.raises(FairnessError, match="server_seats"):
        verify_record_fairness(forged)


def verify_record_fairness(record: dict[str, Any]) -> list[str]:
    """verify_record's fairness checks: these records have dice but no actions, so the
    replay that follows them fails, and says so in its own words."""
    try:
        return verify_record(record)
    except FairnessError as error:
        if "the actions do not replay" in str(error):
            return ["every round's fairness checked"]
        raise


def test_a_seat_seed_of_the_server_is_fixed_by_the_server_seed() -> None:
    seed = server_seat_seed(SERVER, 1, 2)
    assert len(seed) == 32 and int(seed, 16) >= 0
    assert seed == server_seat_seed(SERVER, 1, 2)
    assert len({seed, server_seat_seed(SERVER, 2, 2), server_seat_seed(SERVER, 1, 1),
                server_seat_seed("22" * 32, 1, 2)}) == 4
