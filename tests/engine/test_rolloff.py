"""The roll-off for the first opener: the pure step, a game started from it, its record."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dudo.bots import make_bot
from dudo.bots.table import play_bot_game
from dudo.dice import Cups, ScriptedDice, SeededDice
from dudo.game import Game
from dudo.rolloff import RollOff, RollOffAttempt, RollOffError
from dudo.rules import Rules
from dudo.scenario import replay, run_scenario

DUDO_SHEET = Rules.preset("dudo")  # the dudo preset rolls off


def test_the_dudo_preset_rolls_off() -> None:
    assert DUDO_SHEET.first_opener == "rolloff"


def test_ties_roll_again_only_among_the_tied() -> None:
    roll_off = RollOff([0, 1, 2, 3])
    assert roll_off.rolling == (0, 1, 2, 3) and roll_off.opener is None
    first = roll_off.roll([(6, 6), (3, 4), (6, 6), (1, 2)])
    assert first == RollOffAttempt((0, 1, 2, 3), ((6, 6), (3, 4), (6, 6), (1, 2)), (0, 2))
    assert roll_off.rolling == (0, 2) and roll_off.opener is None
    assert roll_off.roll([(5, 5), (4, 6)]).tied == (0, 2)
    assert roll_off.roll([[2, 3], [6, 1]]).tied == (2,)
    assert roll_off.opener == 2 and roll_off.rolling == ()
    assert roll_off.to_json() == [
        [[6, 6], [3, 4], [6, 6], [1, 2]],
        [[5, 5], [4, 6]],
        [[2, 3], [6, 1]],
    ]
    assert first.to_json() == {
        "event": "rolloff",
        "seats": [0, 1, 2, 3],
        "rolls": [[6, 6], [3, 4], [6, 6], [1, 2]],
        "tied": [0, 2],
    }


@pytest.mark.parametrize(
    ("pairs", "words"),
    [
        ([(6, 6)], "2 pairs of dice are needed"),
        ([(6, 6), (1, 1), (2, 2)], "2 pairs of dice are needed"),
        ([(6, 7), (1, 1)], "seat 0: (6, 7) is not two dice 1..6"),
        ([(6, 6), (0, 1)], "seat 1"),
        ([(6, 6), (1, True)], "seat 1"),
        ([(6, 6), (1,)], "seat 1"),
    ],
)
def test_bad_attempts_are_refused_and_change_nothing(
    pairs: Sequence[Sequence[int]], words: str
) -> None:
    roll_off = RollOff([0, 1])
    with pytest.raises(RollOffError, match=words.replace("(", r"\(").replace(")", r"\)")):
        roll_off.roll(pairs)
    assert roll_off.attempts == [] and roll_off.rolling == (0, 1)


def test_nothing_after_the_tie_is_broken() -> None:
    roll_off = RollOff([0, 1])
    roll_off.roll([(6, 6), (1, 1)])
    with pytest.raises(RollOffError, match="over: seat 0 opens"):
        roll_off.roll([(1, 1), (6, 6)])
    with pytest.raises(RollOffError, match="leave seats"):
        RollOff.of([0, 1], [[[3, 3], [2, 4]]])
    with pytest.raises(RollOffError, match="two or more"):
        RollOff([3])


@given(st.integers(2, 10), st.integers(0, 2**32))
def test_a_roll_off_ends_with_the_highest_total(players: int, seed: int) -> None:
    rng = random.Random(seed)
    roll_off = RollOff(range(players))
    while roll_off.opener is None:
        rolling = roll_off.rolling
        pairs = [(rng.randint(1, 6), rng.randint(1, 6)) for _ in rolling]
        attempt = roll_off.roll(pairs)
        best = max(a + b for a, b in pairs)
        assert attempt.tied == tuple(
            seat for seat, (a, b) in zip(rolling, pairs, strict=True) if a + b == best
        )
        assert set(attempt.tied) <= set(rolling)
    assert roll_off.opener in roll_off.attempts[-1].seats


# -- a game that starts from a roll-off ---------------------------------------------------------


def test_a_game_rolls_off_on_its_dice_source() -> None:
    asked: list[list[int]] = []

    class Watched(ScriptedDice):
        def roll(self, dice_counts: Sequence[int], round_number: int) -> Cups:
            asked.append([*dice_counts, round_number])
            return super().roll(dice_counts, round_number)

    dice = Watched(
        [((5, 5, 5, 5, 5),) * 3], rolloff=[((1, 1), (6, 6), (6, 6)), ((), (2, 2), (3, 3))]
    )
    game = Game(DUDO_SHEET, 3, dice=dice)
    assert game.rolloff is not None and game.first_opener == game.opener == 2
    # two dice for each seat rolling, as rounds 0 and -1; round 1's dice are left for it
    assert asked == [[2, 2, 2, 0], [0, 2, 2, -1]]
    assert game.roll() == ((5, 5, 5, 5, 5),) * 3
    with pytest.raises(LookupError, match="no roll-off dice"):
        Game(DUDO_SHEET, 3, dice=ScriptedDice([((5, 5, 5, 5, 5),) * 3]))
    assert game.record()["start"]["rolloff"] == [[[1, 1], [6, 6], [6, 6]], [[2, 2], [3, 3]]]
    assert "opener" not in game.record()["start"]


def test_a_game_started_from_a_server_s_roll_off() -> None:
    roll_off = RollOff([0, 1, 2])
    roll_off.roll([(4, 4), (1, 2), (4, 4)])
    with pytest.raises(ValueError, match="not over"):
        Game(DUDO_SHEET, 3, rolloff=roll_off)
    roll_off.roll([(1, 1), (2, 1)])
    game = Game(DUDO_SHEET, 3, dice=SeededDice(1), rolloff=roll_off)
    assert game.opener == 2 and game.rolloff is roll_off
    with pytest.raises(ValueError, match="not both"):
        Game(DUDO_SHEET, 3, rolloff=roll_off, opener=1)
    with pytest.raises(ValueError, match="first_opener 'rolloff'"):
        Game(Rules.preset("perudo"), 3, rolloff=roll_off)
    with pytest.raises(ValueError, match="seats with dice are"):
        Game(DUDO_SHEET, 3, rolloff=roll_off, dice_counts=[5, 0, 5])
    # an opener given outright wins over the rules' roll-off (scenario files, a server
    # that decided it already): nothing is rolled
    assert Game(DUDO_SHEET, 3, dice=ScriptedDice([]), opener=1).rolloff is None


def test_the_record_replays_to_the_same_opener() -> None:
    game = Game(DUDO_SHEET, 4, dice=SeededDice(7))
    play_bot_game(game, [make_bot("normal", seed=seat) for seat in range(4)])
    record = json.loads(json.dumps(game.record()))
    assert "rolloff" in record["start"]
    twin = replay(record)
    assert twin.first_opener == game.first_opener and twin.winners == game.winners
    events = run_scenario(record)
    attempts = [event for event in events if event["event"] == "rolloff"]
    assert attempts == [attempt.to_json() for attempt in game.rolloff.attempts]  # type: ignore[union-attr]
    assert events[len(attempts)]["event"] == "round"
    assert events[len(attempts)]["opener"] == game.first_opener


def test_a_rematch_rolls_off_again() -> None:
    dice = SeededDice(3)
    openers = []
    for _ in range(30):  # each game at the table is a new Game: a new roll-off
        game = Game(DUDO_SHEET, 3, dice=dice)
        assert game.rolloff is not None
        openers.append(game.first_opener)
    assert set(openers) == {0, 1, 2}


def test_the_roll_off_is_fair_enough() -> None:
    # every seat opens about as often: 3,000 roll-offs among four seats
    dice = SeededDice(2024)
    wins = [0] * 4
    for _ in range(3000):
        wins[Game(DUDO_SHEET, 4, dice=dice).first_opener] += 1
    assert all(600 < count < 900 for count in wins), wins


def test_every_seat_view_shows_the_roll_off() -> None:
    from dudo.view import SeatView, view

    roll_off = RollOff.of([0, 1], [[[3, 3], [4, 2]], [[6, 5], [1, 1]]])
    game = Game(DUDO_SHEET, 2, dice=SeededDice(2), rolloff=roll_off)
    for seat in (0, 1, None):
        data = view(game, seat).to_json()
        assert data["rolloff"] == [
            {"seats": [0, 1], "rolls": [[3, 3], [4, 2]], "tied": [0, 1]},
            {"seats": [0, 1], "rolls": [[6, 5], [1, 1]], "tied": [0]},
        ]
        assert SeatView.from_json(data, game.rules).to_json() == data
    assert view(Game(DUDO_SHEET, 2, opener=1), 0).to_json()["rolloff"] == []


def test_a_source_that_always_ties_is_named() -> None:
    class Stuck(SeededDice):
        def roll(self, dice_counts: Sequence[int], round_number: int) -> Cups:
            return tuple((3, 3) if count else () for count in dice_counts)

    with pytest.raises(RuntimeError, match="tied 1000 roll-offs in a row"):
        Game(DUDO_SHEET, 3, dice=Stuck(1))
