"""The cups of a reveal in the terminal game, one line each, their counts labelled.

Each cup is drawn beside its player's name with the dice that count for the call in
brackets ("[4]"), so the mark sits on the very die it marks, with or without colour. The
cup's count used to follow as a bare number ("[6] 5 4    1"), which read as one more die;
it now says what it is ("→ 1 counted"). On a terminal too narrow for a cup beside its name,
the name goes on a line of its own and the cup under it, so no die wraps.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.cells import cell_len
from rich.text import Text

DIE_CELLS = 4
"""Columns one die of a cup takes: ``[4]`` or `` 4 `` and a space."""


def cup_line(dice: Sequence[int], counted: Callable[[int], bool]) -> Text:
    """A cup on one line: counted dice in brackets (and green)."""
    text = Text()
    for die in dice:
        if counted(die):
            text.append(f"[{die}]", style="bold green")
        else:
            text.append(f" {die} ")
        text.append(" ")
    return text


def count_label(number: int) -> str:
    return f" → {number} counted"


def cup_rows(
    labels: Sequence[str],
    cups: Sequence[Sequence[int]],
    counted: Callable[[int], bool],
    width: int,
) -> list[Text]:
    """The lines of every cup still in play: ``label  [4]  6  [4]   → 2 counted``, the
    cups' counts in one column; stacked (the label, then the cup) if ``width`` is too
    narrow for the longest line."""
    seats = [seat for seat, cup in enumerate(cups) if cup]
    name_cells = max(cell_len(labels[seat]) for seat in seats)
    most = max(len(cups[seat]) for seat in seats)
    count_cells = max(cell_len(count_label(len(cups[seat]))) for seat in seats)
    stacked = 2 + name_cells + 2 + DIE_CELLS * most + count_cells > width
    rows = []
    for seat in seats:
        cup = cups[seat]
        label = labels[seat]
        if stacked:
            rows.append(Text(f"  {label}"))
            line = Text("    ")
        else:
            line = Text(f"  {label}{' ' * (name_cells - cell_len(label))}  ")
        line.append_text(cup_line(cup, counted))
        line.append(" " * (DIE_CELLS * (most - len(cup))))
        line.append(count_label(sum(1 for die in cup if counted(die))))
        rows.append(line)
    return rows
