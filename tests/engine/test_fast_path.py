"""The engine's shortcut for the seat to act agrees with its one legality check.

``Game.apply`` recognises the very bid objects ``Game.legal_actions`` handed out (and the
calls the seat to act may make) and takes them without asking ``Game.reason``; any other
object, an equal bid built anew included, goes through ``reason`` as before. These tests
play every random game twice in lockstep, once with the handed-out objects and once with
equal copies, and require the same events and the same state after every step; and they
check the pieces the shortcut is built from (rolls, events, legal-action tuples).
"""

from __future__ import annotations

import pickle
import random
from collections.abc import Sequence
from dataclasses import FrozenInstanceError

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dudo.bids import Bid
from dudo.dice import FACES, Cups, SeededDice, deal
from dudo.game import (
    DUDO,
    Action,
    Game,
    IllegalAction,
    LegalActions,
    Phase,
    Revealed,
    RoundStarted,
    _new_reveal,
    _new_round,
)
from dudo.hands import Hand
from dudo.rules import PRESETS, Rules
from randomplay import choose_action, game_rules, mid_game_starts, players, seeds, snapshot


def rebuilt(action: Action) -> Action:
    """An equal action that is not the object the engine handed out (calls are singletons)."""
    if isinstance(action, Bid):
        return Bid(action.quantity, action.face)
    if isinstance(action, Hand):
        return Hand.from_json(action.to_json())
    return action


@settings(max_examples=150, deadline=None)
@given(game_rules(), players, seeds, st.data())
def test_the_shortcut_and_reason_play_every_game_alike(
    rules: Rules, players: int, seed: int, data: st.DataObject
) -> None:
    start = data.draw(mid_game_starts(rules, players))
    fast = Game(rules, players, dice=SeededDice(seed), **start)
    checked = Game(rules, players, dice=SeededDice(seed), **start)
    rng = random.Random(f"choices {seed}")
    for _ in range(5_000):
        if fast.is_over:
            break
        if fast.phase is Phase.ROLL:
            assert fast.roll() == checked.roll()
        else:
            seat, action = choose_action(fast, rng)
            copy = rebuilt(action)
            if isinstance(action, Bid | Hand):
                assert copy == action and copy is not action
            assert fast.apply(seat, action) == checked.apply(seat, copy)
        assert snapshot(fast) == snapshot(checked)
    assert fast.is_over and checked.is_over


@pytest.mark.parametrize("preset", list(PRESETS))
def test_a_bid_handed_out_before_a_bid_was_placed_is_refused_after_it(preset: str) -> None:
    """The shortcut counts from the standing bid: a stale legal action gets reason's
    refusal, not a quiet acceptance."""
    game = Game(Rules.preset(preset), 3, dice=SeededDice(7), opener=0)
    game.roll()
    opening = game.legal_actions(0)
    lowest = opening[0]
    game.apply(0, opening[1])
    with pytest.raises(IllegalAction) as refused:
        game.apply(1, lowest)
    assert refused.value.reason == game.reason(1, lowest) == "not_a_raise"
    with pytest.raises(IllegalAction) as refused:
        game.apply(0, game.legal_actions(1)[0])
    assert refused.value.reason == "not_your_turn"


def test_seeded_dice_roll_what_random_choices_rolled() -> None:
    """The roll draws each die as ``random.choices(FACES, k=...)`` did, so a seed still
    gives the same games (records, scenario seeds and bots' look-ahead rely on it)."""
    for seed in range(300):
        counts = [seed % 6, 5, 3, 0, (seed // 6) % 11][: 2 + seed % 4]
        reference = random.Random(seed)
        dice = SeededDice(seed)
        for round_number in (1, 2, 3):
            expected = deal(reference.choices(FACES, k=sum(counts)), counts)
            assert dice.roll(counts, round_number) == expected


def test_a_game_rolls_its_seeded_dice_as_the_source_rolls_them_and_counts_them() -> None:
    """The game takes our sources' row of dice and cuts it itself (the fast path): the cups
    are the ones the source's own ``roll`` gives, and the reveal counts what they hold."""
    for seed in range(50):
        players = 2 + seed % 5
        game = Game(PRESETS["perudo"], players, dice=SeededDice(seed))
        twin_source = SeededDice(seed)
        twin_source.draw(game.alive)  # the first opener's draw comes first
        rolled = game.roll()
        assert rolled == twin_source.roll(game.dice_counts, 1)
        for face in FACES:
            wild = face != 1 and game.wild
            assert game.count(face) == sum(cup.count(face) + wild * cup.count(1) for cup in rolled)


def test_a_source_of_another_kind_is_asked_for_cups_and_checked() -> None:
    """Only our own two sources take the fast path: a subclass of them may roll otherwise
    (here loaded dice), and a source that rolls the wrong number of dice is refused."""

    class Loaded(SeededDice):
        def roll(self, dice_counts: Sequence[int], round_number: int) -> Cups:
            return tuple((6,) * count for count in dice_counts)

    game = Game(PRESETS["perudo"], 3, dice=Loaded(1), opener=0)
    assert game.roll() == ((6,) * 5,) * 3
    assert game.count(6) == 15 and game.count(2) == 0

    class Short(SeededDice):
        def roll(self, dice_counts: Sequence[int], round_number: int) -> Cups:
            return tuple((6,) * (count - 1) for count in dice_counts)

    with pytest.raises(ValueError, match="rolled"):
        Game(PRESETS["perudo"], 3, dice=Short(1), opener=0).roll()


def test_the_fast_event_constructors_make_what_the_classes_make() -> None:
    reveal_fields = (
        DUDO,
        1,
        0,
        Bid(3, 5),
        2,
        "fails",
        (4, 5),
        None,
        ((5, 5, 1, 2), (3, 4, 6, 6, 2)),
        True,
        0,
        1,
        ((0, Bid(3, 5)),),
    )
    made = _new_reveal(*reveal_fields)
    assert type(made) is Revealed
    assert made == Revealed(*reveal_fields) and hash(made) == hash(Revealed(*reveal_fields))
    assert made.to_json() == Revealed(*reveal_fields).to_json()
    with pytest.raises(FrozenInstanceError):
        made.count = 3  # type: ignore[misc]
    header = _new_round(2, 1, False, True, (4, 5))
    assert type(header) is RoundStarted and header == RoundStarted(2, 1, False, True, (4, 5))
    with pytest.raises(TypeError):
        _new_round(2, 1, False, True)  # every field is needed


def test_legal_actions_are_a_tuple_of_the_bids_then_the_calls() -> None:
    game = Game(Rules.preset("perudo"), 4, dice=SeededDice(3), opener=2)
    game.roll()
    game.apply(2, Bid(2, 3))
    legal = game.legal_actions(3)
    assert isinstance(legal, tuple)
    assert list(legal) == [*legal.bids, *legal.calls] == [legal[i] for i in range(len(legal))]
    assert legal[-1] is legal.calls[-1] and legal[0] == Bid(2, 4)
    assert Bid(2, 4) in legal and Bid(2, 3) not in legal and Bid(True, 4) not in legal
    assert legal is game.legal_actions(3)  # shared, not made again per call
    again = pickle.loads(pickle.dumps(legal))
    assert type(again) is LegalActions and again == legal and repr(again) == repr(legal)
    assert again.calls == legal.calls and list(again.bids) == list(legal.bids)
