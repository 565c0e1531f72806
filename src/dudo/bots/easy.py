"""Easy: plays plausibly from its own dice, with clear, human mistakes.

It trusts its own cup too much, guesses the rest of the table roughly (sometimes
forgetting that ones are wild), raises by the smallest step on a face it likes, calls
"liar" when a bid feels too big, and now and then calls too early or too late.

In Common Hand (``bids: poker``) it plays as :mod:`dudo.bots.poker_play` describes.
"""

from __future__ import annotations

from dudo.bids import Bid
from dudo.bots.base import Persona, SeededBot, own_matches, quantity_bid
from dudo.bots.poker_play import easy_poker_action
from dudo.game import CALZA, DUDO, Action
from dudo.view import SeatView


class EasyBot(SeededBot):
    """A friendly beginner: readable, beatable, never absurd."""

    level = "easy"
    personas = (
        Persona(
            "Grandpa Tito",
            "easy",
            "Bids what he holds, and tells you with a wink.",
            {"de": "Opa Tito", "es": "Abuelo Tito"},
        ),
        Persona("Lucy", "easy", "New to the table and a bit too trusting."),
        Persona("Pablo", "easy", "Loves his own dice; suspicious of yours."),
        Persona("Nina", "easy", "Plays for the fun of the reveal."),
        Persona(
            "Uncle Bo",
            "easy",
            "Never met a six he did not like.",
            {"de": "Onkel Bo", "es": "Tío Bo"},
        ),
        Persona("Rosa", "easy", "Calls liar when she gets nervous."),
    )

    def act(self, view: SeatView) -> Action | None:
        if view.rules.bids == "poker":
            return easy_poker_action(view, self.rng)
        legal = view.legal
        if not view.my_turn:
            return None
        forgets_wilds = self.rng.random() < 0.3
        wild = view.wild and not forgets_wilds
        unseen = view.dice_in_play - len(view.dice)
        guess_share = (1 / 3 if wild else 1 / 6) * self.rng.uniform(0.7, 1.3)

        def feels_true(bid: Bid) -> float:
            """How many dice the bot believes there are, minus the bid."""
            have = own_matches(view.dice, bid.face, wild)
            return have + unseen * (guess_share if bid.face != 1 else 1 / 6) - bid.quantity

        standing = quantity_bid(view.standing)
        if standing is not None:
            margin = feels_true(standing)
            if CALZA in legal and abs(margin) < 0.3 and self.rng.random() < 0.15:
                return CALZA
            nervous = self.rng.random() < 0.15  # calls a bid that was fine
            if DUDO in legal and (margin < -0.5 or (nervous and margin < 1)):
                return DUDO
        bids = legal.bids
        if not bids:
            return DUDO
        # Favourite face: the one it holds most of (ties broken at random).
        faces = sorted(
            {bid.face for bid in bids},
            key=lambda face: (own_matches(view.dice, face, wild), self.rng.random()),
            reverse=True,
        )
        for face in faces[:2]:
            on_face = [bid for bid in bids[:60] if bid.face == face]
            if standing is None:
                # Opening: as many as it believes there are, a little shy of it.
                believable = [bid for bid in on_face if feels_true(bid) >= 0.5]
                if believable:
                    return believable[-1]
            for bid in on_face:
                if feels_true(bid) >= -1:
                    return bid
        if DUDO in legal:
            return DUDO
        return bids[0]
