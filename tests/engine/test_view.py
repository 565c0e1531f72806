"""Views: what a seat (or a spectator) may see.

The key property is non-interference: a seat's view is a function of its own dice and the
public actions only, so two games that differ only in the other seats' dice look the same
to it, byte for byte, until the cups are lifted.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dudo.bids import Bid
from dudo.dice import Cups, ScriptedDice
from dudo.game import DUDO, Call, Game, Phase
from dudo.rules import PRESETS, Rules
from dudo.view import SeatView, ViewTexts, view
from randomplay import choose_action, game_rules, mid_game_starts, new_game, players, seeds

PROPERTY = settings(max_examples=120, deadline=None)

CUPS = [[1, 2, 3], [4, 4, 5], [6, 6, 6]]


def three_seats() -> Game:
    game = Game(PRESETS["perudo"], 3, dice=ScriptedDice([CUPS]), dice_counts=[3, 3, 3], opener=0)
    game.roll()
    return game


def test_a_seat_sees_its_own_dice_and_nobody_else_s() -> None:
    game = three_seats()
    game.apply(0, Bid(2, 4))
    for seat in range(3):
        seen = view(game, seat)
        assert seen.dice == tuple(CUPS[seat])
        data = seen.to_json()
        assert data["dice"] == CUPS[seat]
        assert data["last_reveal"] is None
        assert json.loads(json.dumps(data)) == data
        assert seen.my_turn == (seat == 1)
        assert seen.standing == Bid(2, 4) and seen.bidder == 0
        assert seen.dice_in_play == 9
        assert list(seen.legal) == list(game.legal_actions(seat))


def test_a_spectator_sees_no_dice_and_has_no_actions() -> None:
    game = three_seats()
    game.apply(0, Bid(2, 4))
    seen = view(game, None)
    assert seen.seat is None and seen.dice == () and not seen.my_turn
    assert len(seen.legal) == 0
    data = seen.to_json()
    assert data["dice"] == [] and data["legal"] == {"bids": [], "calls": []}
    assert data["last_reveal"] is None


def test_the_cups_become_public_with_the_reveal_only() -> None:
    game = three_seats()
    game.apply(0, Bid(2, 4))
    game.apply(1, DUDO)
    assert game.phase is Phase.ROLL
    for seat in (0, 1, 2, None):
        data = view(game, seat).to_json()
        assert data["dice"] == []  # the next round's dice are not rolled yet
        assert data["turn"] is None and data["standing"] is None and data["bidder"] is None
        assert data["last_reveal"]["cups"] == CUPS
        assert data["last_reveal"]["outcome"] == "holds"  # two 4s plus one wild 1: three
        assert data["legal"] == {"bids": [], "calls": []}


def test_view_refuses_seats_that_do_not_exist() -> None:
    game = three_seats()
    for seat in (-1, 3):
        with pytest.raises(ValueError, match="no seat"):
            view(game, seat)


def test_views_are_frozen() -> None:
    seen = view(three_seats(), 0)
    with pytest.raises(AttributeError):
        seen.dice = (6, 6, 6)  # type: ignore[misc]


# -- properties over random games ------------------------------------------------------------


def other_dice(cups: Cups, keep: int | None, rng: random.Random) -> Cups:
    """``cups`` with every die changed except seat ``keep``'s (None: change every seat's)."""
    return tuple(
        cup
        if seat == keep
        else tuple(rng.choice([f for f in range(1, 7) if f != die]) for die in cup)
        for seat, cup in enumerate(cups)
    )


def check_own_dice_only(game: Game, previous_cups: Sequence[Sequence[int]] | None) -> None:
    for seat in [*range(game.players), None]:
        seen = view(game, seat)
        data = seen.to_json()
        own = game.cups[seat] if seat is not None and game.phase is Phase.BIDDING else ()
        assert seen.dice == own
        assert data["dice"] == list(own)
        if seat is None:
            assert len(seen.legal) == 0 and not data["legal"]["bids"]
            assert not data["legal"]["calls"]
        reveal = data["last_reveal"]
        if game.phase is Phase.BIDDING:
            # during a round the only cups in a view are the previous round's, public
            if previous_cups is None:
                assert reveal is None
            else:
                assert reveal["cups"] == [list(cup) for cup in previous_cups]
        assert json.loads(json.dumps(data)) == data
        # what a remote client rebuilds from the JSON is the same view
        assert SeatView.from_json(data, game.rules).to_json() == data


@PROPERTY
@given(game_rules(), players, seeds, st.data())
def test_a_view_does_not_depend_on_other_seats_dice(
    rules: Rules, players: int, seed: int, data: st.DataObject
) -> None:
    game, rng = new_game(rules, players, seed, **data.draw(mid_game_starts(rules, players)))
    changer = random.Random(f"other dice {seed}")
    previous_cups: Cups | None = None
    for _ in range(500):  # rounds
        if game.is_over:
            break
        assert game.phase.value == "roll"
        # twins[s] differs from game in every die except seat s's; twins[-1] in every die
        twins = [game.copy() for _ in range(players + 1)]
        cups = game.roll()
        for seat, twin in enumerate(twins):
            twin.roll(other_dice(cups, seat if seat < players else None, changer))
        while game.phase is Phase.BIDDING:
            check_own_dice_only(game, previous_cups)
            for seat in range(players):
                assert view(game, seat).to_json() == view(twins[seat], seat).to_json()
            assert view(game, None).to_json() == view(twins[-1], None).to_json()
            seat, action = choose_action(game, rng)
            game.apply(seat, action)
            if not isinstance(action, Call):
                for twin in twins:
                    twin.apply(seat, action)  # legality does not depend on the dice
        check_own_dice_only(game, previous_cups)
        previous_cups = cups
    else:
        raise AssertionError("the game did not end within 500 rounds")


def check_texts(game: Game) -> None:
    """The spliced texts are each seat's own view, byte for byte."""
    texts = ViewTexts(game)
    for seat in [*range(game.players), None]:
        assert texts.text(seat) == orjson.dumps(view(game, seat).to_json()).decode()
    for seat in (-1, game.players):
        with pytest.raises(ValueError, match="no seat"):
            texts.text(seat)


@PROPERTY
@given(game_rules(), players, seeds, st.data())
def test_every_seats_text_is_exactly_its_view(
    rules: Rules, players: int, seed: int, data: st.DataObject
) -> None:
    game, rng = new_game(rules, players, seed, **data.draw(mid_game_starts(rules, players)))
    for _ in range(500):  # rounds
        check_texts(game)  # between rounds: no dice in any view, the last reveal public
        if game.is_over:
            break
        game.roll()
        while game.phase is Phase.BIDDING:
            check_texts(game)
            seat, action = choose_action(game, rng)
            game.apply(seat, action)
    else:
        raise AssertionError("the game did not end within 500 rounds")


def test_a_seat_s_text_holds_its_own_dice_only() -> None:
    game = three_seats()
    game.apply(0, Bid(2, 4))
    texts = ViewTexts(game)
    for seat in range(3):
        assert json.loads(texts.text(seat))["dice"] == CUPS[seat]
    assert json.loads(texts.text(None))["dice"] == []
