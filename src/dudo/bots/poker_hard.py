"""How the hard bot plays Common Hand (``bids: poker``): the quantity game's method, for hands.

1. **A belief over each opponent's cup, read from their bids.** For every opponent it keeps
   a probability over every cup they could hold (multisets of their dice), from the dice's
   own odds, updated by Bayes on each of their bids this round. The bidder model: among the
   next :data:`OPTIONS` hands on the ladder, an honest bidder picks a cheap one that their
   own cup makes likely (a logistic in its exact odds from their cup, around
   :data:`HONEST_AT`, falling off with the distance up the ladder); a share of bids
   (:data:`BLUFF`, learned per opponent) are bluffs, mostly cheap raises. So "full house 4s
   over 2s" over a pair of 5s says "I hold 4s or 2s", and a cup that makes it hopeless
   becomes unlikely.
2. **The chance of losing a die, option by option.** Calling loses when the standing hand
   holds, by the belief. A raise loses when the next player calls it and it is false, or
   they raise and we lose later. For every cup the next player might hold, it weighs
   "they call" (from how likely the raise looks to *them*) against "it holds given that cup"
   (the rest of the table by the belief), as the quantity game does. The hand's odds over
   several cups are exact: each cup is reduced to the hand's *state* (how many of each named
   face, capped, see :class:`~dudo.bots.poker.HandStates`) and the states of independent
   cups are convolved. It never calls a hand its own dice already contain.
3. **It learns each opponent** from the reveals: when they call (the :class:`Profile` of
   the quantity game, fitted to the exact odds their cup gave the hand they faced) and how
   often they bluff.
4. **Mixed play**: a softmax over those chances.

It sees only its seat's view. Parameters were chosen on arena seed 1000 against the normal
bot (``--rules common-hand``); docs/benchmarks.md reports them on another seed.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import combinations_with_replacement

import numpy as np
from numpy.typing import NDArray

from dudo.bots.poker import hand_states, view_odds
from dudo.game import DUDO, Action, Revealed
from dudo.hands import Hand, HandLadder, hand_ladder
from dudo.rules import Rules
from dudo.view import SeatView

Weights = NDArray[np.float64]
FaceCounts = NDArray[np.int64]

OPTIONS = 16
"""How many of the cheapest raises a bidder is assumed to choose among."""
HONEST_AT = 0.5
"""An honest bidder's pick: about as likely as not for a hand that holds this often from
their cup."""
HONEST_SHARPNESS = 10.0
"""How sharply an honest bidder prefers hands their cup makes likely."""
HONEST_SPREAD = 4.0
"""An honest bidder prefers cheap raises: weight falls by ``e`` every this many steps."""
OPEN_SPREAD = 30.0
"""The same for an opening bid, which may be any hand: openers often open high."""
BLUFF = 0.15
"""The share of bids assumed to say nothing about the bidder's cup (learned per opponent)."""
BLUFF_SPREAD = 3.0
"""A bluff is mostly a cheap raise (weight falls by ``e`` every this many steps)."""
BLUFF_PRIOR = 10.0
"""Learning the share of bluffs starts from :data:`BLUFF` as if it had seen this many bids."""
CALL_AT = 0.35
"""The next player calls about as often as not a hand that holds with this chance from
their cup (learned per opponent)."""
CALL_SHARPNESS = 10.0
LATER_HEADS_UP = (0.25, 0.20)
"""When the next player raises instead of calling, the chance we still lose the die this
round: ``base + slope * P(our raise was true)`` heads-up."""
LATER_TABLE = (0.12, 0.10)
"""The same at a table of three or more."""
TEMPERATURE = 0.02
"""Softmax temperature over the chances of losing."""


@cache
def cups(dice: int) -> tuple[FaceCounts, Weights]:
    """Every cup of ``dice`` dice as face counts (rows, columns faces 1..6) and its chance."""
    rows, chances = [], []
    for cup in combinations_with_replacement(range(6), dice):
        counts = [0] * 6
        for face in cup:
            counts[face] += 1
        ways = math.factorial(dice)
        for count in counts:
            ways //= math.factorial(count)
        rows.append(counts)
        chances.append(ways / 6**dice)
    return np.array(rows, dtype=np.int64).reshape(-1, 6), np.array(chances)


@cache
def cup_states(hand: Hand, dice: int) -> NDArray[np.int64]:
    """The state of ``hand`` shown by each cup of :func:`cups` (``dice`` dice)."""
    return hand_states(hand).of_counts(cups(dice)[0])


@lru_cache(maxsize=1024)  # bounded: a long-lived server meets many (dice, unseen) pairs
def cup_sureness(hand: Hand, dice: int, unseen: int) -> Weights:
    """For each cup of ``dice`` dice: P(``hand`` holds) as its owner sees it, ``unseen``
    other dice unknown (the exact odds)."""
    return hand_states(hand).unknown_chances(unseen)[cup_states(hand, dice)]


@dataclass
class Profile:
    """What the reveals showed of one opponent: where they call, and how often they bluff
    (fitted as the quantity game's :class:`dudo.bots.hard.Profile`)."""

    call_at: float = CALL_AT
    bluff: float = BLUFF
    decisions: int = 0
    bids: int = 0

    def saw_decision(self, sureness: float, called: bool) -> None:
        self.decisions += 1
        chance = 1 / (1 + math.exp(CALL_SHARPNESS * (sureness - self.call_at)))
        step = 1.5 / (self.decisions + 10)
        self.call_at = min(0.8, max(0.05, self.call_at + step * (float(called) - chance)))

    def saw_bid(self, honest: float, bluffed: float) -> None:
        honest_part = (1 - self.bluff) * honest
        bluff_part = self.bluff * bluffed
        total = honest_part + bluff_part
        responsibility = bluff_part / total if total > 0 else self.bluff
        self.bids += 1
        self.bluff += (responsibility - self.bluff) / (self.bids + BLUFF_PRIOR)
        self.bluff = min(0.6, max(0.02, self.bluff))


def _ladder(rules: Rules, dice_in_play: int) -> HandLadder:
    return hand_ladder(dice_in_play if rules.cap_at_dice_in_play else None)


def bid_likelihood(
    rules: Rules,
    dice_counts: Sequence[int],
    seat: int,
    hand: Hand,
    standing: Hand | None,
    bluff: float,
) -> tuple[Weights, Weights]:
    """For every cup ``seat`` might hold: the bidder model's chance of ``hand`` as an
    honest pick, and as a bluff (the two parts of the belief's Bayes update)."""
    in_play = sum(dice_counts)
    dice = dice_counts[seat]
    ladder = _ladder(rules, in_play)
    start = 0 if standing is None else ladder.above(standing)
    options = list(ladder[start:]) if standing is None else list(ladder[start : start + OPTIONS])
    if hand not in options:
        options.append(hand)
    spread = OPEN_SPREAD if standing is None else HONEST_SPREAD
    unseen = in_play - dice
    scores = np.array([cup_sureness(option, dice, unseen) for option in options])
    scores = 1 / (1 + np.exp(-HONEST_SHARPNESS * (scores - HONEST_AT)))
    scores *= np.exp(-np.arange(len(options)) / spread)[:, None]
    honest = scores[options.index(hand)] / scores.sum(axis=0)
    distance = options.index(hand)
    bluffed = math.exp(-distance / BLUFF_SPREAD) * (1 - math.exp(-1 / BLUFF_SPREAD))
    return honest, np.full_like(honest, bluffed)


class PokerBelief:
    """What the bot infers about every opponent's cup from this round's hands."""

    def __init__(self, view: SeatView, profiles: dict[int, Profile]) -> None:
        assert view.seat is not None
        self.view = view
        self.profiles = profiles
        self.weights: dict[int, Weights] = {
            seat: cups(count)[1].copy()
            for seat, count in enumerate(view.dice_counts)
            if seat != view.seat and count
        }
        self._read = 0
        self._standing: Hand | None = None
        self.extend(view)

    def same_round(self, view: SeatView) -> bool:
        old = self.view
        return (
            view.seat == old.seat
            and view.round_number == old.round_number
            and view.dice == old.dice
            and view.dice_counts == old.dice_counts
            and len(view.bids) >= self._read
            and view.bids[: self._read] == old.bids[: self._read]
        )

    def extend(self, view: SeatView) -> None:
        """Read the bids of ``view`` not read yet."""
        self.view = view
        for seat, bid in view.bids[self._read :]:
            assert isinstance(bid, Hand)
            if seat in self.weights:
                profile = self.profiles.get(seat)
                honest, bluffed = bid_likelihood(
                    view.rules,
                    view.dice_counts,
                    seat,
                    bid,
                    self._standing,
                    profile.bluff if profile else BLUFF,
                )
                bluff = profile.bluff if profile else BLUFF
                posterior = self.weights[seat] * ((1 - bluff) * honest + bluff * bluffed)
                total = posterior.sum()
                if total > 0:
                    self.weights[seat] = posterior / total
            self._standing = bid
        self._read = len(view.bids)

    def states(self, hand: Hand, skip: int | None = None) -> Weights:
        """The distribution of ``hand``'s state over all cups (ours included), the cup of
        seat ``skip`` left out."""
        table = hand_states(hand)
        total = table.point(table.of_dice(self.view.dice))
        for seat, weights in self.weights.items():
            if seat != skip:
                dice = self.view.dice_counts[seat]
                part = np.bincount(
                    cup_states(hand, dice), weights=weights, minlength=table.size
                ).astype(np.float64)
                total = table.combine(total, part)
        return total

    def holds(self, hand: Hand) -> float:
        return float(self.states(hand)[hand_states(hand).full])


class PokerPlayer:
    """The hard bot's Common Hand play, with what it keeps from round to round."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.profiles: dict[int, Profile] = {}
        self._seen_reveal: Revealed | None = None
        self._belief: PokerBelief | None = None

    def act(self, view: SeatView) -> Action | None:
        self._learn(view)
        legal = view.legal
        if not view.my_turn or not legal:
            return None
        assert view.seat is not None
        belief = self._belief
        if belief is not None and belief.same_round(view):
            belief.extend(view)
        else:
            belief = self._belief = PokerBelief(view, self.profiles)
        options: list[Action] = []
        losses: list[float] = []
        standing = view.standing
        hands = list(legal.hands)
        if (
            isinstance(standing, Hand)
            and DUDO in legal
            and (not standing.held_by(view.dice) or not hands)
        ):
            # never call a hand our own dice already contain
            options.append(DUDO)
            losses.append(belief.holds(standing))
        if hands:
            options.extend(hands)
            losses.extend(self._raise_losses(view, hands, belief))
        best = min(losses)
        weights = [math.exp((best - loss) / TEMPERATURE) for loss in losses]
        return self.rng.choices(options, weights=weights)[0]

    def _raise_losses(self, view: SeatView, hands: list[Hand], belief: PokerBelief) -> list[float]:
        """For each raise, the chance it costs us a die (see the module docstring)."""
        assert view.seat is not None
        alive = [seat for seat, count in enumerate(view.dice_counts) if count]
        after = min((seat for seat in alive if seat > view.seat), default=alive[0])
        base, slope = LATER_HEADS_UP if len(alive) == 2 else LATER_TABLE
        their_dice = view.dice_counts[after]
        weights = belief.weights[after]
        profile = self.profiles.get(after)
        call_at = profile.call_at if profile else CALL_AT
        unseen_by_them = view.dice_in_play - their_dice
        losses = []
        for hand in hands:
            table = hand_states(hand)
            rest = belief.states(hand, skip=after)
            theirs = cup_states(hand, their_dice)
            true = (rest @ table.holds_with)[theirs]  # P(it holds | their cup)
            seen = table.unknown_chances(unseen_by_them)[theirs]  # how it looks to them
            called = 1 / (1 + np.exp(CALL_SHARPNESS * (seen - call_at)))
            later = base + slope * true
            losses.append(float(weights @ (called * (1 - true) + (1 - called) * later)))
        return losses

    def _learn(self, view: SeatView) -> None:
        """Fit each opponent's calls and bluffs to the cups the last reveal showed."""
        reveal = view.last_reveal
        # Equal, not the same object: a view rebuilt from JSON (a remote bot) carries a new
        # copy of the same reveal at every decision, and it must be learnt from once.
        if reveal is None or reveal == self._seen_reveal or view.seat is None:
            return
        self._seen_reveal = reveal
        counts = tuple(len(cup) for cup in reveal.cups)
        in_play = sum(counts)
        standing: Hand | None = None
        for seat, bid in reveal.bids:
            if not isinstance(bid, Hand):
                return
            cup = reveal.cups[seat]
            if seat != view.seat and cup:
                profile = self.profiles.setdefault(seat, Profile())
                honest, bluffed = bid_likelihood(
                    view.rules, counts, seat, bid, standing, profile.bluff
                )
                row = _cup_row(cup)
                profile.saw_bid(float(honest[row]), float(bluffed[row]))
                if standing is not None:
                    profile.saw_decision(view_odds(standing, cup, in_play), called=False)
            standing = bid
        caller = reveal.caller
        if (
            caller != view.seat
            and reveal.call is DUDO
            and reveal.cups[caller]
            and isinstance(reveal.bid, Hand)
        ):
            profile = self.profiles.setdefault(caller, Profile())
            profile.saw_decision(view_odds(reveal.bid, reveal.cups[caller], in_play), called=True)


def _cup_row(cup: Sequence[int]) -> int:
    """The row of :func:`cups` that is ``cup``."""
    counts = [0] * 6
    for die in cup:
        counts[die - 1] += 1
    rows = cups(len(cup))[0]
    return int(np.flatnonzero((rows == np.array(counts)).all(axis=1))[0])
