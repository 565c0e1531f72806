"""A strong Bayesian opponent of our own, written for the hard bot to beat (issue 11).

It is deliberately *not* the hard bot: it shares no code with ``dudo.bots.hard`` and follows
the standard design of a Bayesian Liar's Dice player. Its few parameters were set (on arena
seed 1000) to beat the hard bot as it was before issue 11 and the public two-threshold bot,
never by playing the hard bot it is now measured against: it beats the old hard bot about
57% of the time and the two-threshold bot about 60%, much like the Bayesian bot of the
issue (which beat the old hard bot 59.8%).

Belief
    For every opponent, a probability over every hand they could hold (a multiset of their
    dice), starting from fair dice and updated by Bayes on each of their bids this round.
    The likelihood of a bid reads its *quantity*, from the bidder's side: among the
    cheapest raises open to them, a bidder picks by a softmax of how likely each holds
    given their own cup (``CHOICE``), so a hand that makes the bid likely becomes likelier;
    a share ``BLUFF`` of bids is picked at random among those raises.
Decision
    The chance the standing bid holds is the belief's count distribution (own dice exact,
    every opponent's hand from its posterior). It calls "dudo" when that chance is below
    one half; otherwise it raises to the cheapest bid within 5 points of its likeliest
    raise. It opens on the face it holds most of, as high as holds 75% of the time.
"""

from __future__ import annotations

import math
import random
from functools import cache
from itertools import combinations_with_replacement

import numpy as np

from dudo.bids import Bid
from dudo.game import DUDO, Action
from dudo.view import SeatView

BLUFF = 0.1
"""Share of bids assumed to carry no information about the bidder's hand."""
CHOICE = 8.0
"""How sharply a bidder is assumed to prefer the options that look true from their cup."""
OPTIONS = 20
"""How many of the cheapest raises a bidder is assumed to choose among."""
BELIEVE = 0.5
OPEN = 0.75
CANDIDATES = 40
SLACK = 0.05
"""It raises to the cheapest bid within this much of its likeliest bid's chance."""


@cache
def _hands(dice: int) -> tuple[np.ndarray, np.ndarray]:
    """Every hand of ``dice`` dice as face counts (columns faces 1..6) and its chance."""
    rows, chances = [], []
    for hand in combinations_with_replacement(range(6), dice):
        counts = [hand.count(face) for face in range(6)]
        ways = math.factorial(dice)
        for count in counts:
            ways //= math.factorial(count)
        rows.append(counts)
        chances.append(ways / 6**dice)
    return np.array(rows, dtype=np.int64).reshape(-1, 6), np.array(chances)


@cache
def _matching(dice: int, wild: bool) -> np.ndarray:
    counts, _ = _hands(dice)
    if not wild:
        return counts
    matching = counts.copy()
    matching[:, 1:] += counts[:, :1]
    return matching


@cache
def _tails(unseen: int, chance: float) -> np.ndarray:
    """``tails[k]`` = P(at least k of ``unseen`` dice match); k past ``unseen`` gives 0."""
    exact = np.array(
        [math.comb(unseen, k) * chance**k * (1 - chance) ** (unseen - k) for k in range(unseen + 1)]
    )
    tails = np.cumsum(exact[::-1])[::-1]
    return np.minimum(np.concatenate([tails, [0.0]]), 1.0)


class BayesBot:
    """Exact posterior over each opponent's hand from their bids' quantities; plays the odds."""

    def __init__(self, seed: int | None = None) -> None:
        self.name = "bayes"
        self.rng = random.Random(seed)

    def act(self, view: SeatView) -> Action | None:
        if not view.my_turn:
            return None
        posteriors = self._posteriors(view)
        cache_: dict[tuple[int, bool], np.ndarray] = {}
        wild_now = view.wild

        def holds(bid: Bid) -> float:
            wild = wild_now and not (view.rules.ones_bids == "lock" and bid.face == 1)
            key = (bid.face, wild)
            if key not in cache_:
                cache_[key] = self._count_tail(view, posteriors, bid.face, wild)
            tail = cache_[key]
            return float(tail[min(bid.quantity, len(tail) - 1)])

        bids = list(view.legal.bids[:CANDIDATES])
        standing = view.standing
        if standing is None:
            return self._open(view, bids, holds)
        chances = [holds(bid) for bid in bids]
        best = max(chances, default=0.0)
        p_standing = holds(standing)
        if DUDO in view.legal and (not bids or p_standing < BELIEVE):
            return DUDO
        near = [bid for bid, chance in zip(bids, chances, strict=True) if chance >= best - SLACK]
        return near[0]

    def _open(self, view: SeatView, bids: list[Bid], holds) -> Bid:  # type: ignore[no-untyped-def]
        faces = sorted({bid.face for bid in bids})

        def mine(face: int) -> int:
            wild = view.wild and face != 1
            return sum(1 for die in view.dice if die == face or (wild and die == 1))

        face = max(faces, key=lambda f: (mine(f), self.rng.random()))
        on_face = [bid for bid in bids if bid.face == face]
        solid = [bid for bid in on_face if holds(bid) >= OPEN]
        return solid[-1] if solid else on_face[0]

    # -- belief --------------------------------------------------------------------------

    def _posteriors(self, view: SeatView) -> dict[int, np.ndarray]:
        posteriors = {
            seat: _hands(count)[1].copy()
            for seat, count in enumerate(view.dice_counts)
            if count and seat != view.seat
        }
        wild = view.rules.wild_ones and not view.palifico  # as the round started
        total = view.dice_in_play
        standing: Bid | None = None
        for seat, bid in view.bids:
            if seat in posteriors:
                options = self._options(view, standing, seat)
                if bid not in options:
                    options.append(bid)
                dice = view.dice_counts[seat]
                tails3 = _tails(total - dice, 1 / 3)
                tails6 = _tails(total - dice, 1 / 6)
                support = np.empty((len(posteriors[seat]), len(options)))
                for column, option in enumerate(options):
                    counts_wild = wild and option.face != 1
                    held = _matching(dice, counts_wild)[:, option.face - 1]
                    tails = tails3 if counts_wild else tails6
                    need = np.clip(option.quantity - held, 0, len(tails) - 1)
                    support[:, column] = tails[need]
                scores = np.exp(CHOICE * support)
                chosen = scores[:, options.index(bid)] / scores.sum(axis=1)
                likely = BLUFF / len(options) + (1 - BLUFF) * chosen
                weights = posteriors[seat] * likely
                posteriors[seat] = weights / weights.sum()
            standing = bid
            if bid.face == 1 and view.rules.ones_bids == "lock":
                wild = False
        return posteriors

    @staticmethod
    def _options(view: SeatView, standing: Bid | None, seat: int) -> list[Bid]:
        """The bids ``seat`` could have made over ``standing`` (the cheapest ones)."""
        from dudo.bids import Order, ladder, quantity_limits

        rules = view.rules
        face_limit, ones_limit = quantity_limits(view.dice_in_play, rules.cap_at_dice_in_play)
        if standing is None:
            order = (
                Order.NO_ONES
                if rules.ones_bids in ("never", "halve") and not view.palifico
                else Order.PLAIN
                if rules.ones_bids != "never"
                else Order.NO_ONES
            )
            steps = ladder(order, face_limit, ones_limit)
            return list(steps[:OPTIONS])
        if view.palifico:
            order = Order.NO_ONES if rules.ones_bids == "never" else Order.PLAIN
            steps = ladder(order, face_limit, ones_limit)
            column = steps.column(standing.face)
            return list(column[standing.quantity : standing.quantity + OPTIONS // 5])
        order = {"never": Order.NO_ONES, "halve": Order.HALVE}.get(rules.ones_bids, Order.PLAIN)
        steps = ladder(order, face_limit, ones_limit)
        start = steps.above(standing)
        return list(steps[start : start + OPTIONS])

    def _count_tail(
        self, view: SeatView, posteriors: dict[int, np.ndarray], face: int, wild: bool
    ) -> np.ndarray:
        counts_wild = wild and face != 1
        own = sum(1 for die in view.dice if die == face or (counts_wild and die == 1))
        total = np.zeros(own + 1)
        total[own] = 1.0
        for seat, weights in posteriors.items():
            held = _matching(view.dice_counts[seat], counts_wild)[:, face - 1]
            total = np.convolve(total, np.bincount(held, weights=weights))
        tail = np.cumsum(total[::-1])[::-1]
        return np.concatenate([tail, [0.0]])
