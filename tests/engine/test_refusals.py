"""A refusal explained: which of its reason code's causes applies (dudo.refusals)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from dudo.bids import Bid
from dudo.dice import ScriptedDice
from dudo.game import CALZA, DUDO, Action, Game
from dudo.hands import Hand
from dudo.refusals import KEYS, explain, explain_bad_bid, in_words
from dudo.rules import Rules
from randomplay import snapshot

FIVES = [[2, 3, 4, 5, 6], [1, 5, 5, 6, 6], [3, 3, 4, 4, 2]]
NAMES = ["Ana", "Ben", "Cy"]


def game(preset: str, players: int, *rounds: Sequence[Sequence[int]], **options: Any) -> Game:
    options.setdefault("opener", 0)
    overrides = options.pop("rules", {})
    return Game(Rules.preset(preset, **overrides), players, dice=ScriptedDice(rounds), **options)


def opened(preset: str, *bids: tuple[int, Action], players: int = 3, **options: Any) -> Game:
    table = game(preset, players, FIVES[:players], **options)
    table.roll()
    for seat, bid in bids:
        table.apply(seat, bid)
    return table


ONE_THREE = Bid(1, 3)


def palifico(opening: Bid | None = ONE_THREE, **rules: Any) -> Game:
    """dudo preset, 2 players: seat 0 drops to one die and opens a palifico round 2 (with
    ``opening``, or not yet with None)."""
    table = game("dudo", 2, [[2, 3], [4, 5]], [[6], [6, 6]], dice_counts=[2, 2], rules=rules)
    table.roll()
    table.apply(0, Bid(3, 6))
    table.apply(1, DUDO)
    assert table.palifico
    table.roll()
    if opening is not None:
        table.apply(0, opening)
    return table


def between_rounds() -> Game:
    table = opened("dudo", (0, Bid(2, 5)))
    table.apply(1, DUDO)
    return table


def finished() -> Game:
    table = game("tavern", 2, [[6], [2]], dice_counts=[1, 1])
    table.roll()
    table.apply(0, Bid(1, 6))
    table.apply(1, DUDO)
    assert table.is_over
    return table


def hand(text: str) -> Hand:
    return Hand.parse(text)


# (how to set up, seat, action, key, English words, params)
CASES: dict[str, tuple[Callable[[], Game], int, Any, str, str, dict[str, Any]]] = {
    "out": (
        lambda: game("tavern", 3, [[], [1, 2], [3, 4]], dice_counts=[0, 2, 2], opener=1),
        0,
        Bid(1, 2),
        "player_out.out",
        "You have no dice left: you are out of this game.",
        {},
    ),
    "no bid": (
        lambda: opened("dudo"),
        0,
        DUDO,
        "no_bid.first",
        "Nobody has bid yet this round, so there is no bid to call.",
        {},
    ),
    "own bid": (
        lambda: opened("dudo", (0, Bid(2, 5))),
        0,
        DUDO,
        "bidder_cannot_call.own",
        "The standing bid, two 5s, is your own: nobody may call their own bid.",
        {"bid": [2, 5]},
    ),
    "no calza in these rules": (
        lambda: opened("tavern", (0, Bid(2, 5))),
        1,
        CALZA,
        "calza_not_allowed.off",
        "These rules have no calza: a bid is called with dudo.",
        {},
    ),
    "no calza in palifico": (
        palifico,
        1,
        CALZA,
        "calza_not_allowed.palifico",
        "There is no calza in a palifico round.",
        {},
    ),
    "calza needs more players": (
        lambda: opened("perudo", (0, Bid(2, 5)), players=2),
        1,
        CALZA,
        "calza_not_allowed.min_players",
        "Calza needs at least 3 players in the game, and only 2 are left.",
        {"min": 3, "alive": 2},
    ),
    "bid out of turn": (
        lambda: opened("dudo", (0, Bid(2, 5))),
        2,
        Bid(3, 5),
        "not_your_turn.bid",
        "It is Ben's turn: you may bid only on your turn.",
        {"seat": 1, "name": "Ben"},
    ),
    "dudo out of turn": (
        lambda: opened("dudo", (0, Bid(2, 5))),
        2,
        DUDO,
        "not_your_turn.dudo",
        "It is Ben's turn: you may call dudo only on your turn.",
        {"seat": 1, "name": "Ben"},
    ),
    "calza in turn only": (
        lambda: opened("dudo", (0, Bid(2, 5))),
        2,
        CALZA,
        "not_your_turn.calza",
        "It is Ben's turn, and these rules let you call calza only on your turn.",
        {"seat": 1, "name": "Ben"},
    ),
    "quantity 0": (
        lambda: opened("dudo"),
        0,
        Bid(0, 5),
        "bad_bid.quantity",
        "A bid names a whole number of dice, at least one.",
        {},
    ),
    "face 7": (
        lambda: opened("dudo"),
        0,
        Bid(3, 7),
        "bad_bid.face",
        "A die's faces are 1 to 6.",
        {},
    ),
    "a hand at a quantity table": (
        lambda: opened("dudo"),
        0,
        hand("pair of 3s"),
        "bad_bid.not_a_quantity",
        "This table bids a quantity and a face, like four 5s.",
        {},
    ),
    "a quantity at a hand table": (
        lambda: opened("common-hand", players=2),
        0,
        Bid(2, 3),
        "bad_bid.not_a_hand",
        "This table bids poker hands, like a pair of 3s.",
        {},
    ),
    "no such hand": (
        lambda: opened("common-hand", players=2),
        0,
        Hand("pair", (9,)),
        "bad_bid.hand",
        "That is not a hand: 9 is not a face 1..6.",
        {},
    ),
    "not an action": (
        lambda: opened("dudo"),
        0,
        "4x5",
        "bad_bid.not_an_action",
        "That is neither a bid nor a call.",
        {},
    ),
    "never ones": (
        lambda: opened("tavern", (0, Bid(2, 5))),
        1,
        Bid(9, 1),
        "ones_not_allowed.never",
        "These rules never allow a bid on aces.",
        {},
    ),
    "no opening on ones": (
        lambda: opened("perudo"),
        0,
        Bid(2, 1),
        "ones_not_allowed.opening",
        "Aces may not open a round under these rules; after the opening bid you may raise to aces.",
        {},
    ),
    "no palifico opening on ones": (
        lambda: palifico(None, palifico_open_on_ones=False),
        0,
        Bid(1, 1),
        "ones_not_allowed.palifico_opening",
        "Under these rules the opener of a palifico round may not open on aces.",
        {},
    ),
    "face kept in palifico": (
        lambda: palifico(palifico_one_die_may_change_face=False),
        1,
        Bid(2, 4),
        "face_locked.palifico",
        "In a palifico round every raise keeps the face: raise the number of 3s.",
        {"face": 3},
    ),
    "only one die changes face": (
        palifico,
        1,
        Bid(2, 4),
        "face_locked.one_die_only",
        "In a palifico round only a player with one die left may change the face, and you "
        "have 2: raise the number of 3s.",
        {"face": 3, "dice": 2},
    ),
    "not a raise": (
        lambda: opened("dudo", (0, Bid(3, 5))),
        1,
        Bid(3, 4),
        "not_a_raise.plain",
        "A raise on three 5s names more dice, or as many of a higher face; on 4s that is "
        "at least four 4s.",
        {"bid": [3, 5], "face": 4, "least": [4, 4]},
    ),
    "not a raise to ones": (
        lambda: opened("dudo", (0, Bid(7, 5))),
        1,
        Bid(3, 1),
        "not_a_raise.to_ones",
        "Going from seven 5s to aces takes at least half as many, rounded up: four aces.",
        {"bid": [7, 5], "face": 1, "least": [4, 1]},
    ),
    "not a raise from ones": (
        lambda: opened("dudo", (0, Bid(2, 2)), (1, Bid(2, 1))),
        2,
        Bid(4, 4),
        "not_a_raise.from_ones",
        "Going from two aces back to 4s takes at least double the aces plus one: five 4s.",
        {"bid": [2, 1], "face": 4, "least": [5, 4]},
    ),
    "nothing on that face": (
        lambda: opened("dudo", (0, Bid(15, 6))),
        1,
        Bid(15, 2),
        "not_a_raise.no_face",
        "No bid on 2s is high enough to raise fifteen 6s here.",
        {"bid": [15, 6], "face": 2},
    ),
    "not a higher hand": (
        lambda: opened("common-hand", (0, hand("three 4s")), players=2),
        1,
        hand("pair of 6s"),
        "not_a_raise.hand",
        "A raise on three 4s names a higher hand; the lowest is three 5s.",
        {"bid": {"hand": "three", "faces": [4]}, "least": {"hand": "three", "faces": [5]}},
    ),
    "no hand is higher": (
        lambda: opened("common-hand", (0, hand("five 6s")), players=2),
        1,
        hand("pair of 2s"),
        "not_a_raise.top",
        "Nothing raises five 6s: no hand is higher.",
        {"bid": {"hand": "five", "faces": [6]}},
    ),
    "over the cap": (
        lambda: opened("dudo"),
        0,
        Bid(16, 5),
        "over_cap.cap",
        "Only 15 dice are in play, and a bid may not name more than that.",
        {"dice": 15},
    ),
    "over the bound of a face": (
        lambda: opened("ones-lock", rules={"cap_at_dice_in_play": False}),
        0,
        Bid(32, 5),
        "over_cap.faces",
        "With 15 dice in play a bid names at most 31 of a face 2 to 6.",
        {"dice": 15, "limit": 31},
    ),
    "over the bound of ones": (
        lambda: opened("ones-lock", rules={"cap_at_dice_in_play": False}),
        0,
        Bid(16, 1),
        "over_cap.ones",
        "With 15 dice in play a bid names at most 15 aces.",
        {"dice": 15, "limit": 15},
    ),
    "a hand needs more dice": (
        lambda: game("common-hand", 2, [[1, 2], [3, 4]], dice_counts=[2, 2]),
        0,
        hand("full house 4s over 2s"),
        "over_cap.hand",
        "A full house 4s over 2s needs 5 dice, and only 4 are in play.",
        {"bid": {"hand": "full_house", "faces": [4, 2]}, "need": 5, "dice": 4},
    ),
    "before the first round": (
        # A bid sent after the start, before round 1 is rolled: no round is over yet.
        lambda: game("dudo", 3, FIVES),
        0,
        Bid(1, 2),
        "round_over.first",
        "The first round has not been rolled yet.",
        {},
    ),
    "between rounds": (
        between_rounds,
        2,
        Bid(1, 2),
        "round_over.waiting",
        "This round is over: the next one has not been rolled yet.",
        {},
    ),
    "after the end": (finished, 0, DUDO, "game_over.over", "The game is over.", {}),
}


@pytest.mark.parametrize(
    ("make", "seat", "action", "key", "words", "params"), list(CASES.values()), ids=list(CASES)
)
def test_each_cause_of_a_refusal_is_told_apart(
    make: Callable[[], Game],
    seat: int,
    action: Any,
    key: str,
    words: str,
    params: dict[str, Any],
) -> None:
    table = make()
    if table.phase.value == "roll" and not key.startswith("round_over"):
        table.roll()
    reason = table.reason(seat, action)
    before = snapshot(table)
    refusal = explain(table, seat, action, names=NAMES[: table.players])
    assert (refusal.code, refusal.key) == (reason, key)
    assert refusal.words == words
    assert refusal.params == params
    assert refusal.to_json() == {"key": key, "params": params, "text": words}
    assert explain(table, seat, action, reason=reason, names=NAMES[: table.players]) == refusal
    assert snapshot(table) == before  # explaining changes nothing


@pytest.mark.parametrize(
    ("make", "seat", "action"),
    [case[:3] for case in CASES.values() if case[3].startswith("bad_bid.")],
    ids=[name for name, case in CASES.items() if case[3].startswith("bad_bid.")],
)
def test_a_bad_bid_is_explained_the_same_without_a_game(
    make: Callable[[], Game], seat: int, action: Any
) -> None:
    # A room refuses a bid of the wrong form before it asks the game, with this detail.
    table = make()
    assert explain_bad_bid(action, poker=table.poker) == explain(table, seat, action)


def test_every_key_is_reached_by_a_case() -> None:
    assert {key for _, _, _, key, _, _ in CASES.values()} == set(KEYS)


def test_without_names_a_seat_is_named_by_its_number() -> None:
    table = opened("dudo", (0, Bid(2, 5)))
    words = "It is seat 1's turn: you may call dudo only on your turn."
    assert explain(table, 2, DUDO).words == words


def test_an_accepted_action_has_nothing_to_explain() -> None:
    with pytest.raises(ValueError, match="nothing to explain"):
        explain(opened("dudo"), 0, Bid(2, 5))


def test_hands_take_their_articles() -> None:
    assert in_words(hand("pair of 4s")) == "a pair of 4s"
    assert in_words(hand("two pair 5s and 2s")) == "two pair 5s and 2s"
    assert in_words(Bid(4, 5)) == "four 5s"
