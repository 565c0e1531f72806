"""Properties of whole random games under random valid rules (see ``randomplay``).

- every game ends, with the right winners;
- dice counts only rise by an exact calza, never above the start, never from zero;
- the legal-action lists and the engine's single legality check (``reason``) agree, and
  ``apply`` refuses exactly what ``reason`` refuses, changing nothing when it does.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from dudo.bids import Bid
from dudo.game import CALZA, DUDO, Action, Game, GameOver, IllegalAction, Phase, Revealed
from dudo.hands import ALL_HANDS, Hand
from dudo.rules import Rules
from randomplay import (
    MAX_ACTIONS,
    game_rules,
    mid_game_starts,
    new_game,
    players,
    random_bid,
    random_hand,
    random_play,
    seeds,
    snapshot,
)

PROPERTY = settings(max_examples=150, deadline=None)


@PROPERTY
@given(game_rules(), players, seeds, st.booleans())
def test_every_game_ends_with_the_right_winners(
    rules: Rules, players: int, seed: int, race: bool
) -> None:
    if race:  # points races are rare among random overrides: make half the games one
        rules = rules.with_options(format="points", palifico=False)
    game, rng = new_game(rules, players, seed)
    reveals = 0
    expected_points = [0] * players
    game_overs: list[GameOver] = []
    steps = 0
    for step in random_play(game, rng):
        steps += 1
        for event in step.events:
            if isinstance(event, Revealed):
                reveals += 1
                if event.loser is not None:
                    loss = 1
                    if event.call is DUDO and rules.loss_by_difference:
                        loss = max(1, abs(event.count - event.bid.quantity))
                    expected_points[event.loser] += loss
        game_overs += [event for event in step.events if isinstance(event, GameOver)]
    assert steps < MAX_ACTIONS
    assert game.is_over and game.phase is Phase.OVER
    assert game_overs == [GameOver(game.winners)]
    if rules.format == "elimination":
        alive = [seat for seat, count in enumerate(game.dice_counts) if count]
        assert len(game.winners) == 1
        assert list(game.winners) == alive == game.alive
    else:
        assert reveals == rules.points_rounds
        assert game.round_number == rules.points_rounds
        fewest = min(game.points)
        assert game.winners == tuple(s for s, p in enumerate(game.points) if p == fewest)
        assert game.dice_counts == [rules.starting_dice] * players
        assert game.points == expected_points


@PROPERTY
@given(game_rules(), players, seeds, st.data())
def test_dice_counts_rise_only_by_an_exact_calza(
    rules: Rules, players: int, seed: int, data: st.DataObject
) -> None:
    game, rng = new_game(rules, players, seed, **data.draw(mid_game_starts(rules, players)))
    for step in random_play(game, rng):
        before, after = step.counts_before, tuple(game.dice_counts)
        reveals = [event for event in step.events if isinstance(event, Revealed)]
        assert len(reveals) <= 1
        for seat in range(players):
            assert 0 <= after[seat] <= rules.starting_dice
            if before[seat] == 0:
                assert after[seat] == 0, f"seat {seat} came back from zero"
            if after[seat] > before[seat]:
                assert reveals, f"seat {seat} gained dice without a reveal"
                reveal = reveals[0]
                assert reveal.outcome == "exact" and reveal.call is CALZA
                assert reveal.caller == seat and reveal.change == 1
                assert after[seat] == before[seat] + 1
        if reveals:
            reveal = reveals[0]
            assert reveal.dice_counts == after
            if reveal.outcome == "exact" and rules.format == "elimination":
                caller = reveal.caller
                gained = before[caller] < rules.starting_dice
                assert reveal.change == int(gained)
                assert after[caller] == before[caller] + int(gained)
            if rules.format == "points":
                assert after == before


def check_agreement(game: Game, rng: random.Random, full: bool) -> None:
    """``reason`` and ``legal_actions`` agree for every seat on sampled actions, and
    ``apply`` raises exactly when ``reason`` refuses (and then changes nothing); that last
    check, which copies the state, is made for one seat a step."""
    tried = rng.randrange(game.players)
    for seat in range(game.players):
        legal = game.legal_actions(seat)
        sampled: list[Action] = (
            [random_bid(rng) for _ in range(4)]
            + [random_hand(rng) for _ in range(4)]
            + [DUDO, CALZA]
        )
        if legal:
            sampled += [legal[rng.randrange(len(legal))] for _ in range(3)]
        if full:
            items = list(legal)
            assert len(items) == len(legal)
            assert len(set(items)) == len(items)
            for action in items:
                assert game.reason(seat, action) is None, (seat, action)
            assert list(legal.bids) + list(legal.hands) + list(legal.calls) == items
            assert list(legal.any_bids) + list(legal.calls) == items
            if game.phase is Phase.BIDDING and seat == game.turn:
                # every bid named by the sampling box, refused or not, agrees too
                sampled += [Bid(q, f) for q in range(0, 36) for f in range(0, 8)]
                if game.poker:  # and every hand, with some that are none
                    sampled += [
                        *ALL_HANDS,
                        Hand("two_pair", (2, 5)),
                        Hand("pair", (True,)),
                        Hand("full_house", (3, 3)),
                        Hand("low_straight", (1,)),
                    ]
        for action in sampled:
            reason = game.reason(seat, action)
            assert (reason is None) == (action in legal), (seat, action, reason, legal)
        refused = [action for action in sampled if game.reason(seat, action) is not None]
        accepted = [action for action in sampled if game.reason(seat, action) is None]
        if refused and seat == tried:
            action = rng.choice(refused)
            before = snapshot(game)
            try:
                game.apply(seat, action)
            except IllegalAction as error:
                assert error.reason == game.reason(seat, action)
            else:
                raise AssertionError(f"apply accepted {action!r} for seat {seat}")
            assert snapshot(game) == before
        if accepted:
            twin = game.copy()
            twin.apply(seat, rng.choice(accepted))  # must not raise


@PROPERTY
@given(game_rules(), players, seeds, st.data())
def test_legal_actions_and_reason_agree(
    rules: Rules, players: int, seed: int, data: st.DataObject
) -> None:
    game, rng = new_game(rules, players, seed, **data.draw(mid_game_starts(rules, players)))
    check = random.Random(f"check {seed}")
    check_agreement(game, check, full=True)  # before the first roll: nothing is legal
    for step in random_play(game, rng):
        if game.phase is Phase.BIDDING:
            assert game.legal_actions(game.turn), "the seat to act must be able to act"
        check_agreement(game, check, full=step.seat is None or check.random() < 0.1)
    check_agreement(game, check, full=True)  # after the end: nothing is legal
    assert all(not game.legal_actions(seat) for seat in range(players))
