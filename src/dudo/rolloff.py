"""The roll-off that decides who opens round 1 (``first_opener: rolloff``, RULES.md).

Every living player rolls two dice; the highest total opens. The players tied at the
highest total roll again, only they, until one total is highest. :class:`RollOff` is that
procedure as a pure value-driven step: it is handed each attempt's dice and says who rolls
next and, in the end, who opens. It rolls nothing itself, so a server can feed it dice from
its committed, verifiable scheme and a scenario file can write them down::

    >>> roll_off = RollOff((0, 1, 2))
    >>> roll_off.roll([(3, 4), (6, 1), (2, 2)]).tied
    (0, 1)
    >>> roll_off.rolling
    (0, 1)
    >>> roll_off.roll([(6, 6), (1, 1)]).tied, roll_off.opener
    ((0,), 0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dudo.printable import json_quoted as _shown  # a value quoted in an error message

Pair = tuple[int, int]
"""One player's two roll-off dice."""


class RollOffError(ValueError):
    """Roll-off dice that do not fit: wrong number of pairs, a die outside 1..6, or an
    attempt after the tie is already broken."""


@dataclass(frozen=True, slots=True)
class RollOffAttempt:
    """One attempt: the seats that rolled (in seat order), their pairs, and the seats tied
    at the highest total (one seat: that seat opens)."""

    seats: tuple[int, ...]
    rolls: tuple[Pair, ...]
    tied: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        """The scenario event: ``{"event": "rolloff", "seats", "rolls", "tied"}``."""
        return {
            "event": "rolloff",
            "seats": list(self.seats),
            "rolls": [list(pair) for pair in self.rolls],
            "tied": list(self.tied),
        }


class RollOff:
    """A roll-off in progress among ``seats`` (the living seats, in seat order).

    Call :meth:`roll` with one pair of dice per seat in :attr:`rolling` until
    :attr:`opener` is set. Nothing changes when :meth:`roll` refuses an attempt.
    """

    __slots__ = ("_rolling", "attempts", "seats")

    def __init__(self, seats: Sequence[int]) -> None:
        if len(seats) < 2 or len(set(seats)) != len(seats):
            raise RollOffError(f"a roll-off needs two or more different seats, not {seats!r}")
        self.seats: tuple[int, ...] = tuple(sorted(seats))
        self.attempts: list[RollOffAttempt] = []
        self._rolling: tuple[int, ...] = self.seats

    @classmethod
    def of(cls, seats: Sequence[int], attempts: Sequence[Sequence[Sequence[int]]]) -> RollOff:
        """The roll-off ``attempts`` give (each a list of ``[a, b]`` pairs); they must break
        the tie, or :class:`RollOffError` says why."""
        roll_off = cls(seats)
        for number, pairs in enumerate(attempts, start=1):
            try:
                roll_off.roll(pairs)
            except RollOffError as error:
                raise RollOffError(f"attempt {number}: {error}") from None
        if roll_off.opener is None:
            raise RollOffError(
                f"the attempts leave seats {list(roll_off.rolling)} tied: "
                "another attempt among them is needed"
            )
        return roll_off

    @property
    def rolling(self) -> tuple[int, ...]:
        """The seats that roll in the next attempt; ``()`` once the opener is known."""
        return self._rolling

    @property
    def opener(self) -> int | None:
        """The seat that opens round 1, once one total was highest."""
        if self.attempts and len(self.attempts[-1].tied) == 1:
            return self.attempts[-1].tied[0]
        return None

    def roll(self, pairs: Sequence[Sequence[int]]) -> RollOffAttempt:
        """Record the next attempt: one ``(a, b)`` pair per seat of :attr:`rolling`, in
        seat order. Returns the attempt (its ``tied`` seats roll next, if more than one)."""
        seats = self._rolling
        if not seats:
            raise RollOffError(f"the roll-off is over: seat {self.opener} opens")
        if not isinstance(pairs, Sequence) or len(pairs) != len(seats):
            raise RollOffError(
                f"seats {list(seats)} roll, so {len(seats)} pairs of dice are "
                f"needed, not {_shown(pairs)}"
            )
        rolls: list[Pair] = []
        for seat, pair in zip(seats, pairs, strict=True):
            if (
                not isinstance(pair, Sequence)
                or len(pair) != 2
                or not all(type(die) is int and 1 <= die <= 6 for die in pair)
            ):
                raise RollOffError(f"seat {seat}: {_shown(pair)} is not two dice 1..6")
            rolls.append((pair[0], pair[1]))
        best = max(a + b for a, b in rolls)
        tied = tuple(seat for seat, (a, b) in zip(seats, rolls, strict=True) if a + b == best)
        attempt = RollOffAttempt(seats, tuple(rolls), tied)
        self.attempts.append(attempt)
        self._rolling = tied if len(tied) > 1 else ()
        return attempt

    def to_json(self) -> list[list[list[int]]]:
        """The attempts as a scenario's ``start.rolloff``."""
        return [[list(pair) for pair in attempt.rolls] for attempt in self.attempts]

    def __repr__(self) -> str:
        return (
            f"<RollOff seats={list(self.seats)} attempts={len(self.attempts)} opener={self.opener}>"
        )
