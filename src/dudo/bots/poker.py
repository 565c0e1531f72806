"""The odds of Common Hand (``bids: poker``): how likely the dice under all cups contain a hand.

A hand is a list of needs, "at least ``k`` dice showing ``F``" for one to five faces
(:meth:`~dudo.hands.Hand.needs`). A seat knows its own cup; every other die is unknown, and
unknown dice are independent and uniform on 1..6. What the unknown dice must still supply is
the *remaining need*: ``k - own`` of each named face, where positive. The chance is exact:

- for hands naming one or two faces (pairs, two pair, three, full house, four, five), a
  multinomial sum: with ``m`` faces still needed, ``r_i`` of face ``i`` and ``n`` unknown dice,

      P = sum over a_i >= r_i, a = sum a_i <= n of
              n! / (a_1! ... a_m! (n - a)!) (6 - m)^(n - a) / 6^n

  computed in whole numbers (the ways to place ``a_1`` dice of the first face among the
  ``n``, then ``a_2`` of the second among the rest ...), so no rounding but the last division;
- for the straights, which need one each of their faces still missing from the cup, by
  inclusion-exclusion over the missing faces: with ``j`` of them missing,
  ``P = sum_{i=0..j} (-1)^i C(j, i) ((6 - i) / 6)^n``.

By symmetry the chance depends only on the remaining needs as a multiset and on ``n``, so
:func:`remaining_chance` is memoized by exactly that. ``tests/bots/test_bots_poker.py`` checks
both forms against brute-force enumeration of every roll.

The hard bot reasons over *states* of a hand rather than single rolls: for a hand needing
``k_i`` of face ``F_i``, a state is how many of each named face some dice show, each capped
at ``k_i`` (so a pair has 3 states, a straight 32). A cup maps to a state, states of
disjoint sets of dice add (and cap), and the hand holds when the state is full.
:class:`HandStates` holds those tables.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from math import comb

import numpy as np
from numpy.typing import NDArray

from dudo.hands import ALL_HANDS, Hand

Weights = NDArray[np.float64]
Indexes = NDArray[np.int64]


# -- exact odds ------------------------------------------------------------------------------


@cache
def remaining_chance(remaining: tuple[int, ...], unknown: int) -> float:
    """P(``unknown`` uniform dice show at least ``remaining[i]`` of ``i``-th of
    ``len(remaining)`` distinct faces), all at once. Zeros are needs already met.

    Call it with the needs sorted (largest first) to share the memo; any order gives
    the same answer."""
    needs = tuple(sorted((r for r in remaining if r > 0), reverse=True))
    if needs != remaining:
        return remaining_chance(needs, unknown)
    if not needs:
        return 1.0
    if sum(needs) > unknown:
        return 0.0
    if all(r == 1 for r in needs):
        return straight_chance(len(needs), unknown)
    return _multinomial_chance(needs, unknown)


def _multinomial_chance(needs: tuple[int, ...], unknown: int) -> float:
    """The multinomial sum of the module's docstring, in whole numbers."""
    ways = {0: 1}  # dice placed on the named faces so far -> the ways to place them
    for need in needs:
        nxt: dict[int, int] = {}
        for placed, count in ways.items():
            for a in range(need, unknown - placed + 1):
                nxt[placed + a] = nxt.get(placed + a, 0) + count * comb(unknown - placed, a)
        ways = nxt
    others = 6 - len(needs)
    total = sum(count * others ** (unknown - placed) for placed, count in ways.items())
    return float(total) / float(6**unknown)


@cache
def straight_chance(missing: int, unknown: int) -> float:
    """P(``unknown`` uniform dice show each of ``missing`` given faces at least once), by
    inclusion-exclusion over the faces that might be absent."""
    if missing <= 0:
        return 1.0
    if missing > unknown:
        return 0.0
    total = sum(
        (1 - 2 * (i % 2)) * comb(missing, i) * (6 - i) ** unknown for i in range(missing + 1)
    )
    return float(total) / float(6**unknown)


def remaining_needs(hand: Hand, own: Iterable[int]) -> tuple[int, ...]:
    """What the unknown dice must still show for ``hand`` given ``own`` dice, as the sorted
    multiset of counts still missing per named face (the memo key of the odds)."""
    shown = Counter(own)
    return tuple(sorted((max(0, k - shown[face]) for face, k in hand.needs()), reverse=True))


def hand_odds(hand: Hand, own: Iterable[int], unknown: int) -> float:
    """P(the dice under all cups contain ``hand``), knowing ``own`` dice and with
    ``unknown`` other dice, each uniform on 1..6 (exact)."""
    return remaining_chance(remaining_needs(hand, own), unknown)


def view_odds(hand: Hand, dice: Sequence[int], dice_in_play: int) -> float:
    """:func:`hand_odds` from one seat: its ``dice`` and every other die in play unknown."""
    return hand_odds(hand, dice, dice_in_play - len(dice))


# -- states of a hand (for beliefs over other cups) -----------------------------------------


class HandStates:
    """The states of one hand and how they combine (see the module docstring).

    ``faces`` and ``caps`` are the hand's needs; a state is a mixed-radix number over the
    capped counts; ``full`` is the state in which the hand holds; ``add[s, t]`` is the
    state of two disjoint sets of dice in states ``s`` and ``t``."""

    def __init__(self, hand: Hand) -> None:
        needs = hand.needs()
        self.hand = hand
        self.faces = np.array([face - 1 for face, _ in needs], dtype=np.int64)
        self.caps = np.array([k for _, k in needs], dtype=np.int64)
        radix = np.ones(len(needs), dtype=np.int64)
        for i in range(1, len(needs)):
            radix[i] = radix[i - 1] * (self.caps[i - 1] + 1)
        self.radix = radix
        self.size = int(np.prod(self.caps + 1))
        self.full = int((self.caps * radix).sum())
        digits = (np.arange(self.size)[:, None] // radix[None, :]) % (self.caps + 1)[None, :]
        self.digits: Indexes = digits  # (states, faces): the capped count of each face
        summed = np.minimum(digits[:, None, :] + digits[None, :, :], self.caps)
        self.add: Indexes = (summed * radix).sum(axis=2)
        self.holds_with: NDArray[np.bool_] = self.add == self.full  # (s, t): s + t is full

    def of_counts(self, counts: Indexes) -> Indexes:
        """The state of each row of face counts (rows x 6, columns faces 1..6)."""
        return np.asarray((np.minimum(counts[:, self.faces], self.caps) * self.radix).sum(axis=1))

    def of_dice(self, dice: Iterable[int]) -> int:
        shown = Counter(dice)
        return int(
            sum(
                min(shown[int(face) + 1], int(cap)) * int(r)
                for face, cap, r in zip(self.faces, self.caps, self.radix, strict=True)
            )
        )

    def combine(self, left: Weights, right: Weights) -> Weights:
        """The distribution of the state of two independent sets of dice."""
        out = np.zeros(self.size)
        np.add.at(out, self.add.ravel(), np.outer(left, right).ravel())
        return out

    def point(self, state: int) -> Weights:
        out = np.zeros(self.size)
        out[state] = 1.0
        return out

    def distribution(self, counts: Indexes, weights: Weights) -> Weights:
        """The distribution of the state of a cup whose rows ``counts`` have ``weights``."""
        return np.bincount(self.of_counts(counts), weights=weights, minlength=self.size).astype(
            np.float64
        )

    def unknown_chances(self, unknown: int) -> Weights:
        """For each state of the known dice, P(the hand holds once ``unknown`` more uniform
        dice are added): the exact odds, per state."""
        return _unknown_chances(self.hand, unknown)


@cache
def hand_states(hand: Hand) -> HandStates:
    return HandStates(hand)


@cache
def _unknown_chances(hand: Hand, unknown: int) -> Weights:
    states = hand_states(hand)
    remaining = np.maximum(states.caps[None, :] - states.digits, 0)
    return np.array(
        [remaining_chance(tuple(sorted(map(int, row), reverse=True)), unknown) for row in remaining]
    )


@lru_cache(maxsize=4096)  # bounded: one entry per sorted cup and number of unknown dice
def all_odds(dice: tuple[int, ...], unknown: int) -> dict[Hand, float]:
    """:func:`hand_odds` of every hand at once (cached per sorted cup)."""
    return {hand: hand_odds(hand, dice, unknown) for hand in ALL_HANDS}


def odds_table(dice: Sequence[int], dice_in_play: int) -> dict[Hand, float]:
    """The odds of every hand from a seat holding ``dice`` with ``dice_in_play`` in all."""
    return all_odds(tuple(sorted(dice)), dice_in_play - len(dice))
