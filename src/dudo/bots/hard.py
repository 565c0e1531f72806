"""Hard: reads the table, weighs every option by expected value, and cannot be read.

Three things set it apart from the normal bot:

1. **A belief over each opponent's dice.** For every opponent it keeps a probability over
   all hands that player could hold (multisets of their dice), starts from the dice's own
   odds and updates by Bayes on each of their bids this round, under a simple model of how
   people bid: a player names a face they hold more often than one they do not (a softmax
   over how many dice of each face the hand shows), except when bluffing.
2. **Expected value.** Calling is worth the chance the bid fails minus the chance it holds.
   A raise is worth what happens if the next player calls it (we lose if it is false) plus
   what happens if they do not: the less room our raise leaves above it, the worse for
   them. The next player's inclination to call is estimated from their side: the odds the
   raise looks true to each hand they might hold.
3. **Mixed play.** It picks by a softmax over those values, so equal options are played
   unpredictably and near-equal ones are still mixed. In heads-up endgames covered by the
   shipped CFR strategy (``dudo.bots.endgame``) it plays that equilibrium strategy instead.

It sees only its seat's view: the bids are public, the belief is its own inference.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from itertools import combinations_with_replacement

import numpy as np
from numpy.typing import NDArray

from dudo.bids import Bid
from dudo.bots.base import Persona, SeededBot
from dudo.bots.endgame import endgame_policy
from dudo.game import CALZA, DUDO, Action
from dudo.view import SeatView

FaceCounts = NDArray[np.int64]
Weights = NDArray[np.float64]

FACE_PREFERENCE = 0.9
"""How strongly a bidder is assumed to name faces they hold (softmax inverse temperature)."""
BLUFF_RATE = 0.2
"""The share of bids assumed to say nothing about the bidder's hand."""
TEMPERATURE = 0.04
"""Softmax temperature over expected values: lower plays more greedily."""
CALL_SHARPNESS = 9.0
"""How sharply the next player's inclination to call rises as a raise looks unlikely."""
CANDIDATES = 40
"""How many of the cheapest legal raises are weighed."""


@cache
def hands(dice: int) -> tuple[FaceCounts, Weights]:
    """Every hand of ``dice`` dice as face counts (rows, columns faces 1..6), with its
    probability under fair dice."""
    rows = []
    probabilities = []
    for hand in combinations_with_replacement(range(6), dice):
        counts = [0] * 6
        for face in hand:
            counts[face] += 1
        ways = math.factorial(dice)
        for count in counts:
            ways //= math.factorial(count)
        rows.append(counts)
        probabilities.append(ways / 6**dice)
    return np.array(rows, dtype=np.int64).reshape(-1, 6), np.array(probabilities)


@cache
def matches(dice: int, wild: bool) -> FaceCounts:
    """For every hand of ``dice`` dice, how many count for each face (columns 1..6)."""
    counts, _ = hands(dice)
    if not wild:
        return counts
    result = counts.copy()
    result[:, 1:] += counts[:, :1]
    return result


@cache
def _tail_table(unseen: int, chance: float) -> Weights:
    """``table[k]`` = P(at least k of ``unseen`` dice match), for k = 0..unseen + 1."""
    exact = np.array([math.comb(unseen, k) * chance**k * (1 - chance) ** (unseen - k)
                      for k in range(unseen + 1)])
    tail: Weights = np.minimum(np.concatenate([np.cumsum(exact[::-1])[::-1], [0.0]]), 1.0)
    return tail


class Belief:
    """What the bot infers about every opponent's hand from the bids of this round."""

    def __init__(self, view: SeatView) -> None:
        assert view.seat is not None
        self.view = view
        self.weights: dict[int, Weights] = {}
        wild_at_start = view.rules.wild_ones and not view.palifico
        for seat, count in enumerate(view.dice_counts):
            if seat != view.seat and count:
                self.weights[seat] = hands(count)[1].copy()
        wild = wild_at_start
        for seat, bid in view.bids:
            if seat in self.weights:
                self._update(seat, bid, wild)
            if bid.face == 1 and view.rules.ones_bids == "lock":
                wild = False

    def _update(self, seat: int, bid: Bid, wild: bool) -> None:
        """Bayes: weight each hand by the chance a player holding it names this face."""
        held = matches(self.view.dice_counts[seat], wild)
        preference = np.exp(FACE_PREFERENCE * held)
        chance_of_face = preference[:, bid.face - 1] / preference.sum(axis=1)
        posterior = self.weights[seat] * (BLUFF_RATE / 6 + (1 - BLUFF_RATE) * chance_of_face)
        self.weights[seat] = posterior / posterior.sum()

    def count_distribution(self, face: int, wild: bool) -> Weights:
        """P(total count for ``face`` under all cups = k), our own dice included."""
        own = sum(1 for die in self.view.dice if die == face or (wild and die == 1 and face != 1))
        total = np.zeros(own + 1)
        total[own] = 1.0
        for seat, weights in self.weights.items():
            counted = matches(self.view.dice_counts[seat], wild)[:, face - 1]
            distribution = np.bincount(counted, weights=weights)
            total = np.convolve(total, distribution)
        return total


class HardBot(SeededBot):
    """Infers hands from bids, plays by expected value, mixes its play."""

    level = "hard"
    personas = (
        Persona("La Condesa", "hard", "Remembers every bid you made, and why you made it."),
        Persona("Viktor", "hard", "Cold, patient and impossible to read."),
        Persona("Dr. Okafor", "hard", "Plays the odds, then plays you."),
        Persona("El Capitán", "hard", "Sailed the Andes ports; lost only to the sea."),
        Persona("Mei", "hard", "Reads every raise like a confession."),
        Persona("The Professor", "hard", "Has a table of probabilities and a poker face."),
    )

    def act(self, view: SeatView) -> Action | None:
        legal = view.legal
        if not legal:
            return None
        endgame = endgame_policy(view)
        if endgame:
            actions = list(endgame)
            return self.rng.choices(actions, weights=[endgame[a] for a in actions])[0]
        belief = Belief(view)
        tails: dict[int, Weights] = {}

        def holds(bid: Bid) -> float:
            """P(at least bid.quantity dice count for bid.face) under the belief."""
            wild = view.wild and not (bid.face == 1 and view.rules.ones_bids == "lock")
            if bid.face not in tails:
                distribution = belief.count_distribution(bid.face, wild)
                tails[bid.face] = np.concatenate(
                    [np.cumsum(distribution[::-1])[::-1], [0.0]])
            tail = tails[bid.face]
            return float(tail[min(bid.quantity, len(tail) - 1)])

        standing = view.standing
        options: list[Action] = []
        values: list[float] = []
        if standing is not None and CALZA in legal:
            exact = holds(standing) - holds(Bid(standing.quantity + 1, standing.face))
            options.append(CALZA)
            values.append(exact * self._calza_gain(view) - (1 - exact))
        if not view.my_turn:
            if values and values[0] > 0.1:
                return CALZA
            return None
        if standing is not None and DUDO in legal:
            options.append(DUDO)
            values.append(1 - 2 * holds(standing))
        bids = list(legal.bids[:CANDIDATES])
        if bids:
            values.extend(self._raise_values(view, bids, holds, belief))
            options.extend(bids)
        best = max(values)
        scaled = [math.exp((value - best) / TEMPERATURE) for value in values]
        return self.rng.choices(options, weights=scaled)[0]

    @staticmethod
    def _calza_gain(view: SeatView) -> float:
        """What an exact calza is worth, in dice: one die back below the cap, else little."""
        assert view.seat is not None
        if view.rules.format == "points":
            return 0.0
        return 1.0 if view.dice_counts[view.seat] < view.rules.starting_dice else 0.1

    def _raise_values(self, view: SeatView, bids: list[Bid], holds: Callable[[Bid], float],
                      belief: Belief) -> list[float]:
        """Expected value of each raise: called (we lose if it is false) or passed on."""
        assert view.seat is not None
        alive = [seat for seat, count in enumerate(view.dice_counts) if count]
        next_seat = min((seat for seat in alive if seat > view.seat), default=alive[0])
        heads_up = len(alive) == 2
        pressure_weight = 0.7 if heads_up else 0.35
        their_dice = view.dice_counts[next_seat]
        unseen_by_them = view.dice_in_play - their_dice
        their_weights = belief.weights.get(next_seat)
        truth = [holds(bid) for bid in bids]
        values = []
        for index, bid in enumerate(bids):
            called = self._call_chance(view, bid, their_dice, unseen_by_them, their_weights)
            # The best the next player could say after us, judged by the real count.
            room = max(truth[index + 1:index + 12], default=0.0)
            if_called = 2 * truth[index] - 1
            if_passed = pressure_weight * (1 - 2 * room)
            values.append(called * if_called + (1 - called) * if_passed)
        return values

    @staticmethod
    def _call_chance(view: SeatView, bid: Bid, their_dice: int, unseen_by_them: int,
                     their_weights: Weights | None) -> float:
        """How likely the next player calls ``bid``, from what their hands would tell them."""
        if their_weights is None:
            return 0.5
        wild = view.wild and bid.face != 1
        held = matches(their_dice, wild)[:, bid.face - 1]
        tail = _tail_table(unseen_by_them, 1 / 3 if wild else 1 / 6)
        needed = np.clip(bid.quantity - held, 0, len(tail) - 1)
        looks_true = tail[needed]
        inclination = 1 / (1 + np.exp(CALL_SHARPNESS * (looks_true - 0.5)))
        return float(np.dot(their_weights, inclination))
