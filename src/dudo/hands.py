"""Poker hands: the bids of Common Hand (``bids: poker``, RULES.md "Common Hand").

A :class:`Hand` claims that the dice under all cups together contain a poker hand, such as
"full house 4s over 2s" (three 4s and two 2s). Like :class:`~dudo.bids.Bid` it is a plain
value that does not know whether it is legal anywhere: ``Hand("pair", (9,))`` can be built,
and the game refuses it as ``bad_bid``. Valid hands are exactly the 71 of :data:`ALL_HANDS`,
listed lowest first, so a hand's *rank* is its position there and a raise is a higher rank.

>>> Hand.parse("full house 4s over 2s")
Hand('full_house', (4, 2))
>>> Hand.parse("two pair 2s and 5s").words()
'two pair 5s and 2s'
>>> hand_rank(Hand("three", (2,))) > hand_rank(Hand("two_pair", (6, 5)))
True
>>> Hand("low_straight").to_json()
{'hand': 'low_straight'}
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from reprlib import repr as _shown  # a value quoted in an error message, cut short
from typing import Any, Final, overload

from dudo.bids import BadBidText
from dudo.printable import clipped

CATEGORIES: Final = (
    "pair",
    "two_pair",
    "three",
    "low_straight",
    "high_straight",
    "full_house",
    "four",
    "five",
)
"""The hand categories, lowest first (RULES.md's table)."""

FACE_COUNTS: Final[dict[str, int]] = {
    "pair": 1,
    "two_pair": 2,
    "three": 1,
    "low_straight": 0,
    "high_straight": 0,
    "full_house": 2,
    "four": 1,
    "five": 1,
}
"""How many faces each category names."""

_OF_A_KIND: Final = {"pair": 2, "three": 3, "four": 4, "five": 5}
_STRAIGHTS: Final = {"low_straight": (1, 2, 3, 4, 5), "high_straight": (2, 3, 4, 5, 6)}


class BadHandText(BadBidText):
    """Raised by :meth:`Hand.parse` and :meth:`Hand.from_json` for what names no hand."""


@dataclass(frozen=True, slots=True)
class Hand:
    """A poker-hand bid: a ``category`` of :data:`CATEGORIES` and its ``faces``.

    ``faces`` is ``(F,)`` for ``pair``, ``three``, ``four`` and ``five``, ``(F1, F2)`` for
    ``two_pair`` (F1 > F2) and ``full_house`` (three F1 over two F2, F1 != F2), and ``()``
    for the straights.
    """

    category: str
    faces: tuple[int, ...] = ()

    # -- what the hand is -----------------------------------------------------------

    @property
    def is_valid(self) -> bool:
        """Whether this is one of the 71 hands (faces in range and of the right count)."""
        return self.problem() is None

    def problem(self) -> str | None:
        """Why this is not a hand, in words; ``None`` for a valid hand."""
        category, faces = self.category, self.faces
        if category not in FACE_COUNTS:
            return f"there is no hand {category!r} (hands: {', '.join(CATEGORIES)})"
        wanted = FACE_COUNTS[category]
        if type(faces) is not tuple:
            return f"the faces must be a tuple, not {type(faces).__name__}"
        if len(faces) != wanted:
            return f"{category} names {wanted} face{'s' if wanted != 1 else ''}, not {len(faces)}"
        for face in faces:
            if type(face) is not int or not 1 <= face <= 6:
                return f"{clipped(repr(face))} is not a face 1..6"
        if category == "two_pair" and faces[0] <= faces[1]:
            return "two pair names the higher pair first (F1 > F2)"
        if category == "full_house" and faces[0] == faces[1]:
            return "a full house needs two different faces"
        return None

    def needs(self) -> tuple[tuple[int, int], ...]:
        """What the dice must show, as ``(face, at least)`` pairs (a valid hand only)."""
        return _needs(self)

    @property
    def dice_needed(self) -> int:
        """How many dice the hand takes: RULES.md's "dice it needs" (2 for a pair ...)."""
        return sum(count for _, count in _needs(self))

    def held_by(self, dice: Iterable[int]) -> bool:
        """Whether ``dice`` (all cups together) contain the hand."""
        shown = Counter(dice)
        return all(shown[face] >= count for face, count in _needs(self))

    def uses(self, die: int) -> bool:
        """Whether a die showing ``die`` is one the hand names (to mark it at a reveal)."""
        return any(face == die for face, _ in _needs(self))

    # -- text -----------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str) -> Hand:
        """Read a hand as people type it: ``pair of 3s``, ``two pair 5s and 2s``,
        ``three 6s``, ``low straight``, ``high straight``, ``full house 4s over 2s``,
        ``four 2s``, ``five 6s`` (also ``three of a kind 6s``, ``trips 6``, ``full_house 4 2``).

        Two pair may name the pairs in either order; the higher is put first.
        """
        cleaned = " ".join(re.sub(r"[_\-,&/]", " ", text.lower()).split())
        for pattern, category in _PATTERNS:
            match = pattern.match(cleaned)
            if match is None:
                continue
            faces = tuple(_face(token) for token in match.groups() if token is not None)
            if category == "two_pair" and len(faces) == 2 and faces[0] < faces[1]:
                faces = (faces[1], faces[0])
            hand = cls(category, faces)
            problem = hand.problem()
            if problem is not None:
                raise BadHandText(f"not a hand: {clipped(text)!r}: {problem}")
            return hand
        raise BadHandText(
            f"not a hand: {clipped(text)!r} (write it like 'pair of 3s', "
            "'two pair 5s and 2s', 'low straight' or 'full house 4s over 2s')"
        )

    def words(self) -> str:
        """The hand in words, the form :meth:`parse` reads back: ``full house 4s over 2s``."""
        category, faces = self.category, self.faces
        if category in _STRAIGHTS:
            return category.replace("_", " ")
        if category == "pair" and len(faces) == 1:
            return f"pair of {faces[0]}s"
        if category == "two_pair" and len(faces) == 2:
            return f"two pair {faces[0]}s and {faces[1]}s"
        if category == "full_house" and len(faces) == 2:
            return f"full house {faces[0]}s over {faces[1]}s"
        if category in _OF_A_KIND and len(faces) == 1:
            return f"{category} {faces[0]}s"
        return f"{category} {list(faces)}"

    def __str__(self) -> str:
        return self.words()

    def __repr__(self) -> str:
        if not self.faces:
            return f"Hand({self.category!r})"
        return f"Hand({self.category!r}, {self.faces!r})"

    # -- JSON -----------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """``{"hand": "full_house", "faces": [4, 2]}``; a straight has no ``faces``."""
        if not self.faces:
            return {"hand": self.category}
        return {"hand": self.category, "faces": list(self.faces)}

    @classmethod
    def from_json(cls, data: object) -> Hand:
        """Read :meth:`to_json`'s form (``faces`` may be ``[]`` or left out for a straight).

        Raises :class:`BadHandText` for anything that is not a valid hand.
        """
        hand = cls.from_json_lenient(data)
        problem = None if isinstance(data, Mapping) and "hand" in data else "it has no 'hand'"
        if problem is None and isinstance(data, Mapping):
            faces = data.get("faces", [])
            if not isinstance(faces, list) or not all(type(face) is int for face in faces):
                problem = "its faces must be a list of whole numbers"
        problem = problem or hand.problem()
        if problem is not None:
            raise BadHandText(f"not a hand: {_shown(data)}: {problem}")
        return hand

    @classmethod
    def from_json_lenient(cls, data: object) -> Hand:
        """Like :meth:`from_json`, but anything malformed becomes a hand that is not valid
        (the game then refuses it as ``bad_bid``), never an exception. Scenario files use
        this: RULES.md makes a malformed hand object an illegal action, not a bad file."""
        if not isinstance(data, Mapping):
            return _NOT_A_HAND
        category = data.get("hand")
        faces = data.get("faces", [])
        if not isinstance(category, str):
            return _NOT_A_HAND
        if not isinstance(faces, list) or not all(type(face) is int for face in faces):
            return cls(category, (0,))  # 0 is no face: refused as bad_bid
        return cls(category, tuple(faces))


_NOT_A_HAND: Final = Hand("", ())


_FACE_WORDS: Final = {
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
_F = r"(\d+|[a-z]+?)(?:'?s)?"
_JOIN = r"(?: (?:over|and|on|with))?"
_PATTERNS: Final = tuple(
    (re.compile(pattern + "$"), category)
    for pattern, category in (
        (r"^(?:low|small|little) straight", "low_straight"),
        (r"^(?:high|big|large) straight", "high_straight"),
        (rf"^full house(?: of)? {_F}{_JOIN} {_F}", "full_house"),
        (rf"^(?:two pairs?|2 pairs?)(?: of)? {_F}{_JOIN} {_F}", "two_pair"),
        (rf"^(?:one )?pair(?: of)? {_F}", "pair"),
        (rf"^(?:three of a kind|three|trips|3 of a kind|3)(?: of)? {_F}", "three"),
        (rf"^(?:four of a kind|four|quads|4 of a kind|4)(?: of)? {_F}", "four"),
        (rf"^(?:five of a kind|five|5 of a kind|5)(?: of)? {_F}", "five"),
    )
)


def _face(token: str) -> int:
    if token.isdigit():
        try:
            return int(token)
        except ValueError:  # more digits than Python reads (sys.get_int_max_str_digits)
            raise BadHandText(f"not a face: {clipped(token)!r}") from None
    if token in _FACE_WORDS:
        return _FACE_WORDS[token]
    if token + "s" in _FACE_WORDS:  # the pattern's lazy match left the plural s off
        return _FACE_WORDS[token + "s"]
    raise BadHandText(f"not a face: {clipped(token)!r}")


def _needs(hand: Hand) -> tuple[tuple[int, int], ...]:
    """What ``hand`` needs: looked up for the 71 hands (no cache that junk could grow)."""
    needs = _NEEDS.get(hand) if is_hand(hand) else None
    return needs if needs is not None else _needs_of(hand)


def _needs_of(hand: Hand) -> tuple[tuple[int, int], ...]:
    category, faces = hand.category, hand.faces
    if category in _OF_A_KIND:
        return ((faces[0], _OF_A_KIND[category]),)
    if category == "two_pair":
        return ((faces[0], 2), (faces[1], 2))
    if category == "full_house":
        return ((faces[0], 3), (faces[1], 2))
    if category in _STRAIGHTS:
        return tuple((face, 1) for face in _STRAIGHTS[category])
    raise ValueError(f"not a hand: {hand!r}")


def _all_hands() -> tuple[Hand, ...]:
    hands: list[Hand] = []
    faces = range(1, 7)
    for category in CATEGORIES:
        if category in _STRAIGHTS:
            hands.append(Hand(category))
        elif category == "two_pair":
            hands.extend(
                Hand(category, (high, low)) for high in faces for low in faces if low < high
            )
        elif category == "full_house":
            hands.extend(
                Hand(category, (three, two)) for three in faces for two in faces if two != three
            )
        else:
            hands.extend(Hand(category, (face,)) for face in faces)
    return tuple(hands)


ALL_HANDS: Final = _all_hands()
"""Every valid hand, lowest first: the raise order of RULES.md (a higher category, or the
same category with higher faces, compared first face first)."""

_RANKS: Final[dict[Hand, int]] = {hand: rank for rank, hand in enumerate(ALL_HANDS)}
_NEEDS: Final[dict[Hand, tuple[tuple[int, int], ...]]] = {
    hand: _needs_of(hand) for hand in ALL_HANDS
}


def hand_rank(hand: Hand) -> int:
    """The hand's place in the raise order (0 for a pair of 1s, 70 for five 6s).

    Raises ``ValueError`` for a hand that is not valid."""
    if not is_hand(hand):
        raise ValueError(f"not a hand: {hand!r}")
    return _RANKS[hand]


def is_hand(hand: object) -> bool:
    """Whether ``hand`` is one of the 71 valid hands (``True`` is not a face 1)."""
    return (
        type(hand) is Hand
        and type(hand.faces) is tuple  # a list would not hash
        and all(type(face) is int for face in hand.faces)
        and hand in _RANKS
    )


class HandLadder(Sequence[Hand]):
    """The hands that may be bid at a table, lowest first (the poker form of
    :class:`~dudo.bids.Ladder`): all 71, or under ``cap_at_dice_in_play`` those needing no
    more dice than are in play. ``positions`` maps a hand to its place; legal raises are
    the ladder from one past the standing hand's place."""

    __slots__ = ("_hands", "limit", "positions")

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self._hands = tuple(
            hand for hand in ALL_HANDS if limit is None or hand.dice_needed <= limit
        )
        self.positions: dict[Hand, int] = {hand: i for i, hand in enumerate(self._hands)}

    @staticmethod
    def rank(hand: Hand) -> int:
        return _RANKS[hand]

    @overload
    def __getitem__(self, position: int) -> Hand: ...
    @overload
    def __getitem__(self, position: slice) -> Sequence[Hand]: ...
    def __getitem__(self, position: int | slice) -> Hand | Sequence[Hand]:
        return self._hands[position]

    def __len__(self) -> int:
        return len(self._hands)

    def __iter__(self) -> Iterator[Hand]:
        return iter(self._hands)

    def __contains__(self, hand: object) -> bool:
        return is_hand(hand) and hand in self.positions

    def index(self, hand: object, start: int = 0, stop: int | None = None) -> int:
        """Position of ``hand``; ``ValueError`` if it is not on this ladder."""
        if hand not in self:
            raise ValueError(f"{hand!r} is not on the hand ladder (limit {self.limit})")
        position = self.positions[hand]  # type: ignore[index]
        if position < start or (stop is not None and position >= stop):
            raise ValueError(f"{hand!r} is not in the given part of the ladder")
        return position

    def above(self, hand: Hand) -> int:
        """Position of the first hand of the ladder that raises ``hand``."""
        rank = _RANKS[hand]
        for position, candidate in enumerate(self._hands):
            if _RANKS[candidate] > rank:
                return position
        return len(self._hands)

    def __repr__(self) -> str:
        return f"hand_ladder(limit={self.limit})"


@cache
def hand_ladder(limit: int | None) -> HandLadder:
    """The shared ladder of hands needing at most ``limit`` dice (``None``: every hand).
    Limits of 5 and more hold every hand, so they share one ladder."""
    if limit is not None and limit >= 5:
        limit = None
    return _shared(limit)


@cache
def _shared(limit: int | None) -> HandLadder:
    return HandLadder(limit)


def hands_in(dice: Sequence[int]) -> list[Hand]:
    """Every valid hand that ``dice`` contain, lowest first."""
    shown = Counter(dice)
    return [hand for hand in ALL_HANDS if all(shown[face] >= count for face, count in _needs(hand))]
