"""The floor: a bot that picks uniformly among its legal actions."""

from __future__ import annotations

from dudo.bots.base import Persona, SeededBot
from dudo.game import Action
from dudo.view import SeatView


class RandomBot(SeededBot):
    """Uniform over the legal actions; never calls calza out of turn."""

    level = "random"
    personas = (Persona("Dice Monkey", "random", "Throws out whatever comes to mind."),)

    def act(self, view: SeatView) -> Action | None:
        if not view.my_turn:
            return None
        return self.rng.choice(view.legal)
