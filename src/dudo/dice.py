"""Where dice come from.

The engine never rolls by itself: a game is given a :class:`DiceSource`, so the same game
can run on cryptographic dice (the default), on seeded dice that replay exactly (tests,
simulations, bots' look-ahead) or on dice written down in advance (scenario files, game
records). The server adds its own provably fair source on top of this protocol.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from itertools import repeat
from math import floor
from typing import Protocol

FACES = (1, 2, 3, 4, 5, 6)

Cups = tuple[tuple[int, ...], ...]
"""Every seat's dice for one round, ``()`` for a seat that is out."""


def deal(dice: Sequence[int], dice_counts: Sequence[int]) -> Cups:
    """Cut a row of dice into cups, seat by seat, in seat order."""
    row = dice if isinstance(dice, tuple) else tuple(dice)
    cups = []
    start = 0
    for count in dice_counts:
        end = start + count
        cups.append(row[start:end])  # a tuple's slice is a tuple: one object per cup
        start = end
    return tuple(cups)


class DiceSource(Protocol):
    """Rolls the cups of a round and draws lots (for a random first opener).

    A roll-off for the first opener (``first_opener: rolloff``) is rolled as rounds before
    round 1: attempt ``n`` as round ``1 - n`` (0, -1, ...), two dice for each seat rolling
    in it and none for the others.
    """

    def roll(self, dice_counts: Sequence[int], round_number: int) -> Cups:
        """One tuple of dice per seat, of the length ``dice_counts`` gives."""
        ...

    def draw(self, seats: Sequence[int]) -> int:
        """One of ``seats``, chosen uniformly."""
        ...


class RandomDice:
    """Dice from a :class:`random.Random`-like generator (shared by the two sources below)."""

    __slots__ = ("_generator",)

    def __init__(self, generator: random.Random) -> None:
        self._generator = generator

    def roll(self, dice_counts: Sequence[int], round_number: int) -> Cups:
        return deal(self.row(sum(dice_counts)), dice_counts)

    def row(self, dice: int) -> tuple[int, ...]:
        """The whole table's dice in one row, seat after seat (what :meth:`roll` cuts into
        cups; the engine takes the row itself, and counts a face in it at the reveal).

        One draw for the whole table: a round's roll is on the hot path of every
        simulation. Each die is drawn exactly as ``choices(FACES, k=...)`` draws it
        (``FACES[floor(random() * 6.0)]``, in order), so a seed gives the dice it always
        gave, without the cost of that call's checks; ``floor(...) + 1`` is that face
        without the look-up, and ``repeat`` counts the dice without making an int per die
        (at six cups the roll is a third of a round's time).
        """
        random = self._generator.random
        return tuple([floor(random() * 6.0) + 1 for _ in repeat(None, dice)])

    def draw(self, seats: Sequence[int]) -> int:
        return self._generator.choice(seats)


class SystemDice(RandomDice):
    """Dice from the operating system's cryptographic generator: the default."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__(random.SystemRandom())


class SeededDice(RandomDice):
    """Reproducible dice: the same seed gives the same game."""

    __slots__ = ("seed",)

    def __init__(self, seed: int | str) -> None:
        super().__init__(random.Random(seed))
        self.seed = seed


def random_rows(source: DiceSource) -> RandomDice | None:
    """``source`` if it is one of this module's random sources, whose roll is
    :meth:`RandomDice.row` cut into cups (a subclass might roll otherwise), else ``None``."""
    return source if type(source) in (SeededDice, SystemDice) else None  # type: ignore[return-value]


class ScriptedDice:
    """Dice written down in advance, one entry per round, in order, and (``rolloff``) one
    entry per roll-off attempt (rounds 0, -1, ...).

    ``draw`` returns the first seat offered: a script that cares about the opener says so.
    A roll-off never takes a round's dice: without ``rolloff`` entries it is a
    ``LookupError`` (give the game an opener, or the roll-off's dice).
    """

    __slots__ = ("_rolloff", "_rounds")

    def __init__(
        self,
        rounds: Iterable[Sequence[Sequence[int]]],
        rolloff: Iterable[Sequence[Sequence[int]]] = (),
    ) -> None:
        self._rounds = [tuple(tuple(cup) for cup in cups) for cups in rounds]
        self._rolloff = [tuple(tuple(cup) for cup in cups) for cups in rolloff]

    def roll(self, dice_counts: Sequence[int], round_number: int) -> Cups:
        if round_number <= 0:
            if not self._rolloff:
                raise LookupError(
                    "no roll-off dice written down: give the game an opener, or the roll-off's dice"
                )
            return self._rolloff.pop(0)
        if not self._rounds:
            raise LookupError(f"no dice written down for round {round_number}")
        return self._rounds.pop(0)

    def draw(self, seats: Sequence[int]) -> int:
        return seats[0]
