"""A program's slips with the engine's public API get errors that say what to pass: a
rules preset's name or JSON where a Rules belongs, a string or tuple where an action
belongs (refused as the bad bid it is, in words, not an AttributeError)."""

from __future__ import annotations

import pytest

from dudo import Bid, Game, Rules
from dudo.dice import SeededDice
from dudo.game import IllegalAction


@pytest.mark.parametrize("rules", ["perudo", {"preset": "perudo"}, None])
def test_a_game_needs_a_rules_object(rules: object) -> None:
    with pytest.raises(TypeError, match=r"rules must be a Rules \(Rules\(\), Rules.preset"):
        Game(rules, 2)  # type: ignore[arg-type]


@pytest.mark.parametrize("players", ["2", 2.0, None])
def test_players_must_be_a_whole_number(players: object) -> None:
    with pytest.raises(ValueError, match=r"players must be 2\.\.10, not "):
        Game(Rules(), players)  # type: ignore[arg-type]


@pytest.mark.parametrize("action", ["dudo", (2, 3), [2, 3], None])
def test_something_that_is_not_an_action_is_refused_in_words(action: object) -> None:
    game = Game(Rules(), 2, dice=SeededDice(1), opener=0)
    game.roll()
    with pytest.raises(IllegalAction) as caught:
        game.apply(0, action)  # type: ignore[arg-type]
    assert caught.value.reason == "bad_bid"
    assert str(caught.value).startswith(
        f"seat 0 cannot play {action!r}, which is not an action (a Bid, a Hand, DUDO or CALZA)"
    )
    assert game.apply(0, Bid(2, 3))  # nothing changed: the seat still opens
