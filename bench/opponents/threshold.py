"""Two public threshold bots, ported as arena opponents.

Both decide from their own cup and the binomial odds of the unseen dice; neither reads the
other players' bids. They are kept here (not in ``dudo.bots``) so the hard bot is measured
against play it was never built from.

``TwoThresholdBot``
    Port of ``DeterministicV2Agent`` (personality ``OPTIMAL``) from the public repository
    ``tanayvenkata/liars-dice`` (``agents/deterministic_agent.py`` and
    ``game/prompts_v2.py``), whose README reports it beat 77 of 80 threshold settings in a
    32.4-million-game tournament. Its rule: weigh the three likeliest of the raises "one
    more of the standing face" and "the standing quantity of a higher face"; if the best
    holds at least 15% of the time, raise to it; else if the standing bid holds less than
    35% of the time, call; else raise to it anyway. It opens on the face it holds most of, at
    the number it holds.

``HeuristicBot``
    Port of ``HeuristicAgent`` from the public repository ``MartynasJonkus/liars-dice``
    (``liars_dice/agents/baseline_heuristic.py``): call when the standing bid holds less than
    25% of the time, else raise to the cheapest bid that holds at least 55% of the time,
    else call. It opens on its best face 2..6 at about the expected count.

What changed in the port, and only because our rules differ: the originals count only the
one opponent of a heads-up game (the first) or assume wild ones (the second); here both
count every unseen die at the table and use this table's wildness (a one counts for every
other face while ones are wild; not in a palifico round or in the ``no-wilds`` preset).
Where a bid the original would make is not legal under this table's ones rule (Perudo's
halving order, no ones on the opening bid, a palifico round's locked face), the port takes
the cheapest legal bid on the same face, then the cheapest legal bid. Neither calls calza.
"""

from __future__ import annotations

import random
from math import comb

from dudo.bids import Bid
from dudo.game import DUDO, Action
from dudo.view import SeatView


def _at_least(needed: int, unseen: int, chance: float) -> float:
    """P(X >= needed), X ~ Binomial(unseen, chance): the originals' ``binom_tail_geq``."""
    if needed <= 0:
        return 1.0
    if needed > unseen:
        return 0.0
    return sum(
        comb(unseen, k) * chance**k * (1 - chance) ** (unseen - k)
        for k in range(needed, unseen + 1)
    )


def _mine(view: SeatView, face: int) -> int:
    wild = view.wild and face != 1
    return sum(1 for die in view.dice if die == face or (wild and die == 1))


def _holds(view: SeatView, bid: Bid) -> float:
    """P(bid holds) from this seat's own dice, every other die unseen."""
    unseen = view.dice_in_play - len(view.dice)
    chance = 1 / 3 if view.wild and bid.face != 1 else 1 / 6
    return _at_least(bid.quantity - _mine(view, bid.face), unseen, chance)


def _legal_near(view: SeatView, wanted: Bid) -> Bid:
    """``wanted`` if it is legal, else the cheapest legal bid on its face, else the cheapest."""
    bids = view.legal.bids
    if wanted in view.legal:
        return wanted
    same_face = [bid for bid in bids if bid.face == wanted.face and bid.quantity >= wanted.quantity]
    if same_face:
        return same_face[0]
    same_face = [bid for bid in bids if bid.face == wanted.face]
    return same_face[0] if same_face else bids[0]


class TwoThresholdBot:
    """tanayvenkata/liars-dice ``DeterministicV2Agent``: call below 35%, raise at 15%."""

    CALL_THRESHOLD = 0.35
    SAFE_RAISE_THRESHOLD = 0.15

    def __init__(self, seed: int | None = None) -> None:
        self.name = "two-threshold"
        self.rng = random.Random(seed)  # unused: the original has no randomness

    def act(self, view: SeatView) -> Action | None:
        if not view.my_turn:
            return None
        standing = view.standing
        if standing is None:
            return self._open(view)
        options = self._raise_options(view, standing)
        if not options:
            return DUDO  # "No valid raise options - must call"
        best_probability, best = options[0]
        if best_probability >= self.SAFE_RAISE_THRESHOLD:
            return best
        if DUDO in view.legal and _holds(view, standing) < self.CALL_THRESHOLD:
            return DUDO
        return best

    def _raise_options(self, view: SeatView, standing: Bid) -> list[tuple[float, Bid]]:
        """``get_raise_options``: one more of the face, or the same quantity of a higher
        face; sorted by probability (stable), the top three, over-cap bids dropped."""
        wanted = [Bid(standing.quantity + 1, standing.face)]
        wanted += [Bid(standing.quantity, face) for face in range(standing.face + 1, 7)]
        options = [
            (_holds(view, bid), bid)
            for bid in wanted
            if bid in view.legal and bid.quantity <= view.dice_in_play
        ]
        options.sort(key=lambda option: -option[0])
        return options[:3]

    def _open(self, view: SeatView) -> Bid:
        """Bid what it has most of (the first such face), as many as it has."""
        faces = sorted({bid.face for bid in view.legal.bids})
        best_face = max(faces, key=lambda face: _mine(view, face))
        return _legal_near(view, Bid(max(1, _mine(view, best_face)), best_face))


class HeuristicBot:
    """MartynasJonkus/liars-dice ``HeuristicAgent``: call below 25%, raise at 55%."""

    LIAR_THRESHOLD = 0.25
    RAISE_MIN_PROB = 0.55
    AGGRESSION = 0.0

    def __init__(self, seed: int | None = None) -> None:
        self.name = "heuristic"
        self.rng = random.Random(seed)  # unused: the original has no randomness

    def act(self, view: SeatView) -> Action | None:
        if not view.my_turn:
            return None
        standing = view.standing
        if standing is None:
            return self._open(view)
        if _holds(view, standing) < self.LIAR_THRESHOLD:
            return DUDO
        for bid in view.legal.bids:
            if _holds(view, bid) >= self.RAISE_MIN_PROB:
                return bid
        return DUDO

    def _open(self, view: SeatView) -> Bid:
        faces = [
            face for face in range(2, 7) if any(bid.face == face for bid in view.legal.bids)
        ] or [1]
        best_face = faces[0]
        best_support = -1
        for face in faces:
            support = _mine(view, face)
            if support > best_support:
                best_support, best_face = support, face
        unseen = view.dice_in_play - len(view.dice)
        chance = 1 / 3 if view.wild and best_face != 1 else 1 / 6
        quantity = max(1, int(best_support + max(0.0, unseen * chance - 0.5) + self.AGGRESSION))
        quantity = min(quantity, view.dice_in_play)
        return _legal_near(view, Bid(quantity, best_face))
