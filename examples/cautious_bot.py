"""An example of bringing your own bot to the arena.

A bot is any class with an ``act(view)`` method that returns one of ``view.legal`` (or
``None`` to let an out-of-turn calza go by). A ``name`` is optional: without one the bot is
named after its class (``CautiousBot``). Its constructor may take a ``seed`` (and
``budget_ms``, ``wait_for_solves``). Try it:

    dudo arena --players examples/cautious_bot.py:CautiousBot,normal --games 500

This one raises to the cheapest bid its own dice make likely, and calls "liar" otherwise.
"""

from __future__ import annotations

import random

from dudo.bots.base import bid_odds
from dudo.game import DUDO, Action
from dudo.view import SeatView


class CautiousBot:
    """Never bluffs: bids only what its own odds say holds at least 60% of the time."""

    def __init__(self, seed: int | None = None) -> None:
        self.name = "Cautious Carla"
        self.rng = random.Random(seed)

    def act(self, view: SeatView) -> Action | None:
        if not view.my_turn:
            return None  # never calls calza out of turn
        for bid in view.legal.any_bids[:40]:
            if bid_odds(view, bid) >= 0.6:
                return bid
        if DUDO in view.legal:
            return DUDO
        return view.legal.any_bids[0]
