"""The one interface every bot has, and the odds that most of them reason with.

A bot sees exactly what a human in its seat sees: the :class:`~dudo.view.SeatView` made by
the engine's one view function. It never receives the game itself, so it cannot look under
other cups. It answers with one of the view's legal actions, or ``None`` to let a chance
to call calza out of turn go by (only allowed when it is not the bot's turn).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from math import comb
from typing import Protocol, overload, runtime_checkable

from dudo.bids import Bid
from dudo.game import DUDO, Action, AnyBid
from dudo.hands import Hand
from dudo.view import SeatView


@runtime_checkable
class Bot(Protocol):
    """Anything that can sit in a seat: ``act`` maps a view to one of its legal actions."""

    name: str

    def act(self, view: SeatView) -> Action | None:
        """The action to take; ``None`` only when it is not this seat's turn (no call)."""
        ...


@dataclass(frozen=True, slots=True)
class Persona:
    """A bot's face at the table: a name and a line about how it plays. ``names`` holds
    the name's forms in other languages where the English one would not read naturally
    ("Onkel Bo" at a German table); a plain first name is the same everywhere."""

    name: str
    level: str
    personality: str
    names: Mapping[str, str] = field(default_factory=dict, compare=False)

    def name_in(self, lang: str) -> str:
        """The name as a table in ``lang`` (en, de, es) reads it."""
        return self.names.get(lang, self.name)


class SeededBot:
    """Base for the project's bots: a name and a private, seeded random generator."""

    level = "custom"
    personas: tuple[Persona, ...] = ()

    def __init__(self, seed: int | None = None, name: str | None = None) -> None:
        self.rng = random.Random(seed)
        persona = self.rng.choice(self.personas) if self.personas else None
        self.persona = persona
        self.name = name or (persona.name if persona else type(self).__name__)

    @property
    def personality(self) -> str:
        return self.persona.personality if self.persona else ""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


# -- poker bids (Common Hand) -------------------------------------------------------------


class QuantityBidsOnly(TypeError):
    """A hand reached code that reasons about quantity bids only."""


@overload
def quantity_bid(bid: AnyBid) -> Bid: ...
@overload
def quantity_bid(bid: AnyBid | None) -> Bid | None: ...
def quantity_bid(bid: AnyBid | None) -> Bid | None:
    """``bid`` itself, checked to be a quantity bid: the odds below know no poker hands."""
    if isinstance(bid, Hand):
        raise QuantityBidsOnly(
            f"{bid.words()!r} is a poker hand: this code reasons about "
            "quantity bids only (rules with bids: quantity)"
        )
    return bid


def simple_poker_action(view: SeatView) -> Action | None:
    """A plain way through Common Hand for bots that reason about quantities only: bid the
    lowest legal hand this seat's own dice already contain, else the lowest legal hand to
    open, else call dudo. Never an action outside ``view.legal``."""
    legal = view.legal
    if not view.my_turn or not legal:
        return None
    hands = legal.hands
    for hand in hands:
        if hand.held_by(view.dice):
            return hand
    if view.standing is None and hands:
        return hands[0]
    if DUDO in legal:
        return DUDO
    return legal[0]


# -- odds --------------------------------------------------------------------------------


def match_chance(face: int, wild: bool) -> float:
    """The chance that one unseen die counts for ``face``."""
    return 1 / 3 if wild and face != 1 else 1 / 6


def own_matches(dice: tuple[int, ...], face: int, wild: bool) -> int:
    """How many of ``dice`` count for ``face``."""
    return sum(1 for die in dice if die == face or (wild and die == 1 and face != 1))


@cache
def at_least(needed: int, unseen: int, chance: float) -> float:
    """P(at least ``needed`` of ``unseen`` dice match), each with probability ``chance``."""
    if needed <= 0:
        return 1.0
    if needed > unseen:
        return 0.0
    miss = 1 - chance
    return sum(
        comb(unseen, k) * chance**k * miss ** (unseen - k) for k in range(needed, unseen + 1)
    )


@cache
def exactly(needed: int, unseen: int, chance: float) -> float:
    """P(exactly ``needed`` of ``unseen`` dice match)."""
    if needed < 0 or needed > unseen:
        return 0.0
    return comb(unseen, needed) * chance**needed * (1 - chance) ** (unseen - needed)


def bid_odds(view: SeatView, bid: AnyBid) -> float:
    """P(``bid`` holds) from this seat's own dice alone, the others' dice unseen.

    A poker hand (Common Hand) gets its own odds (:func:`dudo.bots.poker.view_odds`), so a
    plug-in bot written with this helper plays every rule set, as the example bot does."""
    if isinstance(bid, Hand):
        from dudo.bots.poker import view_odds  # numpy's odds tables: only when hands are bid

        return view_odds(bid, view.dice, view.dice_in_play)
    unseen = view.dice_in_play - len(view.dice)
    have = own_matches(view.dice, bid.face, view.wild)
    return at_least(bid.quantity - have, unseen, match_chance(bid.face, view.wild))


def exact_odds(view: SeatView, bid: Bid) -> float:
    """P(the count is exactly ``bid``'s quantity) from this seat's own dice alone."""
    unseen = view.dice_in_play - len(view.dice)
    have = own_matches(view.dice, bid.face, view.wild)
    return exactly(bid.quantity - have, unseen, match_chance(bid.face, view.wild))
