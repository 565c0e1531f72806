"""Fitting a screen of the terminal game to the terminal, so nothing the player needs
scrolls out of view.

A turn screen holds the round, the players, the bids, the player's dice and the prompt. At
80x24 with six players it fits; on a short terminal (60x20) it did not, and its top (the
round, the help on how to type a bid) scrolled away before the player could read it. So a
screen is built in variants, from the roomiest to the most compact, and the first one that
leaves room for the prompt and a reply under it is drawn (:func:`first_that_fits`). The
round's bids are the one part that grows without end: when every bid fits in no variant,
the most compact one lists only the latest that fit, after how many came earlier.

A title too long for the rule at the top of a screen is shortened by Rich with an ellipsis
("the face is l…"); :func:`heading` puts such a title's explanation on a line of its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.console import Console, RenderableType
from rich.rule import Rule
from rich.text import Text

ROOM_BELOW = 4
"""Lines a turn screen keeps free under it: the line the player typed, a reply of up to two
lines, and the prompt again."""


def height(console: Console, parts: Sequence[RenderableType]) -> int:
    """How many lines ``parts`` take when printed one after the other on ``console``."""
    options = console.options
    return sum(len(console.render_lines(part, options, pad=False)) for part in parts)


def first_that_fits(
    console: Console, variants: Iterable[list[RenderableType]], room_below: int = ROOM_BELOW
) -> list[RenderableType]:
    """The first of ``variants`` (roomiest first) that fits the console's height with
    ``room_below`` lines to spare, else the last one (the most compact there is)."""
    chosen: list[RenderableType] = []
    for parts in variants:
        chosen = parts
        if height(console, parts) + room_below <= console.height:
            break
    return chosen


def heading(console: Console, title: str, detail: str | None = None) -> list[RenderableType]:
    """A screen's rule titled ``title — detail``, or, where that would not fit across the
    console (a rule keeps a few columns for its line), the rule titled ``title`` with
    ``detail`` in bold on the line under it."""
    if detail is None:
        return [Rule(title)]
    whole = f"{title} — {detail}"
    if len(whole) + 6 <= console.width:
        return [Rule(whole)]
    return [Rule(title), Text(detail[:1].upper() + detail[1:] + ".", style="bold")]


def dice_in_a_line(label: str, dice: Sequence[int]) -> Text:
    """``Your dice: 6 5 4 5 3``: the player's dice as numbers on one line, for a screen too
    short for the drawn dice (six lines a row)."""
    text = Text(f"{label} ")
    text.append("  ".join(str(die) for die in dice), style="bold")
    return text
