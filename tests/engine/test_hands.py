"""Common Hand (poker bids): the hand value, its raise order, legality in a game, and views.

The raise order is checked against RULES.md's words as a property over every pair of hands:
a strict total order where a higher category wins, and within a category the faces compare
F first (then F2 for two pair and full house).
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dudo.bids import BadBidText, Bid
from dudo.bots import make_bot
from dudo.bots.base import QuantityBidsOnly, quantity_bid
from dudo.bots.endgame import endgame_policy
from dudo.bots.table import play_bot_game
from dudo.dice import ScriptedDice, SeededDice
from dudo.game import DUDO, Game, IllegalAction, Revealed, bid_from_json, bid_to_json
from dudo.hands import (
    ALL_HANDS,
    CATEGORIES,
    BadHandText,
    Hand,
    HandLadder,
    hand_ladder,
    hand_rank,
    hands_in,
    is_hand,
)
from dudo.printable import MOST_QUOTED
from dudo.rules import Rules
from dudo.view import SeatView, view

COMMON_HAND = Rules.preset("common-hand")
# RULES.md's table: hand -> dice it needs
NEEDS = {
    "pair": 2,
    "two_pair": 4,
    "three": 3,
    "low_straight": 5,
    "high_straight": 5,
    "full_house": 5,
    "four": 4,
    "five": 5,
}

hands = st.sampled_from(ALL_HANDS)


def rules_md_beats(new: Hand, old: Hand) -> bool:
    """RULES.md's sentence: a higher category, or the same category with higher faces
    (F; for two pair and full house a higher F1, or the same F1 and a higher F2)."""
    new_category, old_category = CATEGORIES.index(new.category), CATEGORIES.index(old.category)
    if new_category != old_category:
        return new_category > old_category
    if not new.faces:
        return False  # each straight is a single hand
    if new.faces[0] != old.faces[0]:
        return new.faces[0] > old.faces[0]
    return len(new.faces) == 2 and new.faces[1] > old.faces[1]


# -- the hands and their order ---------------------------------------------------------------


def test_there_are_71_hands_each_valid_and_listed_once() -> None:
    # 6 pairs, 15 two pairs (F1 > F2), 6 threes, 2 straights, 30 full houses, 6 fours, 6 fives
    assert len(ALL_HANDS) == len(set(ALL_HANDS)) == 6 + 15 + 6 + 2 + 30 + 6 + 6
    assert all(hand.is_valid and is_hand(hand) for hand in ALL_HANDS)
    assert [hand_rank(hand) for hand in ALL_HANDS] == list(range(71))
    assert ALL_HANDS[0] == Hand("pair", (1,)) and ALL_HANDS[-1] == Hand("five", (6,))
    assert [hand.dice_needed for hand in ALL_HANDS] == [NEEDS[hand.category] for hand in ALL_HANDS]


@given(hands, hands)
def test_the_raise_order_is_rules_md_s(new: Hand, old: Hand) -> None:
    assert (hand_rank(new) > hand_rank(old)) == rules_md_beats(new, old)


@given(hands, hands, hands)
def test_the_raise_order_is_a_strict_total_order(a: Hand, b: Hand, c: Hand) -> None:
    # irreflexive, asymmetric, total on distinct hands, transitive: through RULES.md's
    # comparison, so the ranks are not just assumed to be an order
    assert not rules_md_beats(a, a)
    assert not (rules_md_beats(a, b) and rules_md_beats(b, a))
    if a != b:
        assert rules_md_beats(a, b) or rules_md_beats(b, a)
    if rules_md_beats(a, b) and rules_md_beats(b, c):
        assert rules_md_beats(a, c)


def test_the_order_in_examples() -> None:
    order = [
        Hand.parse(text)
        for text in (
            "pair of 1s",
            "pair of 6s",
            "two pair 2s and 1s",
            "two pair 6s and 5s",
            "three 1s",
            "three 6s",
            "low straight",
            "high straight",
            "full house 1s over 2s",
            "full house 1s over 6s",
            "full house 2s over 1s",
            "full house 6s over 5s",
            "four 1s",
            "four 6s",
            "five 1s",
            "five 6s",
        )
    ]
    assert sorted(order, key=hand_rank) == order
    assert [hand_rank(hand) for hand in order] == sorted(hand_rank(hand) for hand in order)


@pytest.mark.parametrize(
    "bad",
    [
        Hand("flush", (3,)),
        Hand("pair", (7,)),
        Hand("pair", (0,)),
        Hand("pair", ()),
        Hand("pair", (3, 4)),
        Hand("two_pair", (2, 5)),
        Hand("two_pair", (4, 4)),
        Hand("full_house", (3, 3)),
        Hand("low_straight", (1,)),
        Hand("pair", (True,)),
        Hand("three", (2.0,)),  # type: ignore[arg-type]
        Hand("pair", [3]),  # type: ignore[arg-type]
    ],
)
def test_what_is_not_a_hand(bad: Hand) -> None:
    assert not bad.is_valid and not is_hand(bad)
    game = poker_game((1, 2), (3, 4))
    assert game.reason(0, bad) == "bad_bid" and bad not in game.legal_actions(0)
    with pytest.raises(ValueError):
        hand_rank(bad)
    if type(bad.faces) is tuple:  # (a list of faces is only wrong in Python)
        with pytest.raises(BadHandText):
            Hand.from_json({"hand": bad.category, "faces": list(bad.faces)})


# -- text and JSON -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "hand"),
    [
        ("full house 4s over 2s", Hand("full_house", (4, 2))),
        ("Full House 2s over 4s", Hand("full_house", (2, 4))),
        ("full_house 4 2", Hand("full_house", (4, 2))),
        ("pair of 3s", Hand("pair", (3,))),
        ("pair 3", Hand("pair", (3,))),
        ("a pair of aces", None),
        ("pair of aces", Hand("pair", (1,))),
        ("two pair 5s and 2s", Hand("two_pair", (5, 2))),
        ("two pair 2s and 5s", Hand("two_pair", (5, 2))),  # either order: the higher goes first
        ("two pairs 6s over 1s", Hand("two_pair", (6, 1))),
        ("low straight", Hand("low_straight")),
        ("High straight", Hand("high_straight")),
        ("three 6s", Hand("three", (6,))),
        ("three of a kind sixes", Hand("three", (6,))),
        ("trips 2", Hand("three", (2,))),
        ("four 2s", Hand("four", (2,))),
        ("five of a kind 5s", Hand("five", (5,))),
        ("five fives", Hand("five", (5,))),
    ],
)
def test_parse(text: str, hand: Hand | None) -> None:
    if hand is None:
        with pytest.raises(BadHandText):
            Hand.parse(text)
    else:
        assert Hand.parse(text) == hand


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("pair of 7s", "not a face 1..6"),
        ("two pair 4s and 4s", "higher pair first"),
        ("full house 3s over 3s", "two different faces"),
        ("flush", "write it like"),
        ("", "write it like"),
        ("pair of dragons", "not a face"),
        ("4x5", "write it like"),
    ],
)
def test_parse_refuses_in_words(text: str, words: str) -> None:
    with pytest.raises(BadHandText, match=words) as error:
        Hand.parse(text)
    assert isinstance(error.value, BadBidText)  # callers that catch bad bid text catch it


@given(hands)
def test_words_json_and_parse_round_trip(hand: Hand) -> None:
    assert Hand.parse(hand.words()) == hand
    assert Hand.parse(str(hand)) == hand
    data = hand.to_json()
    assert Hand.from_json(json.loads(json.dumps(data))) == hand
    assert bid_from_json(bid_to_json(hand)) == hand
    assert ("faces" in data) == bool(hand.faces)


def test_words_and_json_forms() -> None:
    assert Hand("full_house", (4, 2)).words() == "full house 4s over 2s"
    assert Hand("two_pair", (5, 2)).words() == "two pair 5s and 2s"
    assert Hand("pair", (3,)).words() == "pair of 3s"
    assert Hand("three", (6,)).words() == "three 6s"
    assert Hand("low_straight").words() == "low straight"
    assert Hand("full_house", (4, 2)).to_json() == {"hand": "full_house", "faces": [4, 2]}
    assert Hand("high_straight").to_json() == {"hand": "high_straight"}
    assert Hand.from_json({"hand": "low_straight", "faces": []}) == Hand("low_straight")
    assert bid_from_json([4, 5]) == Bid(4, 5) and bid_to_json(Bid(4, 5)) == [4, 5]
    for bad in (
        {"faces": [3]},
        {"hand": "pair", "faces": "3"},
        {"hand": "pair", "faces": [True]},
        ["pair", 3],
        "pair of 3s",
    ):
        with pytest.raises(ValueError):
            bid_from_json(bad)


# -- holding a hand ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "dice", "held"),
    [
        (Hand("pair", (6,)), [6, 1, 6], True),
        (Hand("pair", (6,)), [6, 1, 1], False),  # ones are not wild
        (Hand("two_pair", (3, 1)), [3, 1, 3, 1], True),
        (Hand("two_pair", (3, 1)), [3, 3, 3, 1], False),
        (Hand("three", (2,)), [2, 2, 2], True),
        (Hand("low_straight"), [5, 4, 3, 2, 1, 1], True),
        (Hand("low_straight"), [2, 3, 4, 5, 6], False),
        (Hand("high_straight"), [2, 3, 4, 5, 6], True),
        (Hand("full_house", (4, 2)), [4, 4, 4, 2, 2], True),
        (Hand("full_house", (4, 2)), [4, 4, 2, 2, 2], False),  # that is 2s over 4s
        (Hand("full_house", (2, 4)), [4, 4, 2, 2, 2], True),
        (Hand("four", (5,)), [5, 5, 5, 5, 5], True),  # at least
        (Hand("five", (5,)), [5, 5, 5, 5], False),
    ],
)
def test_held_by(hand: Hand, dice: list[int], held: bool) -> None:
    assert hand.held_by(dice) is held
    assert (hand in hands_in(dice)) is held


def test_hand_ladders_follow_the_cap() -> None:
    assert len(hand_ladder(None)) == 71 and hand_ladder(5) is hand_ladder(None)
    assert [hand.category for hand in hand_ladder(2)] == ["pair"] * 6
    assert {hand.category for hand in hand_ladder(3)} == {"pair", "three"}
    assert {hand.category for hand in hand_ladder(4)} == {"pair", "two_pair", "three", "four"}
    four = hand_ladder(4)
    assert list(four) == sorted(four, key=HandLadder.rank)
    assert four.index(Hand("four", (1,))) == len(four) - 6
    assert four.above(Hand("low_straight")) == four.index(Hand("four", (1,)))
    with pytest.raises(ValueError):
        four.index(Hand("five", (1,)))


# -- in a game ---------------------------------------------------------------------------------


def poker_game(*cups: tuple[int, ...], **options: object) -> Game:
    rules = COMMON_HAND.with_options(**options) if options else COMMON_HAND
    game = Game(
        rules,
        len(cups),
        dice=ScriptedDice([cups]),
        dice_counts=[len(cup) for cup in cups],
        opener=0,
    )
    game.roll()
    return game


def test_legal_actions_list_the_legal_hands() -> None:
    game = poker_game((1, 2), (3, 4))  # 4 dice in play
    opening = game.legal_actions(0)
    assert list(opening.hands) == list(hand_ladder(4)) and not opening.bids
    assert list(opening.any_bids) == list(opening) and not opening.calls
    assert Hand("two_pair", (6, 5)) in opening and Hand("low_straight") not in opening
    assert Bid(1, 2) not in opening and Hand("pair", (True,)) not in opening
    game.apply(0, Hand("two_pair", (6, 5)))
    raises = game.legal_actions(1)
    assert list(raises.hands) == [
        hand for hand in hand_ladder(4) if hand_rank(hand) > hand_rank(Hand("two_pair", (6, 5)))
    ]
    assert raises.calls == (DUDO,)
    assert list(raises)[-1] is DUDO
    assert not game.legal_actions(0)  # the bidder waits


def test_the_wrong_kind_of_bid_is_bad_bid_both_ways() -> None:
    poker = poker_game((1, 2), (3, 4))
    with pytest.raises(IllegalAction) as error:
        poker.apply(0, Bid(2, 3))
    assert error.value.reason == "bad_bid"
    quantity = Game(
        Rules.preset("no-wilds"),
        2,
        dice=ScriptedDice([[(1, 2), (3, 4)]]),
        dice_counts=[2, 2],
        opener=0,
    )
    quantity.roll()
    assert quantity.reason(0, Hand("pair", (3,))) == "bad_bid"
    assert Hand("pair", (3,)) not in quantity.legal_actions(0)


def test_a_reveal_holds_or_fails_without_a_count() -> None:
    game = poker_game((4, 4, 4), (2, 2))
    game.apply(0, Hand("full_house", (4, 2)))
    events = game.apply(1, DUDO)
    reveal = events[0]
    assert isinstance(reveal, Revealed)
    assert (reveal.outcome, reveal.loser, reveal.count) == ("holds", 1, None)
    assert "count" not in reveal.to_json()
    assert reveal.to_json()["bid"] == {"hand": "full_house", "faces": [4, 2]}
    assert [die for die in (1, 2, 3, 4, 5, 6) if reveal.counts(die)] == [2, 4]


def test_the_record_of_a_poker_game_replays() -> None:
    from dudo.scenario import replay, run_scenario

    game = Game(COMMON_HAND, 2, dice=SeededDice(11))
    rng = random.Random(11)
    while not game.is_over:
        if game.phase.value == "roll":
            game.roll()
            continue
        legal = game.legal_actions(game.turn)
        game.apply(game.turn, rng.choice(legal))
    record = json.loads(json.dumps(game.record()))
    assert any(
        isinstance(action["bid"], dict)
        for entry in record["rounds"]
        for action in entry["actions"]
        if "bid" in action
    )
    twin = replay(record)
    assert twin.winners == game.winners and twin.dice_counts == game.dice_counts
    assert run_scenario(record)[-1] == {"event": "game_over", "winners": list(game.winners)}


def test_a_seat_view_carries_hands_in_the_bid_keys() -> None:
    game = poker_game((1, 2), (3, 3))
    game.apply(0, Hand("pair", (3,)))
    seen = view(game, 1)
    data = seen.to_json()
    assert data["standing"] == {"hand": "pair", "faces": [3]}
    assert data["bids"] == [[0, {"hand": "pair", "faces": [3]}]]
    assert data["legal"]["bids"][0] == {"hand": "pair", "faces": [4]}
    assert {"hand": "high_straight"} not in data["legal"]["bids"]  # 4 dice in play
    assert data["legal"]["calls"] == ["dudo"]
    assert data["dice"] == [3, 3]
    rebuilt = SeatView.from_json(data, game.rules)
    assert rebuilt.to_json() == data
    assert list(rebuilt.legal.hands) == list(seen.legal.hands)
    assert rebuilt.standing == Hand("pair", (3,))


# -- bots --------------------------------------------------------------------------------------


@pytest.mark.parametrize("level", ["random", "easy", "normal", "hard"])
@pytest.mark.parametrize("players", [2, 3])
def test_every_bot_finishes_a_common_hand_game(level: str, players: int) -> None:
    for seed in range(3):
        game = Game(COMMON_HAND, players, dice=SeededDice(seed))
        bots = [make_bot(level, seed=seed * 10 + seat) for seat in range(players)]
        winners = play_bot_game(game, bots)  # a BotError if any action was not legal
        assert game.is_over and len(winners) == 1


INERT_WITH_POKER = {
    "palifico_open_on_ones": True,
    "palifico_once_per_player": False,
    "palifico_one_die_may_change_face": True,
    "palifico_min_players": 5,
    "calza_min_players": 4,
}
"""Options RULES.md lets stand with poker bids: they qualify palifico and calza, which
poker bids turn off, so they change nothing (docs/rules-notes.md says why they are accepted
rather than refused: RULES.md names the five options that must hold, and the same options
are just as idle in a quantity game with palifico and calza off)."""


@pytest.mark.parametrize("players", [2, 3])
def test_palifico_and_calza_sub_options_are_accepted_with_poker_and_change_nothing(
    players: int,
) -> None:
    changed = Rules.from_json({"preset": "common-hand", **INERT_WITH_POKER})
    assert all(getattr(changed, name) == value for name, value in INERT_WITH_POKER.items())
    for seed in range(4):
        played = []
        for rules in (COMMON_HAND, changed):
            events: list[object] = []
            game = Game(rules, players, dice=SeededDice(seed), opener=0)
            bots = [make_bot("random", seed=seed * 10 + seat) for seat in range(players)]
            play_bot_game(game, bots, on_events=events.extend)
            assert not game.palifico_used and not any(
                getattr(event, "palifico", False) for event in events
            )
            played.append(events)
        assert played[0] == played[1]


def test_the_random_bot_bids_many_different_hands() -> None:
    bids: set[Hand] = set()
    for seed in range(20):
        game = Game(COMMON_HAND, 2, dice=SeededDice(seed))
        play_bot_game(game, [make_bot("random", seed=seed), make_bot("random", seed=-seed)])
        bids |= {
            action
            for entry in game._record
            for _, action in entry["actions"]
            if isinstance(action, Hand)
        }
    assert len(bids) > 30


def test_quantity_only_code_names_the_problem() -> None:
    with pytest.raises(QuantityBidsOnly, match="'pair of 3s' is a poker hand"):
        quantity_bid(Hand("pair", (3,)))
    assert quantity_bid(Bid(2, 3)) == Bid(2, 3) and quantity_bid(None) is None
    # the solved heads-up endgames are for quantity bids: a Common Hand seat gets none
    game = poker_game((3,), (4,))
    assert endgame_policy(view(game, 0)) is None


def test_the_openspiel_bridge_refuses_common_hand() -> None:
    openspiel = pytest.importorskip("dudo.openspiel")
    with pytest.raises(ValueError, match="Common Hand"):
        openspiel.load_game("common-hand", (1, 1))


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("9" * 5000, "9" * MOST_QUOTED),  # no hand at all
        ("pair of " + "9" * 5000, "9" * MOST_QUOTED),  # more digits than Python reads
        ("pair of " + "9" * 1000, ("pair of " + "9" * 1000)[:MOST_QUOTED]),  # 999...9 no face
        ("pair of " + "x" * 5000, "x" * MOST_QUOTED),  # no face word
    ],
)
def test_parse_quotes_a_long_input_cut_short(text: str, quoted: str) -> None:
    # The error repeated the input whole: a 5,000-digit number gave a 5,000-digit message.
    with pytest.raises(BadHandText) as error:
        Hand.parse(text)
    message = str(error.value)
    assert f"{quoted}…'" in message and len(message) < 200, message
    assert "9" * (MOST_QUOTED + 1) not in message and "x" * (MOST_QUOTED + 1) not in message


def test_parse_quotes_a_short_input_whole() -> None:
    with pytest.raises(BadHandText) as error:
        Hand.parse("pair of 7s")
    assert str(error.value) == "not a hand: 'pair of 7s': 7 is not a face 1..6"
    with pytest.raises(BadHandText) as error:
        Hand.parse("x" * MOST_QUOTED)
    assert str(error.value).startswith(f"not a hand: '{'x' * MOST_QUOTED}' (write")
