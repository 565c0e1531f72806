"""How the easy and normal bots play Common Hand (``bids: poker``).

Both see only their seat's view. The normal bot reasons with the exact odds of
:mod:`dudo.bots.poker` from its own cup; the easy bot with a rough, human feel for them.
Thresholds were chosen on arena seed 1000 (``--rules common-hand``) and are reported on
another seed in docs/benchmarks.md.
"""

from __future__ import annotations

import random
from collections import Counter

from dudo.bots.poker import odds_table
from dudo.game import DUDO, Action
from dudo.hands import Hand
from dudo.view import SeatView

# -- normal -----------------------------------------------------------------------------------

BELIEVE = 0.5
"""A raise it makes must hold at least this often (by its own odds)."""
DOUBT = 0.4
"""It calls a hand that holds less often than this by its own odds."""
FALLBACK = 1.0
"""With no believable raise, it calls when the standing hand is less likely than its best
raise times this."""
BLUFF = 0.05
"""How often it raises to a hand it does not believe (one of the next few, not hopeless)."""
OPEN = 0.7
"""It opens on the highest hand that holds at least this often by its own odds."""
TRUST = 0.5
"""The chance it gives that the standing hand, when another player bid it, is backed by
their cup: that they hold half the dice it names, rounded up (:func:`backing`)."""


def normal_poker_action(view: SeatView, rng: random.Random) -> Action | None:
    """A club player's Common Hand: the exact odds from its own cup, raise to the cheapest
    believable hand, call what is clearly unlikely, bluff now and then."""
    legal = view.legal
    if not view.my_turn or not legal:
        return None
    odds = trusted_odds(view)
    hands = list(legal.hands)
    standing = view.standing
    if not isinstance(standing, Hand):  # the opening bid
        solid = [hand for hand in hands if odds[hand] >= OPEN]
        if solid and rng.random() >= BLUFF:
            return solid[-1]
        return rng.choice(hands[:12]) if hands else legal[0]
    holds = odds[standing]
    if DUDO in legal and (holds < DOUBT or not hands):
        return DUDO
    if hands and rng.random() < BLUFF:
        near = [hand for hand in hands[:8] if odds[hand] >= 0.25]
        if near:
            return rng.choice(near)
    believable = [hand for hand in hands if odds[hand] >= BELIEVE]
    if believable:
        return believable[0]
    best = max(hands, key=lambda hand: odds[hand], default=None)
    if DUDO in legal and (best is None or holds < FALLBACK * odds[best]):
        return DUDO
    return best if best is not None else legal[0]


def backing(hand: Hand, dice: int) -> tuple[int, ...]:
    """The dice a bidder of ``hand`` holding ``dice`` dice is taken to show when the bid is
    honest: half of each named face's count, rounded up, at most ``dice`` in all."""
    shown: list[int] = []
    for face, k in hand.needs():
        shown.extend([face] * ((k + 1) // 2))
    return tuple(shown[:dice])


def trusted_odds(view: SeatView) -> dict[Hand, float]:
    """The odds of every hand from this seat's cup, mixed (by :data:`TRUST`) with the odds
    given that the standing bidder, if another player, holds :func:`backing` dice."""
    plain = odds_table(view.dice, view.dice_in_play)
    standing, bidder = view.standing, view.bidder
    if not isinstance(standing, Hand) or bidder is None or bidder == view.seat or TRUST <= 0:
        return plain
    shown = backing(standing, view.dice_counts[bidder])
    given = odds_table(view.dice + shown, view.dice_in_play)
    return {hand: (1 - TRUST) * plain[hand] + TRUST * given[hand] for hand in plain}


# -- easy -------------------------------------------------------------------------------------

FORGETS_SECOND_PART = 0.3
"""How often it judges a two pair or full house by its first part alone (as the easy
quantity bot forgets that ones are wild)."""


def easy_poker_action(view: SeatView, rng: random.Random) -> Action | None:
    """A beginner's Common Hand: it counts its own dice, guesses the rest roughly (it
    expects about one in six unseen dice of each face, give or take, and thinks straights
    come easier than they do), raises to the lowest hand that feels right, and calls when a
    hand feels too big, now and then too early."""
    legal = view.legal
    if not view.my_turn or not legal:
        return None
    unseen = view.dice_in_play - len(view.dice)
    share = unseen / 6 * rng.uniform(0.7, 1.4)
    shown = Counter(view.dice)
    forgets = rng.random() < FORGETS_SECOND_PART

    def feels(hand: Hand) -> float:
        """How many dice it believes short of the hand (negative: it believes a margin)."""
        needs = hand.needs()
        if len(needs) == 5:  # straights: "the others surely have what I am missing"
            missing = sum(1 for face, _ in needs if not shown[face])
            return missing - min(unseen, 4) * 0.8
        short = [max(0.0, k - shown[face] - share) for face, k in needs]
        if forgets:  # "full house 4s over 2s? I have the 4s": the second part forgotten
            short = short[:1]
        return sum(short) - 0.5

    hands = list(legal.hands)
    standing = view.standing
    if not isinstance(standing, Hand):
        liked = [hand for hand in hands if feels(hand) <= -0.2]
        pool = liked[-4:] if liked else hands[:6]
        return rng.choice(pool) if pool else legal[0]
    margin = feels(standing)
    nervous = rng.random() < 0.15
    if DUDO in legal and (margin > 0.6 or (nervous and margin > -0.2) or not hands):
        return DUDO
    for hand in hands[:20]:
        if feels(hand) <= 0.1:
            return hand
    if DUDO in legal and not standing.held_by(view.dice):  # never calls what it holds
        return DUDO
    return hands[0]


def own_odds(view: SeatView, hand: Hand) -> float:
    """P(``hand`` holds) from this seat's own cup alone (the exact odds)."""
    return odds_table(view.dice, view.dice_in_play)[hand]
