"""Bids and the orders in which they may be raised.

A bid is a quantity and a face ("four 5s"). Whether one bid beats another depends on
the table's ones rule, so every order is expressed as an integer *rank*: a bid is a raise
exactly when its rank is higher. Three orders exist:

- ``plain``: a higher quantity, or the same quantity on a higher face; ones are the lowest
  face. Used by the ``plain`` and ``lock`` ones rules and inside palifico rounds.
- ``no_ones``: the plain order over faces 2..6 only (ones may never be bid, or may not be
  bid right now, as in a Perudo opening).
- ``halve``: Perudo's order, in which "n ones" sits between every bid of quantity ``2n``
  and every bid of quantity ``2n + 1``. That single placement reproduces both rules of
  the published sheets: to ones at least half the quantity rounded up, and back from ones
  at least double plus one.

A :class:`Ladder` lists, in rank order, every bid of one order that fits under the round's
quantity limits (:func:`quantity_limits`: one for the faces 2..6, one for ones). Legal
raises are then a ``range`` of ladder positions, so listing them costs nothing and choosing
one is an index.

>>> Bid.parse("4 5s")
Bid.parse('4x5')
>>> halve_rank(Bid(6, 1)) > halve_rank(Bid(11, 3))
True
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cache
from typing import overload

from dudo.printable import clipped

FACES = (1, 2, 3, 4, 5, 6)

_NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
}
_FACE_WORDS = {
    "one": 1,
    "ones": 1,
    "ace": 1,
    "aces": 1,
    "two": 2,
    "twos": 2,
    "deuce": 2,
    "deuces": 2,
    "three": 3,
    "threes": 3,
    "trey": 3,
    "treys": 3,
    "four": 4,
    "fours": 4,
    "five": 5,
    "fives": 5,
    "six": 6,
    "sixes": 6,
}
_BID_PATTERN = re.compile(
    r"^\s*(?P<quantity>[a-z]+|\d+)\s*(?:x|\*|×|\s)\s*(?P<face>[a-z]+|\d+?)(?:'?s)?\s*$"
)


class BadBidText(ValueError):
    """Raised by :meth:`Bid.parse` for text that does not name a bid."""


@dataclass(frozen=True, slots=True)
class Bid:
    """A claim that at least ``quantity`` dice under all cups show ``face``.

    A bid is a plain value: it does not know whether it is legal anywhere. ``str`` gives the
    compact notation ``4x5``; ``repr`` pastes back as code.
    """

    quantity: int
    face: int

    @classmethod
    def parse(cls, text: str) -> Bid:
        """Read a bid the way people type it: ``4x5``, ``4 5s``, ``4 5``, ``four 5s``, ``4*5``.

        >>> Bid.parse("three aces")
        Bid.parse('3x1')
        """
        match = _BID_PATTERN.match(text.lower())
        if match is None:
            raise BadBidText(f"not a bid: {clipped(text)!r} (write it like '4x5' or '4 5s')")
        quantity = _read_number(match["quantity"], _NUMBER_WORDS)
        face = _read_number(match["face"], _FACE_WORDS)
        if quantity is None or face is None:
            raise BadBidText(f"not a bid: {clipped(text)!r} (write it like '4x5' or '4 5s')")
        return cls(quantity, face)

    def __str__(self) -> str:
        return f"{self.quantity}x{self.face}"

    def __repr__(self) -> str:
        quantity, face = self.quantity, self.face
        if type(quantity) is int and type(face) is int and quantity >= 0 and face >= 0:
            return f"Bid.parse('{self}')"
        return f"Bid({self.quantity!r}, {self.face!r})"  # no text form: paste the constructor

    def words(self) -> str:
        """The bid in words, as a player says it: ``four 5s``, ``one 6``, ``three aces``."""
        quantity = _WORDS_BY_NUMBER.get(self.quantity, str(self.quantity))
        if self.face == 1:
            name = "ace" if self.quantity == 1 else "aces"
        else:
            name = f"{self.face}" if self.quantity == 1 else f"{self.face}s"
        return f"{quantity} {name}"


_WORDS_BY_NUMBER = {number: word for word, number in _NUMBER_WORDS.items()}


def _read_number(token: str, words: dict[str, int]) -> int | None:
    if token.isdigit():
        try:
            return int(token)
        except ValueError:  # more digits than Python reads (sys.get_int_max_str_digits)
            return None
    return words.get(token)


class Order(Enum):
    """The order in which bids are raised; see the module docstring."""

    PLAIN = "plain"
    NO_ONES = "no_ones"
    HALVE = "halve"


def plain_rank(bid: Bid) -> int:
    """Rank under the plain order, ones being the lowest face."""
    return (bid.quantity - 1) * 6 + (bid.face - 1)


def no_ones_rank(bid: Bid) -> int:
    """Rank under the plain order over faces 2..6 (meaningless for a bid on ones)."""
    return (bid.quantity - 1) * 5 + (bid.face - 2)


def halve_rank(bid: Bid) -> int:
    """Rank under Perudo's order: ``n`` ones between quantities ``2n`` and ``2n + 1``."""
    if bid.face == 1:
        return 11 * (bid.quantity - 1) + 10
    pair, second = divmod(bid.quantity - 1, 2)
    return 11 * pair + 5 * second + (bid.face - 2)


RANK: dict[Order, Callable[[Bid], int]] = {
    Order.PLAIN: plain_rank,
    Order.NO_ONES: no_ones_rank,
    Order.HALVE: halve_rank,
}


def quantity_limits(dice_in_play: int, capped: bool) -> tuple[int, int]:
    """The most dice a bid may name, as ``(of a face 2..6, of ones)`` (RULES.md).

    Under ``cap_at_dice_in_play`` both are the dice in play. Without it a bid may overstate
    the table, but only so far: twice the dice in play plus one of a face 2..6, and the
    dice in play of ones. The first bound keeps every ladder finite; the second makes every
    ones bid answerable, since leaving ``n`` ones for a face takes ``2n + 1`` of it, which
    then always fits under the first. (A single bound of ``2n + 1`` for both let "four
    ones" stand with three dice in play, while "nine 5s", the only way back, was refused.)

    >>> quantity_limits(3, capped=False)
    (7, 3)
    """
    if capped:
        return dice_in_play, dice_in_play
    return 2 * dice_in_play + 1, dice_in_play


class Ladder(Sequence[Bid]):
    """Every bid of one order within the quantity limits, lowest first.

    ``limit`` bounds the quantity of a face 2..6 and ``ones_limit`` that of ones (see
    :func:`quantity_limits`; ``0`` on the ``no_ones`` ladder). Ladders are cached and
    shared (see :func:`ladder`), so the :class:`Bid` objects in them are allocated once;
    ``index`` maps a bid to its position in constant time.
    """

    __slots__ = ("_bids", "_columns", "limit", "ones_limit", "order", "positions", "rank")

    def __init__(self, order: Order, limit: int, ones_limit: int) -> None:
        self.order = order
        self.limit = limit
        self.ones_limit = ones_limit
        self.rank = RANK[order]
        faces = (2, 3, 4, 5, 6) if order is Order.NO_ONES else FACES
        bids = [
            Bid(quantity, face)
            for quantity in range(1, limit + 1)
            for face in faces
            if face != 1 or quantity <= ones_limit
        ]
        bids.sort(key=self.rank)
        self._bids: tuple[Bid, ...] = tuple(bids)
        self.positions: dict[Bid, int] = {bid: i for i, bid in enumerate(bids)}
        """Position of each bid of the ladder (the fast form of :meth:`index`)."""
        # Within one face every order ranks by quantity, so each column is in rank order.
        self._columns: dict[int, tuple[Bid, ...]] = {
            face: tuple(bid for bid in bids if bid.face == face) for face in faces
        }

    def column(self, face: int) -> tuple[Bid, ...]:
        """The ladder's bids on ``face``, by quantity: ``column(face)[q - 1]`` is ``q`` of it.

        A palifico round raises along one face. When the ladder holds fewer ones than bids
        on each other face, one face's bids are not evenly spaced along it, so each face's
        bids are also kept on their own.
        """
        return self._columns.get(face, ())

    @overload
    def __getitem__(self, position: int) -> Bid: ...
    @overload
    def __getitem__(self, position: slice) -> Sequence[Bid]: ...
    def __getitem__(self, position: int | slice) -> Bid | Sequence[Bid]:
        return self._bids[position]

    def __len__(self) -> int:
        return len(self._bids)

    def __iter__(self) -> Iterator[Bid]:
        return iter(self._bids)

    def __contains__(self, bid: object) -> bool:
        return bid in self.positions

    def index(self, bid: object, start: int = 0, stop: int | None = None) -> int:
        """Position of ``bid`` in the ladder; ``ValueError`` if it is not on it."""
        try:
            position = self.positions[bid]  # type: ignore[index]
        except (KeyError, TypeError):
            raise ValueError(f"{bid!r} is not on the {self.order.value} ladder") from None
        if position < start or (stop is not None and position >= stop):
            raise ValueError(f"{bid!r} is not in the given part of the ladder")
        return position

    def above(self, bid: Bid) -> int:
        """Position of the first ladder bid that raises ``bid`` (``bid`` need not be on it)."""
        rank = self.rank(bid)
        low, high = 0, len(self._bids)
        while low < high:
            middle = (low + high) // 2
            if self.rank(self._bids[middle]) <= rank:
                low = middle + 1
            else:
                high = middle
        return low

    def __repr__(self) -> str:
        return f"ladder({self.order}, limit={self.limit}, ones_limit={self.ones_limit})"


def ladder(order: Order, limit: int, ones_limit: int | None = None) -> Ladder:
    """The shared ladder of ``order`` up to quantity ``limit`` (``ones_limit`` for ones,
    by default the same)."""
    if order is Order.NO_ONES:
        ones_limit = 0
    elif ones_limit is None or ones_limit > limit:
        ones_limit = limit
    return _shared_ladder(order, limit, ones_limit)


@cache
def _shared_ladder(order: Order, limit: int, ones_limit: int) -> Ladder:
    return Ladder(order, limit, ones_limit)
