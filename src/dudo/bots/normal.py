"""Normal: reasons with the binomial odds of a bid given its own dice.

It knows its own cup and treats every other die as unseen: one in three counts for a face
while ones are wild, one in six otherwise. It raises to the cheapest bid it believes, calls
"liar" only on a bid that is clearly unlikely (below 15% by its odds, or below even odds when
it has nothing better to say), opens only as high as its own cup makes very likely, calls
calza when the exact count is likely, and bluffs now and then so it cannot be read at once.
It ignores what the other players' bids reveal: that is the hard bot's edge.

Issue 11 measured the earlier rule (call whenever the bid was less likely than its best
raise) losing to a public two-threshold bot: it called too often. With these thresholds,
chosen on arena seed 1000, it wins that match (docs/benchmarks.md).
"""

from __future__ import annotations

from dudo.bids import Bid
from dudo.bots.base import Persona, SeededBot, bid_odds, exact_odds, own_matches
from dudo.game import CALZA, DUDO, Action
from dudo.view import SeatView

BELIEVE = 0.5
"""A raise it makes must hold at least this often (by its own odds)."""
DOUBT = 0.15
"""It calls a bid that holds less often than this (by its own odds), or one that holds less
often than not when it has no raise of at least these odds either."""
FALLBACK = 1.0
"""With no believable raise, it calls when the bid is less likely than its best raise
times this."""
BLUFF = 0.12
"""How often it says something it does not believe."""
OPEN = 0.85
"""It opens as high on its best face as holds at least this often."""
CANDIDATES = 48
"""How far up the ladder it looks: higher bids are never the cheapest believable one."""


class NormalBot(SeededBot):
    """A solid club player who counts odds but does not read people."""

    level = "normal"
    personas = (
        Persona("Marisol", "normal", "Counts the odds and sticks to them."),
        Persona("Henrik", "normal", "Steady, patient, bluffs when you least expect it."),
        Persona("Ana", "normal", "Quick to call a bid that is too proud."),
        Persona("Tomás", "normal", "Knows a third of the unseen dice are his friends."),
        Persona("Ingrid", "normal", "Never bids what she cannot count."),
        Persona("Kofi", "normal", "Reliable, careful, and hard to rattle."),
    )

    def act(self, view: SeatView) -> Action | None:
        legal = view.legal
        standing = view.standing
        if not view.my_turn:
            if CALZA in legal and standing is not None and exact_odds(view, standing) > 0.4:
                return CALZA
            return None
        bids = legal.bids[:CANDIDATES]
        if standing is None:
            return self._open(view, list(bids))
        holds = bid_odds(view, standing)
        if CALZA in legal and exact_odds(view, standing) > max(0.33, 1 - holds):
            return CALZA
        believable = [bid for bid in bids if bid_odds(view, bid) >= BELIEVE]
        best = max((bid_odds(view, bid) for bid in bids), default=0.0)
        if DUDO in legal and (holds < DOUBT or (holds < BELIEVE and best < DOUBT)):
            return DUDO
        if bids and self.rng.random() < BLUFF:
            near = [bid for bid in bids[:12] if bid_odds(view, bid) >= 0.25]
            if near:
                return self.rng.choice(near)
        if believable:
            return believable[0]
        if DUDO in legal and holds < FALLBACK * best:
            return DUDO
        if bids:
            return max(bids, key=lambda bid: bid_odds(view, bid))
        return DUDO

    def _open(self, view: SeatView, bids: list[Bid]) -> Action:
        """Open on the face it holds most of, at about the expected count."""
        faces = {bid.face for bid in bids}
        if self.rng.random() < BLUFF:
            face = self.rng.choice(sorted(faces))
        else:
            face = max(sorted(faces), key=lambda f: (own_matches(view.dice, f, view.wild),
                                                    self.rng.random()))
        on_face = [bid for bid in bids if bid.face == face]
        solid = [bid for bid in on_face if bid_odds(view, bid) >= OPEN]
        return solid[-1] if solid else on_face[0]
