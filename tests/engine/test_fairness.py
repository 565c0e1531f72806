"""Provably fair dice: derivation is deterministic, uniform, and bound to every seed."""

from __future__ import annotations

import asyncio
import collections
import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dudo.bots import make_bot
from dudo.client import Client, ClientError
from dudo.fairness import (
    FairnessError,
    check_seat_seed,
    commitment,
    derive_dice,
    legacy_commitment,
    server_seat_seed,
    verify_record,
    verify_round,
)
from serverkit import server_process, sqlite_url

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
    promised = commitment(SERVER, 3, [])
    cups = derive_dice(SERVER, SEATS, 3, [2, 2, 2])
    verify_round(SERVER, promised, SEATS, 3, cups)
    forged = [list(cup) for cup in cups]
    forged[0][0] = forged[0][0] % 6 + 1
    with pytest.raises(FairnessError, match="not the ones the seeds give"):
        verify_round(SERVER, promised, SEATS, 3, forged)
    with pytest.raises(FairnessError, match="do not match the commitment"):
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
        seeds = [f"{number:02x}aa"] + [
            server_seat_seed(server, number, seat) for seat in range(1, players)
        ]
        cups = derive_dice(server, seeds, number, [5] * players)
        rounds.append({"dice": [list(cup) for cup in cups], "actions": []})
        bots = list(range(1, players))
        fairness.append(
            {
                "round": number,
                "version": 2,
                "commitment": commitment(server, number, bots),
                "server_seed": server,
                "seat_seeds": seeds,
                "server_seats": bots,
                "bot_seats": bots,
            }
        )
    return {
        "rules": {"preset": "perudo"},
        "players": players,
        "bots": list(range(1, players)),
        "rounds": rounds,
        "fairness": fairness,
    }


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
    # Nor does leaving the bots out of the record: which seats are bots is in the
    # commitment every player saw before the roll.
    hidden = copy.deepcopy(forged)
    hidden["bots"] = []
    for fair in hidden["fairness"]:
        fair["bot_seats"] = []
    with pytest.raises(FairnessError, match="bot seats do not match the commitment"):
        verify_record_fairness(hidden)
    # And calling it an old record does not either: its commitment is not the seed's hash.
    for fair in hidden["fairness"]:
        del fair["version"], fair["bot_seats"]
    with pytest.raises(FairnessError, match="server seed does not match the commitment"):
        verify_record_fairness(hidden)
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
    assert (
        len(
            {
                seed,
                server_seat_seed(SERVER, 2, 2),
                server_seat_seed(SERVER, 1, 1),
                server_seat_seed("22" * 32, 1, 2),
            }
        )
        == 4
    )


def test_a_record_that_hides_a_bot_fails() -> None:
    """The audit's rigged record: the bot left out (``bots: []``, ``server_seats: []``),
    its seed then free to be ground. The commitment as published binds the bot seats."""
    record = honest_record(["33" * 32], players=2)
    assert verify_record_fairness(record)
    rigged = copy.deepcopy(record)
    rigged["bots"] = []
    fair = rigged["fairness"][0]
    fair["server_seats"] = []
    with pytest.raises(FairnessError, match="seat 1 is a bot, yet its seed"):
        verify_record_fairness(rigged)
    fair["bot_seats"] = []
    with pytest.raises(FairnessError, match="bot seats do not match the commitment"):
        verify_record_fairness(rigged)
    # Binding the round too: a commitment cannot be carried over to another round.
    moved = copy.deepcopy(record)
    moved["fairness"][0]["commitment"] = commitment("33" * 32, 2, [1])
    with pytest.raises(FairnessError, match="do not match the commitment"):
        verify_record_fairness(moved)


def test_records_from_before_bot_seats_were_bound_still_verify() -> None:
    """Fairness entries with no version committed to SHA-256 of the seed alone."""
    record = honest_record(["44" * 32, "55" * 32])
    for fair in record["fairness"]:
        del fair["version"], fair["bot_seats"]
        fair["commitment"] = legacy_commitment(fair["server_seed"])
    assert verify_record_fairness(record)
    record["fairness"][1]["server_seats"] = [1]  # bot 2 left out: still caught
    with pytest.raises(FairnessError, match="seat 2 is a bot"):
        verify_record_fairness(record)


def test_a_bad_fairness_version_or_bot_list_is_refused() -> None:
    record = honest_record(["66" * 32])
    record["fairness"][0]["version"] = 7
    with pytest.raises(FairnessError, match="unknown fairness version 7"):
        verify_record_fairness(record)
    record["fairness"][0]["version"] = 2
    record["fairness"][0]["bot_seats"] = "1,2"
    with pytest.raises(FairnessError, match="'bot_seats' must list"):
        verify_record_fairness(record)


def test_a_real_game_record_verifies_and_hiding_its_bot_fails_dudo_verify(tmp_path: Path) -> None:
    """End to end: a game a real server played with a bot verifies with ``dudo verify``;
    the same record with the bot left out (``bots: []``, ``server_seats: []`` and the
    commitment's ``bot_seats`` emptied) does not."""

    async def play(base: str) -> dict[str, Any]:
        async with Client(base) as client:
            seat = await client.create_room(
                "Ana", rules={"preset": "perudo", "starting_dice": 2}, seats=2, bots=[None, "easy"]
            )
            async with client.table(seat) as table:
                await table.start()
                await table.play(make_bot("normal", seed=5))
                game_id = table.state["fair"]["game_id"]
            for _ in range(50):  # stored a moment after the game-over state goes out
                try:
                    found: dict[str, Any] = await client.game_record(game_id)
                    return found
                except ClientError:
                    await asyncio.sleep(0.1)
        raise AssertionError("the record was never stored")

    with server_process(sqlite_url(tmp_path)) as (base, _):
        record = asyncio.run(play(base))
    assert record["bots"] == [1]
    assert all(fair["version"] == 2 and fair["bot_seats"] == [1] for fair in record["fairness"])

    def dudo_verify(checked: dict[str, Any]) -> subprocess.CompletedProcess[str]:
        path = tmp_path / "record.json"
        path.write_text(json.dumps(checked), encoding="utf-8")
        return subprocess.run(
            [sys.executable, "-m", "dudo", "verify", str(path)],
            capture_output=True,
            text=True,
            timeout=60,
        )

    honest = dudo_verify(record)
    assert honest.returncode == 0, honest.stdout + honest.stderr
    assert "binds bot seats [1]" in honest.stdout
    # The server's record states every call's outcome, every seat's dice after it included.
    assert len(record["reveals"]) == len(record["rounds"])
    for reveal, following in zip(record["reveals"], record["rounds"][1:], strict=False):
        assert reveal["dice_counts"] == [len(cup) for cup in following["dice"]]
    lying = copy.deepcopy(record)
    lying["reveals"][0]["change"] += 1
    told = dudo_verify(lying)
    assert told.returncode == 1
    assert "round 1: the outcome the record states is not the replay's" in told.stderr
    rigged = copy.deepcopy(record)
    rigged["bots"] = []
    for fair in rigged["fairness"]:
        fair["server_seats"] = [seat for seat in fair["server_seats"] if seat != 1]
        fair["bot_seats"] = []
    caught = dudo_verify(rigged)
    assert caught.returncode == 1
    assert "NOT VERIFIED" in caught.stderr + caught.stdout
    assert "bot seats do not match the commitment" in caught.stderr + caught.stdout


def test_rolloff_attempts_are_labelled_apart_from_rounds_and_from_each_other() -> None:
    from dudo.fairness import rolloff_counts, rolloff_label

    seed = "ab" * 32
    labels = [rolloff_label(k) for k in (1, 2, 3)] + [1, 2, 3]
    assert len({commitment(seed, label, [1]) for label in labels}) == 6
    seats = [server_seat_seed(seed, label, 0) for label in labels]
    assert len(set(seats)) == 6
    assert rolloff_counts(4, (1, 3)) == [0, 2, 0, 2]
    with pytest.raises(FairnessError, match="from 1"):
        rolloff_label(0)


def test_a_terminal_record_with_a_rolloff_verifies_and_a_changed_pair_does_not() -> None:
    from dudo.bots.table import bot_step
    from dudo.game import Game
    from dudo.rules import Rules
    from dudo.terminal_records import CommittedDice, game_record

    dice = CommittedDice(3, seed=21, bot_seats=[0, 1, 2])
    game = Game(Rules.from_json({"preset": "dudo", "starting_dice": 1}), 3, dice=dice)
    bots = [make_bot("easy", seed=seat) for seat in range(3)]
    while game.winners == ():
        bot_step(game, bots)
    record = game_record(game, dice, "t", ["a", "b", "c"], [0, 1, 2])
    lines = verify_record(record)
    assert lines[0].startswith("roll-off attempt 1: commitment")
    forged = copy.deepcopy(record)
    forged["start"]["rolloff"][0][0][0] = forged["start"]["rolloff"][0][0][0] % 6 + 1
    with pytest.raises(FairnessError, match="roll-off"):
        verify_record(forged)


def test_a_record_states_every_outcome_and_dudo_verify_holds_it_to_the_replay() -> None:
    """A record's ``reveals`` (each call's outcome and every seat's dice after it, what the
    browser follows the dice counts through) are the engine's: a changed one, one more or
    one less is not verified."""
    from dudo.bots.table import bot_step
    from dudo.game import Game
    from dudo.rules import Rules
    from dudo.terminal_records import CommittedDice, game_record

    dice = CommittedDice(3, seed=5, bot_seats=[0, 1, 2])
    game = Game(Rules.from_json({"preset": "perudo", "starting_dice": 2}), 3, dice=dice)
    bots = [make_bot("easy", seed=seat) for seat in range(3)]
    while game.winners == ():
        bot_step(game, bots)
    record = json.loads(json.dumps(game_record(game, dice, "t", ["a", "b", "c"], [0, 1, 2])))
    reveals = record["reveals"]
    assert len(reveals) == len(record["rounds"]) == 5
    first = reveals[0]
    assert set(first) == {
        "call",
        "caller",
        "bidder",
        "bid",
        "count",
        "outcome",
        "dice_counts",
        "loser",
        "change",
    }
    assert first["caller"] == record["rounds"][0]["actions"][-1]["seat"]
    counts = record["start"]["dice_counts"]
    for reveal, played in zip(reveals, record["rounds"], strict=True):
        assert [len(cup) for cup in played["dice"]] == counts
        counts = reveal["dice_counts"]
    verify_record(record)

    def other_loser(forged: dict[str, Any]) -> None:
        reveal = forged["reveals"][1]
        reveal["loser"] = next(seat for seat in range(3) if seat != reveal["loser"])

    def one_die_more(forged: dict[str, Any]) -> None:
        forged["reveals"][2]["dice_counts"][0] += 1

    for change, why in [
        (other_loser, r"round 2: the outcome .* \(loser differ\)"),
        (one_die_more, r"round 3: the outcome .* \(dice_counts differ\)"),
        (lambda r: r["reveals"].pop(), "the record states 4 outcomes, but 5 rounds"),
        (lambda r: r["reveals"].append(r["reveals"][-1]), "the record states 6 outcomes"),
        (
            lambda r: r.update(reveals=r["reveals"][:1], rounds=r["rounds"][:2]),
            "the record states 1 outcome, but 2 rounds ended",
        ),
        (
            lambda r: r.update(reveals=[], rounds=r["rounds"][:1]),
            "the record states 0 outcomes, but 1 round ended",
        ),
        (lambda r: r.update(reveals={}), "'reveals' must list"),
    ]:
        forged = copy.deepcopy(record)
        change(forged)
        with pytest.raises(FairnessError, match=why):
            verify_record(forged)
