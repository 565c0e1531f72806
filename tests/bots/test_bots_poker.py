"""Bots in Common Hand (``bids: poker``): exact odds, legal play at every table, privacy,
and the levels' order of strength."""

from __future__ import annotations

from itertools import product

import pytest

from dudo.bots import make_bot
from dudo.bots.arena import run_arena
from dudo.bots.poker import (
    _multinomial_chance,
    hand_odds,
    hand_states,
    remaining_chance,
    straight_chance,
    view_odds,
)
from dudo.bots.poker_hard import PokerBelief, bid_likelihood, cups
from dudo.bots.table import BotError, check_answer, play_bot_game
from dudo.dice import ScriptedDice, SeededDice
from dudo.game import DUDO, Game, Phase
from dudo.hands import ALL_HANDS, Hand
from dudo.rules import Rules
from dudo.view import SeatView, view

COMMON = Rules.preset("common-hand")


# -- the odds ---------------------------------------------------------------------------------


@pytest.mark.parametrize("own", [(), (2, 2, 5), (1, 2, 3, 4), (6, 6, 6, 1, 2)])
def test_hand_odds_equal_brute_force_enumeration_of_every_roll(own: tuple[int, ...]) -> None:
    for unknown in range(0, 5):
        rolls = list(product(range(1, 7), repeat=unknown))
        for hand in ALL_HANDS:
            brute = sum(hand.held_by(own + roll) for roll in rolls) / len(rolls)
            assert hand_odds(hand, own, unknown) == pytest.approx(brute, abs=1e-12), (
                hand,
                own,
                unknown,
            )


def test_straights_by_inclusion_exclusion_agree_with_the_multinomial_sum() -> None:
    for missing in range(1, 6):
        for unknown in range(0, 12):
            assert straight_chance(missing, unknown) == pytest.approx(
                _multinomial_chance((1,) * missing, unknown), abs=1e-12
            )


def test_known_values_and_the_memo_key_ignores_order() -> None:
    # A pair of a given face among 10 unknown dice: 1 - (5/6)^10 - 10 (1/6)(5/6)^9.
    assert remaining_chance((2,), 10) == pytest.approx(1 - (5 / 6) ** 10 - 10 / 6 * (5 / 6) ** 9)
    assert remaining_chance((2, 3), 7) == remaining_chance((3, 2), 7)
    assert remaining_chance((3, 3), 5) == 0.0  # needs more dice than there are
    assert hand_odds(Hand("full_house", (4, 2)), (4, 4, 4, 2, 2), 0) == 1.0


def test_a_belief_that_read_no_bids_gives_the_exact_odds() -> None:
    # Convolving every opponent's cup state must be the same as the closed form.
    game = Game(
        COMMON,
        3,
        dice=ScriptedDice([[(2, 3, 3, 6, 1), (5, 5, 4, 1, 2), (6, 6, 2, 3, 4)]]),
        opener=0,
    )
    game.roll()
    seen = view(game, 0)
    belief = PokerBelief(seen, {})
    for hand in ALL_HANDS:
        assert belief.holds(hand) == pytest.approx(
            view_odds(hand, seen.dice, seen.dice_in_play), abs=1e-9
        )


def test_hand_states_add_and_cap() -> None:
    table = hand_states(Hand("full_house", (4, 2)))
    assert table.size == 12
    three_fours = table.of_dice((4, 4, 4))
    two_twos = table.of_dice((2, 2, 5))
    assert table.add[three_fours, two_twos] == table.full
    assert table.of_dice((4, 4, 4, 4, 2)) == table.of_dice((4, 4, 4, 2))


def test_the_bidder_model_reads_a_bid_as_backed_by_the_bidders_cup() -> None:
    # Over a pair of 2s, "three 5s" makes cups with 5s more likely than cups without.
    rows, _ = cups(5)
    honest, _ = bid_likelihood(COMMON, (5, 5), 1, Hand("three", (5,)), Hand("pair", (2,)), 0.1)
    fives = rows[:, 4]
    assert honest[fives >= 2].mean() > 5 * honest[fives == 0].mean()


# -- play -------------------------------------------------------------------------------------


TABLES = [(2, 1), (2, 5), (3, 2), (4, 5), (5, 3), (6, 1), (6, 5), (2, 10), (3, 10)]


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
@pytest.mark.parametrize(("players", "dice"), TABLES)
def test_every_level_finishes_common_hand_games(level: str, players: int, dice: int) -> None:
    """Every decision is checked against the seat's legal actions by the table loop."""
    for rules in (
        Rules.preset("common-hand", starting_dice=dice),
        Rules.preset("common-hand", starting_dice=dice, cap_at_dice_in_play=False),
    ):
        bots = [make_bot(level, seed=players * 100 + seat) for seat in range(players)]
        game = Game(rules, players, dice=SeededDice(players * 7 + dice))
        winners = play_bot_game(game, bots)
        assert game.phase is Phase.OVER
        assert len(winners) == 1 and winners[0] in range(players)


def test_mixed_levels_finish_a_points_race_of_common_hand() -> None:
    rules = Rules.preset("common-hand", format="points", points_rounds=5)
    bots = [make_bot(level, seed=seat) for seat, level in enumerate(["easy", "normal", "hard"])]
    game = Game(rules, 3, dice=SeededDice(3))
    play_bot_game(game, bots)
    assert game.phase is Phase.OVER


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_a_poker_bot_decides_the_same_when_only_others_hidden_dice_differ(level: str) -> None:
    """Same bids, different dice under the other cups: the bot in seat 0 gets the same
    views and gives the same answers, with the same seed."""
    mine = (2, 2, 5, 1, 6)
    tables = [
        [mine, (3, 3, 3, 4, 4), (6, 6, 1, 2, 5)],
        [mine, (1, 1, 1, 6, 6), (2, 4, 4, 5, 3)],
    ]
    answers, inputs = [], []
    for cups_now in tables:
        game = Game(COMMON, 3, dice=ScriptedDice([cups_now]), opener=1)
        game.roll()
        game.apply(1, Hand("pair", (4,)))
        game.apply(2, Hand("two_pair", (6, 2)))
        bot = make_bot(level, seed=5)
        seen = view(game, 0)
        inputs.append(seen.to_json())
        answers.append([bot.act(seen) for _ in range(3)])
    assert inputs[0] == inputs[1]
    assert answers[0] == answers[1]


def test_poker_bots_only_ever_see_their_own_dice() -> None:
    seen_views: list[tuple[int, SeatView, tuple[tuple[int, ...], ...]]] = []

    class Watch:
        def __init__(self, seat: int, level: str) -> None:
            self.inner = make_bot(level, seed=seat)
            self.name = self.inner.name
            self.seat = seat

        def act(self, seen: SeatView):  # type: ignore[no-untyped-def]
            seen_views.append((self.seat, seen, game.cups))
            return self.inner.act(seen)

    game = Game(COMMON, 3, dice=SeededDice(21))
    play_bot_game(game, [Watch(0, "hard"), Watch(1, "normal"), Watch(2, "easy")])
    assert seen_views
    for seat, seen, cups_then in seen_views:
        assert seen.seat == seat
        payload = seen.to_json()
        assert payload["dice"] == list(cups_then[seat])
        if payload["last_reveal"] is not None:
            assert payload["last_reveal"]["cups"] != [list(cup) for cup in cups_then]


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_no_level_calls_a_hand_its_own_dice_contain(level: str) -> None:
    for seed in range(10):
        game = Game(COMMON, 2, dice=SeededDice(seed), opener=1)
        game.roll()
        mine = game.cups[0]
        held = [hand for hand in ALL_HANDS if hand.held_by(mine)]
        if not held:  # five different faces and no straight: nothing to test
            continue
        game.apply(1, held[-1])
        assert view(game, 0).legal.hands  # a raise is open: calling is a choice
        bot = make_bot(level, seed=seed)
        for _ in range(5):
            assert bot.act(view(game, 0)) is not DUDO


@pytest.mark.parametrize("level", ["easy", "normal", "hard"])
def test_a_poker_bot_plays_the_same_from_the_views_json(level: str) -> None:
    """A bot on the far side of the protocol gets the view rebuilt from its JSON form: the
    hands in it must lead to the same decisions."""
    game = Game(COMMON, 3, dice=SeededDice(8))
    near = [make_bot(level, seed=seat) for seat in range(3)]
    far = [make_bot(level, seed=seat) for seat in range(3)]
    steps = 0
    while game.phase is not Phase.OVER and steps < 60:
        if game.phase is Phase.ROLL:
            game.roll()
            continue
        seat = game.turn
        seen = view(game, seat)
        action = near[seat].act(seen)
        assert far[seat].act(SeatView.from_json(seen.to_json(), COMMON)) == action
        assert action is not None and action in seen.legal
        game.apply(seat, action)
        steps += 1
    assert steps > 10


def test_the_table_names_a_hand_a_bot_may_not_bid() -> None:
    game = Game(COMMON, 2, dice=ScriptedDice([[(4, 4, 4, 2, 2), (1, 3, 5, 6, 6)]]), opener=0)
    game.roll()
    game.apply(0, Hand("three", (4,)))
    bot = make_bot("easy", seed=1)
    with pytest.raises(BotError, match="pair of 6s, which is not legal now"):
        check_answer(
            bot, 1, view(game, 1), Hand("pair", (6,)), lambda action: game.reason(1, action)
        )
    with pytest.raises(BotError, match=r"\(a Hand, DUDO or CALZA\)"):
        check_answer(bot, 1, view(game, 1), "three 4s", lambda action: None)


# -- strength ---------------------------------------------------------------------------------


def test_hard_beats_normal_and_normal_beats_easy_heads_up() -> None:
    """Fixed seeds, so the result is the same on every run. The targets are issue 25's: at
    least 60% heads-up (docs/benchmarks.md measures about 78% and 68% over 1000 games).

    Normal's margin over easy is the thinner one, so its match is played 1000 times (about
    3 s: these bots are quick): at 300 games the 95% interval is about ±5.5 points wide, so
    a point estimate just over 60% would say little, and the test used to settle for 55%.
    At 1000 games it gives 66.6% (63.6% – 69.4%); the test asserts the target on the point
    estimate and on the Wilson lower bound, so it fails as soon as normal is no longer
    clearly at 60% or better. Hard's margin over normal is wide (82.5% over 160 games,
    lower bound 76%), so its 160 games are enough."""
    hard, _ = run_arena(["hard", "normal"], 160, COMMON, seed=31)
    assert hard.rate >= 0.6
    assert hard.interval()[0] >= 0.6, hard.interval()
    normal, _ = run_arena(["normal", "easy"], 1000, COMMON, seed=31)
    assert normal.rate >= 0.6
    assert normal.interval()[0] >= 0.6, normal.interval()
