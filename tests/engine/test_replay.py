"""Records and replay: a game's record is a scenario that rebuilds exactly that game."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dudo.bids import Bid
from dudo.dice import ScriptedDice
from dudo.game import CALZA, DUDO, Game, Phase
from dudo.rules import PRESETS, Rules
from dudo.scenario import ScenarioError, replay, run_scenario
from randomplay import game_rules, mid_game_starts, new_game, players, random_play, seeds

PROPERTY = settings(max_examples=150, deadline=None)


def state(game: Game) -> dict[str, Any]:
    return {
        "dice_counts": list(game.dice_counts),
        "points": list(game.points),
        "round_number": game.round_number,
        "phase": game.phase,
        "winners": game.winners,
        "record": game.record(),
        "opener": game.opener,
        "palifico": game.palifico,
        "palifico_used": sorted(game.palifico_used),
        "turn": game.turn,
        "standing": game.standing,
        "bidder": game.bidder,
        "bids": list(game.bids),
        "wild": game.wild,
        "cups": game.cups,
        "last_reveal": game.last_reveal,
        "legal": [list(game.legal_actions(seat)) for seat in range(game.players)],
    }


@PROPERTY
@given(game_rules(), players, seeds, st.data())
def test_replaying_a_record_gives_the_same_game(
    rules: Rules, players: int, seed: int, data: st.DataObject
) -> None:
    game, rng = new_game(rules, players, seed, **data.draw(mid_game_starts(rules, players)))
    check = random.Random(f"replay points {seed}")
    # a roll-off (first_opener: rolloff, no opener given) prints its attempts first
    attempts = game.rolloff.attempts if game.rolloff is not None else []
    output = [*(attempt.to_json() for attempt in attempts), game.round_header().to_json()]
    for step in random_play(game, rng):
        output += [event.to_json() for event in step.events]
        if check.random() < 0.05:  # mid-game: mid-round or between rounds
            assert state(replay(game.record())) == state(game)
    record = game.record()
    assert state(replay(record)) == state(game)
    # the record survives JSON, and as a scenario it prints exactly the game's events
    as_json = json.loads(json.dumps(record))
    assert as_json == record
    assert state(replay(as_json)) == state(game)
    assert run_scenario(as_json) == output


def small_game() -> Game:
    game = Game(
        PRESETS["perudo"],
        3,
        dice=ScriptedDice(
            [
                [[1, 2, 3], [4, 4, 5], [6, 6, 6]],
                [[1, 2, 3], [4, 4], [6, 6, 6]],
            ]
        ),
        dice_counts=[3, 3, 3],
        opener=0,
    )
    game.roll()
    game.apply(0, Bid(2, 4))
    game.apply(1, Bid(4, 6))
    game.apply(2, DUDO)  # 6s: three plus one wild: four, the bid holds, seat 2 loses
    return game


def test_replay_between_rounds_mid_round_and_at_the_start() -> None:
    fresh = Game(PRESETS["dudo"], 4, dice=ScriptedDice([]), opener=2)
    assert state(replay(fresh.record())) == state(fresh)

    game = small_game()
    assert game.phase is Phase.ROLL and game.dice_counts == [3, 3, 2]
    assert state(replay(game.record())) == state(game)
    game.roll([[5, 5, 5], [1, 1, 1], [2, 2]])
    assert state(replay(game.record())) == state(game)
    game.apply(2, Bid(3, 5))
    game.apply(1, CALZA)  # out of turn; 5s: three plus three wild ones, not exact
    assert state(replay(game.record())) == state(game)


def test_replay_refuses_a_record_with_a_refused_action() -> None:
    record = small_game().record()
    record["rounds"][0]["actions"][1]["bid"] = [1, 6]  # not a raise of two 4s
    with pytest.raises(ScenarioError, match="not_a_raise"):
        replay(record)
    # while run_scenario reports it and plays on
    events = run_scenario(record)
    assert {
        "event": "illegal",
        "seat": 1,
        "action": {"seat": 1, "bid": [1, 6]},
        "reason": "not_a_raise",
    } in events


def test_replay_refuses_dice_that_do_not_fit() -> None:
    record = small_game().record()
    record["rounds"][0]["dice"][2] = [6, 6]
    with pytest.raises(ScenarioError, match="round 1"):
        replay(record)
