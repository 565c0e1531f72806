"""The game state machine on scripted dice: openers, refusals, phases and copies."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from dudo.bids import Bid
from dudo.dice import Cups, ScriptedDice, SeededDice
from dudo.game import (
    CALZA,
    DUDO,
    REASONS,
    Action,
    BidPlaced,
    GameOver,
    IllegalAction,
    Phase,
    PlayerOut,
    Revealed,
    RoundStarted,
)
from dudo.game import Game as GameClass
from dudo.rules import PRESETS, Rules
from randomplay import snapshot


def game(preset: str, players: int, *rounds: Sequence[Sequence[int]], **options: Any) -> GameClass:
    """A game on ``preset`` whose rounds roll ``rounds`` in order; opener 0 unless given."""
    options.setdefault("opener", 0)
    overrides = options.pop("rules", {})
    return GameClass(
        Rules.preset(preset, **overrides), players, dice=ScriptedDice(rounds), **options
    )


class RecordingDice:
    """A dice source that records the draws asked of it and picks with ``pick``."""

    def __init__(self, pick: Callable[[Sequence[int]], int]) -> None:
        self.pick = pick
        self.draws: list[list[int]] = []

    def roll(self, dice_counts: Sequence[int], round_number: int) -> Cups:
        return tuple(tuple([2] * count) for count in dice_counts)

    def draw(self, seats: Sequence[int]) -> int:
        self.draws.append(list(seats))
        return self.pick(seats)


# -- who opens the first round ---------------------------------------------------------------


def test_host_opens_the_first_round() -> None:
    source = RecordingDice(lambda seats: seats[-1])
    host = GameClass(PRESETS["ones-lock"], 4, dice=source)
    assert host.opener == host.first_opener == host.turn == 0
    assert source.draws == []
    out_host = GameClass(PRESETS["ones-lock"], 4, dice=source, dice_counts=[0, 5, 5, 5])
    assert out_host.opener == 1


@pytest.mark.parametrize(
    ("previous", "counts", "expected"),
    [
        (None, [5, 5, 5, 5], 0),
        (0, [5, 5, 5, 5], 1),
        (1, [5, 5, 5, 5], 2),
        (3, [5, 5, 5, 5], 0),
        (0, [5, 0, 5, 5], 2),
        (3, [0, 0, 5, 5], 2),
    ],
)
def test_rotate_opens_after_the_previous_first_opener(
    previous: int | None, counts: list[int], expected: int
) -> None:
    source = RecordingDice(lambda seats: seats[-1])
    table = GameClass(
        PRESETS["tavern"], 4, dice=source, dice_counts=counts, previous_first_opener=previous
    )
    assert table.opener == table.first_opener == expected
    assert source.draws == []


def test_random_first_opener_is_drawn_from_the_dice_source_among_living_seats() -> None:
    source = RecordingDice(lambda seats: seats[-1])
    drawn = GameClass(PRESETS["perudo"], 4, dice=source, dice_counts=[5, 0, 5, 0])
    assert source.draws == [[0, 2]]
    assert drawn.opener == drawn.turn == 2
    first = RecordingDice(lambda seats: seats[0])
    assert GameClass(PRESETS["perudo"], 4, dice=first).opener == 0
    assert first.draws == [[0, 1, 2, 3]]


def test_random_first_opener_follows_the_seed() -> None:
    openers = [GameClass(PRESETS["perudo"], 4, dice=SeededDice(seed)).opener for seed in range(60)]
    assert set(openers) == {0, 1, 2, 3}
    again = [GameClass(PRESETS["perudo"], 4, dice=SeededDice(seed)).opener for seed in range(60)]
    assert openers == again


def test_an_explicit_opener_wins_over_the_rule() -> None:
    source = RecordingDice(lambda seats: seats[0])
    assert GameClass(PRESETS["perudo"], 4, dice=source, opener=3).opener == 3
    assert source.draws == []
    with pytest.raises(ValueError, match="opener"):
        GameClass(PRESETS["perudo"], 4, dice=source, opener=1, dice_counts=[5, 0, 5, 5])


# -- refused actions change nothing -----------------------------------------------------------

FIVES = [[2, 3, 4, 5, 6], [1, 5, 5, 6, 6], [3, 3, 4, 4, 2]]


ONE_THREE = Bid(1, 3)


def palifico_round(opening: Bid = ONE_THREE, **rules: Any) -> GameClass:
    """dudo preset (with ``rules`` on top), 2 players: seat 0 drops to one die, so round 2
    is palifico (opener 0), and seat 0 has opened it with ``opening`` (one 3)."""
    table = game("dudo", 2, [[2, 3], [4, 5]], [[6], [6, 6]], dice_counts=[2, 2], rules=rules)
    table.roll()
    table.apply(0, Bid(3, 6))
    table.apply(1, DUDO)
    assert table.palifico and table.dice_counts == [1, 2]
    table.roll()
    table.apply(0, opening)
    return table


def opened(preset: str, *bids: tuple[int, Bid], **options: Any) -> GameClass:
    table = game(preset, 3, FIVES, **options)
    table.roll()
    for seat, bid in bids:
        table.apply(seat, bid)
    return table


NO_CAP = {"cap_at_dice_in_play": False}

# (how to set up, seat, action, reason)
REFUSED: dict[str, tuple[Callable[[], GameClass], int, Action, str]] = {
    "player_out": (
        lambda: game("tavern", 3, [[], [1, 2], [3, 4]], dice_counts=[0, 2, 2], opener=1),
        0,
        Bid(1, 2),
        "player_out",
    ),
    "player_out before no_bid": (
        lambda: game("tavern", 3, [[], [1, 2], [3, 4]], dice_counts=[0, 2, 2], opener=1),
        0,
        DUDO,
        "player_out",
    ),
    "no_bid": (lambda: opened("dudo"), 0, DUDO, "no_bid"),
    "no_bid for calza": (lambda: opened("perudo"), 2, CALZA, "no_bid"),
    "bidder_cannot_call": (lambda: opened("dudo", (0, Bid(2, 5))), 0, DUDO, "bidder_cannot_call"),
    "bidder_cannot_call before calza_not_allowed": (
        lambda: opened("tavern", (0, Bid(2, 5))),
        0,
        CALZA,
        "bidder_cannot_call",
    ),
    "calza_not_allowed (off)": (
        lambda: opened("tavern", (0, Bid(2, 5))),
        1,
        CALZA,
        "calza_not_allowed",
    ),
    "calza_not_allowed before not_your_turn": (
        lambda: opened("tavern", (0, Bid(2, 5))),
        2,
        CALZA,
        "calza_not_allowed",
    ),
    "calza_not_allowed (too few alive)": (
        lambda: opened("perudo", (0, Bid(2, 5)), rules={"calza_min_players": 4}),
        2,
        CALZA,
        "calza_not_allowed",
    ),
    "calza_not_allowed (palifico)": (palifico_round, 1, CALZA, "calza_not_allowed"),
    "not_your_turn (dudo)": (lambda: opened("dudo", (0, Bid(2, 5))), 2, DUDO, "not_your_turn"),
    "not_your_turn (calza in_turn)": (
        lambda: opened("dudo", (0, Bid(2, 5))),
        2,
        CALZA,
        "not_your_turn",
    ),
    "not_your_turn (bid)": (lambda: opened("dudo", (0, Bid(2, 5))), 2, Bid(3, 5), "not_your_turn"),
    "not_your_turn before bad_bid": (lambda: opened("dudo"), 1, Bid(0, 9), "not_your_turn"),
    "bad_bid (quantity 0)": (lambda: opened("dudo"), 0, Bid(0, 5), "bad_bid"),
    "bad_bid (quantity -1)": (lambda: opened("dudo"), 0, Bid(-1, 5), "bad_bid"),
    "bad_bid (face 7)": (lambda: opened("dudo"), 0, Bid(3, 7), "bad_bid"),
    "bad_bid (face 0)": (lambda: opened("dudo"), 0, Bid(3, 0), "bad_bid"),
    "ones_not_allowed (halve opening)": (
        lambda: opened("perudo"),
        0,
        Bid(2, 1),
        "ones_not_allowed",
    ),
    "ones_not_allowed (never)": (
        lambda: opened("tavern", (0, Bid(2, 5))),
        1,
        Bid(9, 1),
        "ones_not_allowed",
    ),
    "face_locked": (palifico_round, 1, Bid(2, 4), "face_locked"),
    "not_a_raise": (lambda: opened("dudo", (0, Bid(3, 5))), 1, Bid(3, 4), "not_a_raise"),
    "not_a_raise (same bid)": (lambda: opened("dudo", (0, Bid(3, 5))), 1, Bid(3, 5), "not_a_raise"),
    "not_a_raise (halve to ones)": (
        lambda: opened("dudo", (0, Bid(7, 5))),
        1,
        Bid(3, 1),
        "not_a_raise",
    ),
    "over_cap": (lambda: opened("dudo"), 0, Bid(16, 5), "over_cap"),
    "over_cap (raise)": (lambda: opened("dudo", (0, Bid(3, 5))), 1, Bid(16, 2), "over_cap"),
    # without the cap: 2*15+1 = 31 of a face 2..6, 15 ones
    "over_cap (no cap, face)": (
        lambda: opened("ones-lock", rules=NO_CAP),
        0,
        Bid(32, 5),
        "over_cap",
    ),
    "over_cap (no cap, ones)": (
        lambda: opened("ones-lock", rules=NO_CAP),
        0,
        Bid(16, 1),
        "over_cap",
    ),
    "over_cap (no cap, halve to ones)": (
        lambda: opened("dudo", (0, Bid(30, 5)), rules=NO_CAP),
        1,
        Bid(16, 1),
        "over_cap",
    ),
    "over_cap (no cap, palifico on ones)": (
        lambda: palifico_round(Bid(1, 1), **NO_CAP),
        1,
        Bid(4, 1),
        "over_cap",
    ),
}


@pytest.mark.parametrize(
    ("make", "seat", "action", "reason"), list(REFUSED.values()), ids=list(REFUSED)
)
def test_a_refused_action_raises_with_its_reason_and_changes_nothing(
    make: Callable[[], GameClass], seat: int, action: Action, reason: str
) -> None:
    table = make()
    if table.phase is Phase.ROLL:
        table.roll()
    assert table.reason(seat, action) == reason
    assert action not in table.legal_actions(seat)
    before = snapshot(table)
    with pytest.raises(IllegalAction) as caught:
        table.apply(seat, action)
    assert caught.value.reason == reason
    assert caught.value.seat == seat
    assert caught.value.action == action
    assert isinstance(caught.value, ValueError)
    assert f"({reason})" in str(caught.value)
    assert snapshot(table) == before


def test_every_rules_md_reason_code_is_covered_above() -> None:
    assert {reason for *_, reason in REFUSED.values()} == set(list(REASONS)[:10])


def test_the_legal_counterparts_are_accepted() -> None:
    table = palifico_round()
    assert table.reason(1, Bid(2, 3)) is None
    assert Bid(2, 3) in table.legal_actions(1)
    table.apply(1, Bid(2, 3))
    # seat 0 holds one die and the dudo preset lets it change the face (plain order)
    assert table.reason(0, Bid(2, 5)) is None
    assert table.reason(0, Bid(2, 2)) == "not_a_raise"
    assert table.reason(0, Bid(3, 1)) is None
    assert not table.wild


def test_without_the_cap_the_bounds_are_reached_and_not_passed() -> None:
    table = opened("ones-lock", rules=NO_CAP)  # 15 dice in play
    assert table.legal_actions(0).bids[-1] == Bid(31, 6)
    assert Bid(15, 1) in table.legal_actions(0) and Bid(16, 1) not in table.legal_actions(0)
    table.apply(0, Bid(15, 1))
    assert table.legal_actions(1).bids[0] == Bid(15, 2)  # the plain order's next bid


def test_a_palifico_round_without_the_cap_raises_along_the_face_up_to_its_bound() -> None:
    # three dice in play: up to seven of a face 2..6, three ones; seat 1 holds two dice,
    # so it must keep the face
    threes = palifico_round(Bid(1, 3), **NO_CAP)
    assert list(threes.legal_actions(1).bids) == [Bid(q, 3) for q in range(2, 8)]
    ones = palifico_round(Bid(1, 1), **NO_CAP)
    assert list(ones.legal_actions(1).bids) == [Bid(2, 1), Bid(3, 1)]
    ones.apply(1, Bid(3, 1))
    # seat 0 holds one die and may change the face, under the plain order
    assert list(ones.legal_actions(0).bids) == [Bid(q, f) for q in range(3, 8) for f in range(2, 7)]


def test_apply_refuses_seats_that_do_not_exist() -> None:
    table = opened("dudo")
    before = snapshot(table)
    for seat in (-1, 3, 10):
        with pytest.raises(ValueError, match="no seat"):
            table.apply(seat, Bid(2, 5))
    assert snapshot(table) == before


# -- between rounds and after the end ---------------------------------------------------------

ALL_ACTIONS: list[Action] = [Bid(1, 2), Bid(5, 6), Bid(0, 0), DUDO, CALZA]


def test_between_rounds_every_action_is_round_over() -> None:
    table = game("perudo", 3, FIVES, rules={"calza_min_players": 2})
    assert table.phase is Phase.ROLL
    for seat in range(3):
        assert not table.legal_actions(seat)
        for action in ALL_ACTIONS:
            assert table.reason(seat, action) == "round_over"
    table.roll()
    table.apply(0, Bid(3, 5))
    events = table.apply(1, DUDO)
    assert [type(event) for event in events] == [Revealed, RoundStarted]
    assert table.phase is Phase.ROLL
    before = snapshot(table)
    for seat in range(3):
        assert len(table.legal_actions(seat)) == 0
        for action in ALL_ACTIONS:
            assert table.reason(seat, action) == "round_over"
            with pytest.raises(IllegalAction) as caught:
                table.apply(seat, action)
            assert caught.value.reason == "round_over"
    assert snapshot(table) == before


def test_after_the_end_every_action_is_game_over() -> None:
    table = game("tavern", 2, [[6], [2]], dice_counts=[1, 1])
    table.roll()
    table.apply(0, Bid(1, 6))
    events = table.apply(1, DUDO)
    assert [type(event) for event in events] == [Revealed, PlayerOut, GameOver]
    assert events[-1] == GameOver((0,))
    assert table.is_over and table.winners == (0,)
    before = snapshot(table)
    for seat in range(2):
        assert not table.legal_actions(seat)
        for action in ALL_ACTIONS:
            assert table.reason(seat, action) == "game_over"
            with pytest.raises(IllegalAction) as caught:
                table.apply(seat, action)
            assert caught.value.reason == "game_over"
    with pytest.raises(RuntimeError):
        table.roll()
    assert snapshot(table) == before


def test_rolling_twice_is_refused() -> None:
    table = opened("dudo")
    with pytest.raises(RuntimeError):
        table.roll()


# -- a few outcomes --------------------------------------------------------------------------


def test_dudo_on_an_exact_count_holds_and_the_caller_loses() -> None:
    table = opened("tavern", (0, Bid(4, 5)))  # three 5s and one wild 1
    assert table.count(5) == 4
    events = table.apply(1, DUDO)
    reveal = events[0]
    assert isinstance(reveal, Revealed)
    assert (reveal.outcome, reveal.loser, reveal.count) == ("holds", 1, 4)
    assert table.dice_counts == [5, 4, 5]
    assert table.opener == 1


def test_exact_calza_wins_a_die_back_but_not_above_the_start() -> None:
    table = game(
        "perudo", 3, [[2, 3, 4, 5], [1, 5, 5, 6, 6], [3, 3, 4, 4, 2]], dice_counts=[4, 5, 5]
    )
    table.roll()
    table.apply(0, Bid(4, 5))  # 5s: one, plus the one wild 1 -> 1 + 3 = 4
    table.apply(1, Bid(4, 6))  # 6s: 2 + 1 wild = 3
    events = table.apply(0, CALZA)  # out of turn: any_time
    reveal = events[0]
    assert isinstance(reveal, Revealed)
    assert (reveal.outcome, reveal.change) == ("not_exact", 1)
    assert table.dice_counts == [3, 5, 5]
    assert table.opener == 0

    capped = game("perudo", 3, FIVES)
    capped.roll()
    capped.apply(0, Bid(4, 5))
    events = capped.apply(2, CALZA)
    reveal = events[0]
    assert isinstance(reveal, Revealed)
    assert (reveal.outcome, reveal.change, reveal.loser) == ("exact", 0, None)
    assert capped.dice_counts == [5, 5, 5]
    assert capped.opener == 2


def test_events_of_a_bid() -> None:
    table = opened("dudo")
    assert table.apply(0, Bid(2, 5)) == [BidPlaced(0, Bid(2, 5))]
    assert table.standing == Bid(2, 5) and table.bidder == 0 and table.turn == 1


# -- copies and records ----------------------------------------------------------------------


def test_copy_is_independent_both_ways() -> None:
    table = opened("dudo", (0, Bid(2, 5)))
    twin = table.copy()
    assert snapshot(twin) == snapshot(table)
    before = snapshot(table)

    twin.apply(1, Bid(4, 5))
    twin.apply(2, DUDO)
    assert snapshot(table) == before
    assert twin.round_number == 2 and table.round_number == 1

    twin_state = snapshot(twin)
    table.apply(1, Bid(3, 6))
    table.apply(2, Bid(9, 6))
    table.apply(0, DUDO)
    assert snapshot(twin) == twin_state
    assert table.last_reveal != twin.last_reveal
    assert table.record()["rounds"][0]["actions"] != twin.record()["rounds"][0]["actions"]


def test_copy_between_rounds_rolls_independently() -> None:
    table = game("tavern", 2, [[1, 2], [3, 4]], dice_counts=[2, 2])
    twin = table.copy()
    twin.roll([[6, 6], [6, 6]])
    unrolled = table.cups
    assert table.phase is Phase.ROLL and unrolled == ()
    table.roll()
    assert table.cups == ((1, 2), (3, 4))
    assert twin.cups == ((6, 6), (6, 6))
    assert table.record()["rounds"][0]["dice"] == [[1, 2], [3, 4]]
    assert twin.record()["rounds"][0]["dice"] == [[6, 6], [6, 6]]


def test_record_is_a_snapshot_not_a_window_into_the_game() -> None:
    """Changing a record someone holds must not change the game it came from.

    ENGINE BUG: ``record()`` returns the game's own ``start`` lists and each round's
    ``dice`` lists, so editing the returned dict edits the game (and its later records).
    """
    table = opened("dudo", (0, Bid(2, 5)))
    expected = copy.deepcopy(table.record())
    record = table.record()
    record["start"]["dice_counts"][0] = 1
    record["start"]["points"][0] = 7
    record["rounds"][0]["dice"][0][0] = 6
    record["rounds"][0]["actions"].clear()
    assert table.record() == expected


def test_reason_and_legal_actions_agree_on_bids_with_odd_number_types() -> None:
    """``Bid(True, 5) == Bid(1, 5)`` and ``Bid(2.0, 5) == Bid(2, 5)`` as values, so they are
    found on the ladder; ``reason`` refuses them as ``bad_bid`` (bools and floats are not
    quantities). The two doors to legality must give one answer.

    ENGINE BUG: ``LegalActions.__contains__`` says yes while ``reason`` says ``bad_bid``.
    """
    table = opened("tavern")
    legal = table.legal_actions(0)
    for bid in (Bid(True, 5), Bid(2.0, 5), Bid(2, 5.0)):  # type: ignore[arg-type]
        assert (table.reason(0, bid) is None) == (bid in legal), bid
