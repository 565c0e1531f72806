"""Shared by the property tests: random valid rules, and random legal games.

A random game uses :class:`~dudo.dice.SeededDice` for the dice and a ``random.Random`` made
from the same seed for the players' choices, so a failing example replays exactly. The
players choose among ``legal_actions`` of the seat to act (mostly small raises); now and
then some seat that ``legal_actions`` offers CALZA (out of turn too, under ``any_time``)
calls it instead, more often when the standing bid is exact, so that exact calls (dice won
back) happen.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from hypothesis import assume
from hypothesis import strategies as st

from dudo.bids import Bid
from dudo.dice import SeededDice
from dudo.game import CALZA, Action, Event, Game, Phase
from dudo.hands import CATEGORIES, Hand
from dudo.rules import BIDS, FIRST_OPENER, FORMATS, ONES_BIDS, PRESETS, Rules, RulesError
from dudo.rules import CALZA as CALZA_MODES

MAX_ACTIONS = 5_000
"""Far more than any random game needs (the longest seen take a few hundred actions)."""


def option_values(
    *, max_starting_dice: int = 10, max_points_rounds: int = 100
) -> dict[str, st.SearchStrategy[Any]]:
    """A strategy for each option's valid values."""
    return {
        "starting_dice": st.integers(1, max_starting_dice),
        "wild_ones": st.booleans(),
        "ones_bids": st.sampled_from(ONES_BIDS),
        "cap_at_dice_in_play": st.booleans(),
        "calza": st.sampled_from(CALZA_MODES),
        "calza_min_players": st.integers(2, 10),
        "palifico": st.booleans(),
        "palifico_once_per_player": st.booleans(),
        "palifico_min_players": st.integers(2, 10),
        "palifico_open_on_ones": st.booleans(),
        "palifico_one_die_may_change_face": st.booleans(),
        "loss_by_difference": st.booleans(),
        "first_opener": st.sampled_from(FIRST_OPENER),
        "bids": st.sampled_from(BIDS),
        "format": st.sampled_from(FORMATS),
        "points_rounds": st.integers(1, max_points_rounds),
    }


def rules_json(**limits: int) -> st.SearchStrategy[dict[str, Any]]:
    """``{"preset": name, option: value, ...}`` with any subset of options overridden."""
    return st.builds(
        lambda name, overrides: {"preset": name, **overrides},
        st.sampled_from(list(PRESETS)),
        st.fixed_dictionaries({}, optional=option_values(**limits)),
    )


@st.composite
def valid_rules(draw: st.DrawFn, /, **limits: int) -> Rules:
    """Any preset plus random overrides; combinations the rules refuse are assumed away."""
    data = draw(rules_json(**limits))
    try:
        return Rules.from_json(data)
    except RulesError:
        assume(False)
        raise  # pragma: no cover - assume(False) does not return


def game_rules() -> st.SearchStrategy[Rules]:
    """Rules for whole random games: every option, points races kept short."""
    return valid_rules(max_points_rounds=25)


players = st.integers(2, 6)
seeds = st.integers(0, 2**32 - 1)


def new_game(rules: Rules, players: int, seed: int, **start: Any) -> tuple[Game, random.Random]:
    """A game on seeded dice (``start``: Game's keywords for a game that starts mid-way),
    and the generator for the players' choices."""
    return (Game(rules, players, dice=SeededDice(seed), **start), random.Random(f"choices {seed}"))


@st.composite
def mid_game_starts(draw: st.DrawFn, /, rules: Rules, players: int) -> dict[str, Any]:
    """Keywords for a game that starts mid-way, as scenario files and records allow: any
    dice counts (elimination; at least two seats with dice), opener, points and palifico
    history. Sometimes empty: a fresh game."""
    if draw(st.booleans()):
        return {}
    start: dict[str, Any] = {}
    if rules.format == "elimination":
        counts = draw(
            st.lists(
                st.integers(0, rules.starting_dice), min_size=players, max_size=players
            ).filter(lambda c: sum(map(bool, c)) >= 2)
        )
        start["dice_counts"] = counts
    else:
        counts = [rules.starting_dice] * players
    if draw(st.booleans()):
        start["opener"] = draw(st.sampled_from([s for s, c in enumerate(counts) if c]))
    if draw(st.booleans()):
        start["points"] = draw(st.lists(st.integers(0, 20), min_size=players, max_size=players))
    start["palifico_used"] = sorted(draw(st.sets(st.integers(0, players - 1))))
    return start


def choose_action(game: Game, rng: random.Random) -> tuple[int, Action]:
    """A random legal action: usually the seat to act, sometimes a calza by anyone allowed."""
    standing = game.standing
    if standing is not None and game.calza_allowed():
        exact = game.count(standing.face) == standing.quantity
        if rng.random() < (0.5 if exact else 0.08):
            callers = [seat for seat in range(game.players) if CALZA in game.legal_actions(seat)]
            if callers:
                return rng.choice(callers), CALZA
    seat = game.turn
    legal = game.legal_actions(seat)
    assert legal, f"the seat to act has no legal action: {game!r}"
    if legal.calls and rng.random() < 0.3:
        return seat, rng.choice(legal.calls)
    bids = legal.bids
    if bids and rng.random() < 0.7:
        # mostly small raises, as people make them, so that bids stay near the true count
        return seat, bids[rng.randrange(min(len(bids), 8))]
    return seat, rng.choice(legal)


@dataclass(frozen=True)
class Step:
    """One step of a random game: a roll (``seat`` and ``action`` None) or an action."""

    seat: int | None
    action: Action | None
    events: tuple[Event, ...]
    counts_before: tuple[int, ...]


def random_play(game: Game, rng: random.Random, limit: int = MAX_ACTIONS) -> Iterator[Step]:
    """Play ``game`` to its end, yielding after every roll and every accepted action.

    Fails if the game has not ended after ``limit`` actions.
    """
    for _ in range(limit):
        if game.is_over:
            return
        before = tuple(game.dice_counts)
        if game.phase is Phase.ROLL:
            game.roll()
            yield Step(None, None, (), before)
            continue
        seat, action = choose_action(game, rng)
        events = game.apply(seat, action)
        yield Step(seat, action, tuple(events), before)
    raise AssertionError(f"the game did not end within {limit} steps: {game!r}")


def snapshot(game: Game) -> dict[str, Any]:
    """Everything observable about a game's state, copied (the record as JSON text)."""
    return {
        "record": json.dumps(game.record()),
        "dice_counts": list(game.dice_counts),
        "points": list(game.points),
        "palifico_used": sorted(game.palifico_used),
        "phase": game.phase,
        "round_number": game.round_number,
        "opener": game.opener,
        "palifico": game.palifico,
        "wild": game.wild,
        "turn": game.turn,
        "standing": game.standing,
        "bidder": game.bidder,
        "bids": list(game.bids),
        "cups": game.cups,
        "last_reveal": game.last_reveal,
        "winners": game.winners,
        "legal": [repr(game.legal_actions(seat)) for seat in range(game.players)],
    }


def random_hand(rng: random.Random) -> Hand:
    """Any hand-shaped bid, categories and faces 0..7 in any number: valid and not."""
    category = rng.choice([*CATEGORIES, "flush", ""])
    return Hand(category, tuple(rng.randint(0, 7) for _ in range(rng.randint(0, 2))))


def random_bid(rng: random.Random) -> Bid:
    """Any bid with quantity 0..35 and face 0..7: legal, illegal and malformed alike."""
    return Bid(rng.randint(0, 35), rng.randint(0, 7))
